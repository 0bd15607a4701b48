import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';
import type { Group } from '../../core/groups/model';
import { SOFTWARE } from '../../core/software/kinds';
import { ApiError } from '../../errors';
import type { Actor, SvcEvent } from '../../events/catalogue';
import type { ModuleKernel } from '../module';
import type { Logger } from '../../log';
import { defaultSettings } from './defaults';
import { parseDisplayToml, renderDisplayToml } from './file';
import { mergeDisplay } from './merge';
import type { Display, DisplayPatch, DisplaySettings } from './model';
import { apiPath, firstProblem } from './rules';

interface Entry {
  /** The group's own spelling. */
  group: string;
  settings: DisplaySettings;
}

export interface BrokenDisplayFile {
  group: string;
  file: string;
  problem: string;
}

/**
 * The displays of one controller: one file per non-proxy group, kept in step with the groups
 * (created with a group, re-read when it changes or on reload, deleted with it) and served
 * from memory, keyed by the lower-case group name. The files are the truth: every change is
 * written before memory changes, and a file that cannot be read is reported and served from
 * the defaults but left as it is, until an explicit PUT or reset replaces it (keeping a copy).
 */
export class DisplayStore {
  private readonly entries = new Map<string, Entry>();
  private readonly broken = new Map<string, BrokenDisplayFile>();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly kernel: ModuleKernel<'bus' | 'groups'>,
    private readonly log: Logger,
    readonly dir: string,
  ) {}

  /** Creates the missing files, loads every one, and follows the group events from now on. */
  start(): void {
    mkdirSync(this.dir, { recursive: true });
    this.syncAll('system', false);
    this.unsubscribe = this.kernel.bus.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  list(): Display[] {
    return [...this.entries.values()].sort((a, b) => a.group.localeCompare(b.group)).map(view);
  }

  get(name: string): Display {
    return view(this.require(name));
  }

  /** The state's label, or the state itself when the group has no label for it. */
  label(name: string, state: string): { raw: string; label: string } {
    const { states } = this.require(name).settings;
    return { raw: state, label: Object.hasOwn(states, state) ? states[state]! : state };
  }

  update(name: string, patch: DisplayPatch, actor: Actor): Display {
    const entry = this.require(name);
    const next = mergeDisplay(entry.settings, patch);
    const problem = firstProblem(next);
    if (problem) throw new ApiError('VALIDATION_FAILED', `body field "${apiPath(problem.path)}" ${problem.message}`);
    if (Bun.deepEquals(next, entry.settings, true)) return view(entry);
    return this.save(entry.group, next, actor);
  }

  reset(name: string, actor: Actor): Display {
    const group = this.kernel.groups.list().find((g) => g.name.toLowerCase() === name.toLowerCase());
    if (!group) throw new ApiError('GROUP_NOT_FOUND', `group "${name}" does not exist`);
    if (isProxy(group)) throw new ApiError('DISPLAY_CONFIG_NOT_FOUND', `group "${group.name}" is a proxy group: proxy groups have no display`);
    return this.save(group.name, defaultSettings(group.name), actor);
  }

  brokenFiles(): BrokenDisplayFile[] {
    return [...this.broken.values()].sort((a, b) => a.group.localeCompare(b.group));
  }

  get size(): number {
    return this.entries.size;
  }

  private require(name: string): Entry {
    const entry = this.entries.get(name.toLowerCase());
    if (entry) return entry;
    const group = this.kernel.groups.list().find((g) => g.name.toLowerCase() === name.toLowerCase());
    if (group && isProxy(group)) throw new ApiError('DISPLAY_CONFIG_NOT_FOUND', `group "${group.name}" is a proxy group: proxy groups have no display`);
    throw new ApiError('DISPLAY_CONFIG_NOT_FOUND', `no display configuration for "${name}": there is no such group (every non-proxy group has one; see GET /api/displays)`);
  }

  /** Writes the file, then memory, then tells the plugins. */
  private save(group: string, settings: DisplaySettings, actor: Actor): Display {
    const key = group.toLowerCase();
    const file = this.fileOf(group);
    const broken = this.broken.get(key);
    if (broken && existsSync(file)) {
      // An explicit write replaces a file that could not be read; its content stays beside it.
      copyFileSync(file, `${file}.broken`);
      this.log.warn({ file, group }, `${file} could not be read and is replaced now; its old content is kept in ${file}.broken`);
    }
    writeFileAtomic(file, renderDisplayToml(group, settings));
    this.broken.delete(key);
    const entry = { group, settings };
    this.entries.set(key, entry);
    this.kernel.bus.publish('DISPLAY_UPDATED', { group }, actor);
    return view(entry);
  }

  private onEvent(event: SvcEvent): void {
    const name = event.data.group;
    switch (event.type) {
      case 'GROUP_CREATED':
      case 'GROUP_UPDATED': {
        const group = name === undefined ? undefined : this.kernel.groups.get(name);
        if (group) this.sync(group, event.actor, event.type === 'GROUP_UPDATED');
        return;
      }
      case 'GROUP_DELETED':
        if (name !== undefined) this.forget(name);
        return;
      case 'CONFIG_RELOADED':
        this.syncAll(event.actor, true);
        return;
    }
  }

  /** Every group's file, created when missing and read again; displays of vanished groups go. */
  private syncAll(actor: Actor, announce: boolean): void {
    const groups = this.kernel.groups.list();
    for (const group of groups) this.sync(group, actor, announce);
    const known = new Set(groups.map((g) => g.name.toLowerCase()));
    for (const key of [...this.entries.keys()]) {
      if (!known.has(key)) {
        this.entries.delete(key);
        this.broken.delete(key);
      }
    }
  }

  /**
   * Brings one group's display in line with its file (written with the defaults if missing).
   * A proxy group has none (its file, if any, is kept). `announce`: publish DISPLAY_UPDATED
   * when what is served changed.
   */
  private sync(group: Group, actor: Actor, announce: boolean): void {
    const key = group.name.toLowerCase();
    const before = this.entries.get(key);
    if (isProxy(group)) {
      this.entries.delete(key);
      this.broken.delete(key);
      return;
    }
    const settings = this.load(group.name);
    this.entries.set(key, { group: group.name, settings });
    if (announce && before && !Bun.deepEquals(before.settings, settings, true)) this.kernel.bus.publish('DISPLAY_UPDATED', { group: group.name }, actor);
  }

  /** The file's settings; the defaults (and a warning) when it cannot be written or read. */
  private load(group: string): DisplaySettings {
    const key = group.toLowerCase();
    const file = this.fileOf(group);
    let problem: string;
    try {
      if (!existsSync(file)) writeFileAtomic(file, renderDisplayToml(group, defaultSettings(group)));
      const parsed = parseDisplayToml(readFileSync(file, 'utf8'), group);
      if (parsed.ok) {
        this.broken.delete(key);
        return parsed.settings;
      }
      problem = parsed.problem;
    } catch (error) {
      problem = `could not be read or written: ${(error as Error).message}`;
    }
    this.broken.set(key, { group, file, problem });
    this.log.warn({ file, group }, `${file}: ${problem}; "${group}" is served from the defaults until the file is fixed`);
    return defaultSettings(group);
  }

  private forget(group: string): void {
    const key = group.toLowerCase();
    this.entries.delete(key);
    this.broken.delete(key);
    rmSync(this.fileOf(group), { force: true });
  }

  private fileOf(group: string): string {
    return join(this.dir, `${group}.toml`);
  }
}

function isProxy(group: Group): boolean {
  return SOFTWARE[group.software].isProxy;
}

/** A fresh copy: what callers do with an answer never reaches the stored settings. */
function view(entry: Entry): Display {
  return { name: entry.group, ...structuredClone(entry.settings) };
}
