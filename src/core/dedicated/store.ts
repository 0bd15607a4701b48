import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../errors';
import { writeFileAtomic } from '../../config/write';
import type { GroupStore } from '../groups/store';
import type { DedicatedLaunch, DedicatedSource } from '../services/manager-deps';
import { provisionDedicatedDirectory } from './directory';
import { dedicatedLaunch, type DedicatedPreparer } from './launch';
import { DEDICATED_FIELDS, dedicatedBodyValues, dedicatedDefaults, dedicatedProblem, type Dedicated, type DedicatedBody, type DedicatedPatch } from './model';
import { DedicatedFileError, parseDedicatedToml, renderDedicatedToml } from './toml';

export interface BrokenDedicatedFile {
  file: string;
  message: string;
}

export interface DedicatedLoadReport {
  loaded: number;
  broken: BrokenDedicatedFile[];
  warnings: string[];
}

export interface DedicatedStoreDeps {
  /** `config/dedicated/`: one `<name>.toml` each. */
  configDir: string;
  /** `[paths] dedicated`: each service runs in `<root>/<name>`. */
  root: string;
  /** Names must not clash with groups or their instances (`<Group>-<N>`). */
  groups: GroupStore;
  preparer: DedicatedPreparer;
}

/**
 * The dedicated configs, one TOML file each in `config/dedicated/`. Files are the truth: a
 * change is written atomically before memory changes; a file that cannot be read is reported
 * by name, left untouched, and its name stays taken. A config's directory is created with it
 * and never deleted by this store: worlds outlive their config.
 *
 * It is also the manager's DedicatedSource: each start or restart reads the current config.
 */
export class DedicatedStore implements DedicatedSource {
  private configs = new Map<string, Dedicated>();
  private broken = new Map<string, BrokenDedicatedFile>();

  constructor(private readonly deps: DedicatedStoreDeps) {}

  /** Re-reads every config file; what fails to load is reported, not fatal. */
  load(): DedicatedLoadReport {
    const { configDir } = this.deps;
    mkdirSync(configDir, { recursive: true });
    const configs = new Map<string, Dedicated>();
    const broken = new Map<string, BrokenDedicatedFile>();
    const warnings: string[] = [];
    for (const entry of readdirSync(configDir).sort()) {
      if (!entry.endsWith('.toml') || entry.startsWith('.')) continue;
      const name = entry.slice(0, -'.toml'.length);
      const file = join(configDir, entry);
      try {
        const parsed = parseDedicatedToml(readFileSync(file, 'utf8'), file, name);
        configs.set(name, parsed.config);
        warnings.push(...parsed.warnings);
      } catch (error) {
        const message = error instanceof DedicatedFileError ? error.message : `${file}: ${(error as Error).message}`;
        broken.set(name.toLowerCase(), { file, message });
      }
    }
    this.configs = configs;
    this.broken = broken;
    return { loaded: configs.size, broken: [...broken.values()], warnings };
  }

  list(): Dedicated[] {
    return [...this.configs.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): Dedicated | undefined {
    return this.configs.get(name);
  }

  require(name: string): Dedicated {
    const config = this.configs.get(name);
    if (!config) throw new ApiError('DEDICATED_NOT_FOUND', `dedicated service "${name}" does not exist`);
    return config;
  }

  brokenFiles(): BrokenDedicatedFile[] {
    return [...this.broken.values()];
  }

  /** The server directory of a dedicated service. */
  directoryOf(name: string): string {
    return join(this.deps.root, name);
  }

  /**
   * A new config: its directory provisioned (an existing one is kept, only eula and the port
   * set), then the file written. Refused when the name or the port is taken.
   */
  create(body: DedicatedBody): Dedicated {
    const taken = this.nameTakenBy(body.name);
    if (taken) throw new ApiError('DEDICATED_ALREADY_EXISTS', taken);
    const clash = this.groupClash(body.name);
    if (clash) throw new ApiError('VALIDATION_FAILED', clash);
    const config = complete({ ...dedicatedDefaults(), ...dedicatedBodyValues(body) });
    this.refusePortTaken(config);
    const dir = this.directoryOf(config.name);
    if (existsSync(dir) && !statSync(dir).isDirectory()) throw new ApiError('VALIDATION_FAILED', `${dir} exists and is not a directory; move it away to create dedicated service "${config.name}"`);
    provisionDedicatedDirectory(dir, config);
    this.write(config);
    return config;
  }

  /**
   * A partial update: what the body carries replaces, everything else keeps its current value
   * (a `startCommand` the dashboard never sends survives its edits); the cross-field rules and
   * the port check apply to the merged result. The name never changes; a running service picks
   * the change up at its next start.
   */
  update(name: string, body: DedicatedPatch): Dedicated {
    const current = this.require(name);
    if (body.name !== undefined && body.name !== name) throw new ApiError('VALIDATION_FAILED', `body "name" is "${body.name}" but a dedicated service's name cannot change (it is "${name}")`);
    const config = complete({ ...structuredClone(current), ...dedicatedBodyValues(body) });
    this.refusePortTaken(config);
    this.write(config);
    return config;
  }

  /** Removes the config file only; the directory stays. */
  delete(name: string): void {
    this.require(name);
    rmSync(this.fileOf(name), { force: true });
    this.configs.delete(name);
  }

  launchOf(name: string): DedicatedLaunch | undefined {
    const config = this.configs.get(name);
    return config ? dedicatedLaunch(config, this.directoryOf(name), this.deps.preparer) : undefined;
  }

  names(): string[] {
    return this.list().map((config) => config.name);
  }

  private write(config: Dedicated): void {
    writeFileAtomic(this.fileOf(config.name), renderDedicatedToml(config));
    this.configs.set(config.name, config);
  }

  private fileOf(name: string): string {
    return join(this.deps.configDir, `${name}.toml`);
  }

  /** Another dedicated config on the same port would never start beside this one. */
  private refusePortTaken(config: Dedicated): void {
    for (const other of this.configs.values()) {
      if (other.name !== config.name && other.port === config.port) {
        throw new ApiError('DEDICATED_PORT_IN_USE', `port ${config.port} is already the port of dedicated service "${other.name}"`);
      }
    }
  }

  /** Why a new config may not take this name; names differing only in case collide (file systems). */
  private nameTakenBy(name: string): string | null {
    const lower = name.toLowerCase();
    for (const existing of this.configs.keys()) {
      if (existing.toLowerCase() === lower) return existing === name ? `dedicated service "${name}" already exists` : `dedicated service "${existing}" already exists (names differ only in case)`;
    }
    const broken = this.broken.get(lower);
    if (broken) return `${broken.file} exists but cannot be loaded (${broken.message}); fix or remove it first`;
    if (existsSync(this.fileOf(name))) return `${this.fileOf(name)} already exists; restart the controller to load it`;
    return null;
  }

  /**
   * A dedicated service is registered under its own name, beside group instances named
   * `<Group>-<N>`: a name equal to a group's, or shaped like one of its instances, would mix
   * the two up (instance counts, console, metrics).
   */
  private groupClash(name: string): string | null {
    const lower = name.toLowerCase();
    for (const group of this.deps.groups.list()) {
      const groupName = group.name.toLowerCase();
      if (groupName === lower) return `"${name}" is the name of group "${group.name}"; a dedicated service needs a name of its own`;
      if (lower.startsWith(`${groupName}-`) && /^\d+$/.test(lower.slice(groupName.length + 1))) {
        return `"${name}" would clash with the instance names of group "${group.name}" (${group.name}-<N>)`;
      }
    }
    return null;
  }
}

/** Merged values in field-table order, nothing the table does not know, cross-field rules checked. */
function complete(merged: Partial<Dedicated>): Dedicated {
  const values: Record<string, unknown> = merged;
  const config = Object.fromEntries(Object.keys(DEDICATED_FIELDS).map((key) => [key, values[key]])) as Dedicated;
  const problem = dedicatedProblem(config);
  if (problem) throw new ApiError('VALIDATION_FAILED', `body ${problem}`);
  return config;
}
