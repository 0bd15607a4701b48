import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';
import type { Group } from '../../core/groups/model';
import type { SvcEvent } from '../../events/catalogue';
import type { ModuleKernel } from '../module';
import type { Logger } from '../../log';
import { parseScalingConfig, renderDefaultScalingConfig, type GroupScalingConfig } from './config';
import { ApiError } from '../../errors';
import { machineTimeZone } from './zoned';

export interface BrokenScalingFile {
  group: string;
  file: string;
  problem: string;
}

/** Smart scaling applies to groups whose instances come and go: DYNAMIC and LOBBY, not STATIC. */
export const isScalable = (group: Pick<Group, 'type'>): boolean => group.type !== 'STATIC';

/**
 * The per-group files, `config/modules/scaling/<Group>.toml`: written with the defaults when a
 * scalable group appears, read again on group changes, config reloads and `scaling reload`,
 * never deleted (the rules are the operator's work; a group made again finds them). A file
 * that cannot be used is reported (log, doctor, status) and its group has no smart scaling
 * until it is fixed; the others go on.
 */
export class ScalingConfigs {
  private readonly configs = new Map<string, GroupScalingConfig>();
  private readonly broken = new Map<string, BrokenScalingFile>();
  private unsubscribe: (() => void) | null = null;
  readonly zone = machineTimeZone();

  constructor(
    private readonly kernel: ModuleKernel<'bus' | 'groups'>,
    private readonly log: Logger,
    readonly dir: string,
  ) {}

  start(): void {
    mkdirSync(this.dir, { recursive: true });
    this.reload();
    this.unsubscribe = this.kernel.bus.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Every scalable group's file, created when missing and read again. */
  reload(): { loaded: number; broken: BrokenScalingFile[] } {
    const groups = this.kernel.groups.list().filter(isScalable);
    const known = new Set(groups.map((g) => g.name.toLowerCase()));
    for (const key of [...this.configs.keys()]) if (!known.has(key)) this.configs.delete(key);
    for (const key of [...this.broken.keys()]) if (!known.has(key)) this.broken.delete(key);
    for (const group of groups) this.load(group.name);
    return { loaded: this.configs.size, broken: this.brokenFiles() };
  }

  /** The group's usable config (any case), or undefined: not a scalable group, or its file is broken. */
  get(group: string): GroupScalingConfig | undefined {
    return this.configs.get(group.toLowerCase());
  }

  all(): GroupScalingConfig[] {
    return [...this.configs.values()].sort((a, b) => a.group.localeCompare(b.group));
  }

  problemOf(group: string): BrokenScalingFile | undefined {
    return this.broken.get(group.toLowerCase());
  }

  brokenFiles(): BrokenScalingFile[] {
    return [...this.broken.values()].sort((a, b) => a.group.localeCompare(b.group));
  }

  fileOf(group: string): string {
    return join(this.dir, `${group}.toml`);
  }

  /**
   * Writes a scalable group's file (`text`, rendered from a save) after reading it back exactly
   * as `scaling reload` would: a text the reader refuses is VALIDATION_FAILED in its words
   * (naming the key), and the file on disk is left as it was. In force at once.
   */
  save(group: string, text: string): GroupScalingConfig {
    const parsed = parseScalingConfig(text, group, this.zone);
    if (!parsed.ok) throw new ApiError('VALIDATION_FAILED', parsed.problem);
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(this.fileOf(group), text);
    this.configs.set(group.toLowerCase(), parsed.config);
    this.broken.delete(group.toLowerCase());
    return parsed.config;
  }

  private onEvent(event: SvcEvent): void {
    const name = event.data.group;
    switch (event.type) {
      case 'GROUP_CREATED':
      case 'GROUP_UPDATED': {
        const group = name === undefined ? undefined : this.kernel.groups.get(name);
        if (!group) return;
        if (isScalable(group)) this.load(group.name);
        else this.forget(group.name);
        return;
      }
      case 'GROUP_DELETED':
        if (name !== undefined) this.forget(name);
        return;
      case 'CONFIG_RELOADED':
        this.reload();
        return;
    }
  }

  private load(group: string): void {
    const key = group.toLowerCase();
    const file = this.fileOf(group);
    let problem: string;
    try {
      if (!existsSync(file)) writeFileAtomic(file, renderDefaultScalingConfig(group, this.zone));
      const parsed = parseScalingConfig(readFileSync(file, 'utf8'), group, this.zone);
      if (parsed.ok) {
        this.configs.set(key, parsed.config);
        this.broken.delete(key);
        return;
      }
      problem = parsed.problem;
    } catch (error) {
      problem = `could not be read or written: ${(error as Error).message}`;
    }
    this.configs.delete(key);
    const before = this.broken.get(key)?.problem;
    this.broken.set(key, { group, file, problem });
    if (before !== problem) this.log.warn({ file, group }, `${file}: ${problem}; smart scaling of "${group}" is off until the file is fixed (then: scaling reload)`);
  }

  /** The group is gone or static: it has no smart scaling; its file stays. */
  private forget(group: string): void {
    this.configs.delete(group.toLowerCase());
    this.broken.delete(group.toLowerCase());
  }
}
