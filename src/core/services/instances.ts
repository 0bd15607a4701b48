import { rm } from 'node:fs/promises';
import { ApiError } from '../../errors';
import type { SoftwareKind } from '../software/kinds';
import type { ProcessHandle } from '../supervisor/process';
import { transition, type ServiceState } from './lifecycle';
import type { ManagerDeps } from './manager-deps';
import { LOCAL_NODE, type ServiceRecord } from './registry';
import { SerialQueue } from './serial';
import type { PersistedService } from './state-file';

/** A supervised service: its record, and what only the supervisor holds (process, queue, timers). */
export interface Instance {
  record: ServiceRecord;
  kind: SoftwareKind;
  queue: SerialQueue;
  handle: ProcessHandle | null;
  /** Set while a stop we asked for is in progress: the exit is then not a crash. */
  stopping: boolean;
  readyTimer: ReturnType<typeof setTimeout> | null;
  /** A warm-pool instance still booting: settled once it is PREPARED, taken, or gone. */
  warming: Deferred | null;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * The services the manager supervises, by name. Every state move goes through here, and so
 * does the state file a restarted controller reads: a service is registered, moved and
 * forgotten only through this table, so the registry and the file never disagree with it.
 */
export class InstanceTable {
  private readonly instances = new Map<string, Instance>();
  private persistTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly deps: Pick<ManagerDeps, 'log' | 'registry' | 'stateFile'>) {}

  get(name: string): Instance | undefined {
    return this.instances.get(name);
  }

  all(): IterableIterator<Instance> {
    return this.instances.values();
  }

  require(name: string): Instance {
    const instance = this.instances.get(name);
    if (!instance) throw new ApiError('SERVICE_NOT_FOUND', `service "${name}" does not exist`);
    return instance;
  }

  /** The services on this machine: what `[controller]` limits count (agents have their own). */
  *localRecords(): Iterable<ServiceRecord> {
    for (const instance of this.instances.values()) if (instance.record.nodeId === LOCAL_NODE) yield instance.record;
  }

  register(record: ServiceRecord, kind: SoftwareKind, pooled: boolean): Instance {
    this.deps.registry.add(record);
    const instance: Instance = { record, kind, queue: new SerialQueue(), handle: null, stopping: false, readyTimer: null, warming: pooled ? deferred() : null };
    // Nobody may be left waiting on a warm instance that is stopped or crashes before it is PREPARED.
    instance.warming?.promise.catch(() => undefined);
    this.instances.set(record.name, instance);
    return instance;
  }

  /** Moves a service through the lifecycle table; refused moves are logged, not thrown. */
  move(instance: Instance, to: ServiceState): boolean {
    const result = transition(instance.record.state, to);
    if (!result.ok) {
      this.deps.log.warn({ service: instance.record.name }, `refused: ${result.reason}`);
      return false;
    }
    instance.record.state = to;
    // A new process must be on disk before anyone hears of it; any other change may wait a moment.
    if (result.changed) {
      if (to === 'STARTING') this.persistNow();
      else this.persistSoon();
    }
    return result.changed;
  }

  /**
   * Soon (coalesced, PERSIST_DELAY_MS) for changes whose loss a restarted controller survives:
   * a READY it re-reads from the service's log, a removal it reports as "not recovered", a
   * custom state the SDK sets again. One write for a burst of changes instead of one each.
   */
  persistSoon(): void {
    if (this.persistTimer) return;
    this.persistTimer = setTimeout(() => this.persistNow(), PERSIST_DELAY_MS);
    this.persistTimer.unref();
  }

  /**
   * Writes what a restarted controller needs to find every live process again. Synchronous for
   * a newly spawned process: a kill -9 right after a start must not lose it.
   */
  persistNow(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = null;
    const services: PersistedService[] = [];
    for (const { record, handle } of this.instances.values()) {
      if (!handle) continue;
      services.push({
        name: record.name,
        group: record.group,
        state: record.state,
        port: record.port,
        workDir: record.workDir,
        stateDir: handle.stateDir,
        isStatic: record.isStatic,
        restartCount: record.restartCount,
        customState: record.customState,
        isDedicated: record.isDedicated,
        pooled: record.pooled,
        proxyEnabled: record.proxyEnabled,
        ...(record.nodeId !== LOCAL_NODE ? { nodeId: record.nodeId, pid: record.pid ?? 0, startedAt: record.startedAt?.getTime() ?? Date.now() } : {}),
      });
    }
    try {
      this.deps.stateFile.save(services);
    } catch (error) {
      this.deps.log.error({ err: error }, 'could not save the service state file');
    }
  }

  /** After a stop: unregistered, and a dynamic service's work dir deleted (settles once it is). */
  cleanUp(instance: Instance): Promise<void> {
    instance.handle?.close();
    return this.forget(instance.record.name, { removeWorkDir: true });
  }

  /**
   * Drops a service from the controller; a dynamic service's work dir goes with it. The
   * deletion runs off the event loop (a world can be thousands of files) and settles the
   * returned promise; a failure is logged, never thrown: the service is gone either way.
   */
  forget(name: string, options: { removeWorkDir?: boolean } = {}): Promise<void> {
    const instance = this.instances.get(name);
    instance?.handle?.close();
    instance?.warming?.reject(new Error(`${name} was removed before it was prepared`));
    this.instances.delete(name);
    this.deps.registry.remove(name);
    this.persistSoon();
    if (!options.removeWorkDir || !instance || instance.record.isStatic || instance.record.nodeId !== LOCAL_NODE) return Promise.resolve();
    const { workDir } = instance.record;
    return rm(workDir, { recursive: true, force: true }).catch((error: unknown) => this.deps.log.warn({ service: name, err: error }, `could not delete the work dir ${workDir}`));
  }
}

/** How long changes that may wait are collected before the state file is written. */
const PERSIST_DELAY_MS = 50;

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
