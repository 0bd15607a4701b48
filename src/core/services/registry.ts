import { ACTIVE_STATES, type ServiceState } from './lifecycle';

/** What the controller knows about one service instance. */
export interface ServiceRecord {
  name: string;
  group: string;
  state: ServiceState;
  customState: string;
  port: number;
  pid: number | null;
  workDir: string;
  playerCount: number;
  /** When the last player-count report arrived (wall-clock ms): the time a report closes player sessions at. */
  playersReportedAt: number | null;
  /** The same moment on the monotonic clock (core/time/monotonic): staleness and freshness are measured on it. */
  playersReportedMono: number | null;
  tps: number | null;
  memoryMaxMb: number;
  restartCount: number;
  startedAt: Date | null;
  /** The same start on the monotonic clock (core/time/monotonic), set once the controller watches the process: uptime is measured from it. */
  startedMono: number | null;
  readyAt: Date | null;
  /** When it last became READY on the monotonic clock: how long it has run healthy, how long it has been idle. */
  readyMono: number | null;
  isStatic: boolean;
  isDedicated: boolean;
  isProxy: boolean;
  /** Whether proxies list it (a dedicated service may opt out; every group instance is listed). */
  proxyEnabled: boolean;
  /**
   * A warm-pool instance: booted ahead of need (PREPARING, then PREPARED once its ready line
   * came), not routable and not counted as running until a start takes it.
   */
  pooled: boolean;
  /** Why it last failed, in words an operator can act on. */
  diagnosis: string | null;
  /** The cluster node it runs on: `local` (this controller's machine) or an agent's node name. */
  nodeId: string;
  /** Where players and proxies reach it: 127.0.0.1 locally, the agent's public host remotely. */
  host: string;
  /** Resident memory the agent last reported (remote services; local ones are read from the process table). */
  memoryUsedMb: number | null;
}

/** The node id of services that run on the controller's own machine. */
export const LOCAL_NODE = 'local';

/**
 * Every service the controller knows, by name. The supervisor adds and moves records; the
 * rest of the controller reads them (group instance counts, health, metrics, status).
 */
export class ServiceRegistry {
  private readonly services = new Map<string, ServiceRecord>();

  add(record: ServiceRecord): void {
    if (this.services.has(record.name)) throw new Error(`service ${record.name} is already registered`);
    this.services.set(record.name, record);
  }

  remove(name: string): void {
    this.services.delete(name);
  }

  get(name: string): ServiceRecord | undefined {
    return this.services.get(name);
  }

  /** Every service, in natural name order (Lobby-2 before Lobby-10). */
  all(): ServiceRecord[] {
    return [...this.services.values()].sort(byName);
  }

  ofGroup(group: string): ServiceRecord[] {
    const members: ServiceRecord[] = [];
    for (const s of this.services.values()) if (s.group === group) members.push(s);
    return members.sort(byName);
  }

  /** Instances of a group that hold or are about to hold a process, warm pool included. */
  activeInstances(group: string): number {
    let n = 0;
    for (const s of this.services.values()) if (s.group === group && ACTIVE_STATES.has(s.state)) n++;
    return n;
  }

  /** Active instances of a group outside its warm pool: what `maxInstances` limits. */
  runningInstances(group: string): number {
    let n = 0;
    for (const s of this.services.values()) if (s.group === group && !s.pooled && ACTIVE_STATES.has(s.state)) n++;
    return n;
  }

  /** The group's warm pool: booting (PREPARING) and booted (PREPARED) instances, in name order. */
  poolOf(group: string): ServiceRecord[] {
    return this.ofGroup(group).filter((s) => s.pooled && (s.state === 'PREPARING' || s.state === 'PREPARED'));
  }

  get size(): number {
    return this.services.size;
  }
}

// Built on the first sort, not at start: a collator loads the runtime's ICU collation data.
let naturalOrder: Intl.Collator | undefined;
const byName = (a: ServiceRecord, b: ServiceRecord) => (naturalOrder ??= new Intl.Collator('en', { numeric: true })).compare(a.name, b.name);

/** A fresh record in PREPARING with nothing known yet. */
export function newRecord(fields: Pick<ServiceRecord, 'name' | 'group' | 'port' | 'workDir' | 'isStatic' | 'isProxy' | 'memoryMaxMb' | 'restartCount'>): ServiceRecord {
  return {
    ...fields,
    state: 'PREPARING',
    customState: '',
    pid: null,
    playerCount: 0,
    playersReportedAt: null,
    playersReportedMono: null,
    tps: null,
    startedAt: null,
    startedMono: null,
    readyAt: null,
    readyMono: null,
    isDedicated: false,
    proxyEnabled: true,
    pooled: false,
    diagnosis: null,
    nodeId: LOCAL_NODE,
    host: '127.0.0.1',
    memoryUsedMb: null,
  };
}
