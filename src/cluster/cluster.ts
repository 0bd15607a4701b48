import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors';
import type { EventBus } from '../events/bus';
import type { Logger } from '../log';
import type { Config } from '../config/schema';
import { LOCAL_NODE, type ServiceRegistry } from '../core/services/registry';
import type { MachineLimits } from '../core/scaling/placement';
import { ACTIVE_STATES } from '../core/services/lifecycle';
import { monotonicNow, type Clock } from '../core/time/monotonic';
import { applyHeartbeat, nodeFromAuth, type ClusterNode } from './node';
import { choosePlacement, type Candidate } from './placement';
import type { AuthRequestMessage, HeartbeatResponseMessage, RunningService, ServiceStateChangedMessage, StartServiceMessage } from './protocol';
import { RemoteProcessHandle, type AgentLink } from './remote-handle';
import type { Actor } from '../events/catalogue';
import type { NodeEnrolment, NodeRegistry } from './identity/registry';

export interface ClusterTiming {
  heartbeatIntervalMs: number;
  nodeTimeoutMs: number;
  reconciliationDelayMs: number;
  /** How long an agent may take to provision and launch (template download included). */
  startTimeoutMs: number;
  /** How long a failed node's entry (its last facts) stays listed; an enrolled node is listed as offline after that. */
  deadNodeExpiryMs: number;
}

export interface ClusterDeps {
  config: Config['cluster'];
  bus: EventBus;
  log: Logger;
  registry: ServiceRegistry;
  /** This machine's `[controller]` limits, for placement beside the agents. */
  localLimits: () => MachineLimits;
  timing?: Partial<ClusterTiming>;
  /** Where agents of another version get this controller's release (sent at login). */
  release?: () => { feedUrl: string; publicKey: string };
  /** The enrolled nodes (data/cluster/nodes.json): their secrets, hosts and revocations. */
  identities: NodeRegistry;
  /** The clock node timeouts, heartbeats and the reconciliation delay are measured on (monotonic; tests pass a fake). */
  monotonic?: Clock;
}

/** One line of GET /api/nodes: a node on the channel (or failed, not yet expired), its enrolment, or both. */
export interface NodeOverview {
  nodeId: string;
  node: ClusterNode | null;
  enrolment: NodeEnrolment | null;
}

interface NodeState {
  node: ClusterNode;
  link: AgentLink | null;
  /** When it went away (for node_timeout; monotonic ms); null while connected. */
  lostAt: number | null;
  /** When it failed (its entry expires deadNodeExpiryMs later; monotonic ms); null while connected or away within node_timeout. */
  failedAt: number | null;
  close: ((code: number, reason: string) => void) | null;
}

interface PendingStart {
  nodeId: string;
  /** The instance the START_SERVICE asked for: the only one its reply may name. */
  serviceName: string;
  resolve: (value: { handle: RemoteProcessHandle; port: number }) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The controller's view of its agents: who is connected, what runs where, placement, and the
 * remote process handles the manager supervises. A node that stops heartbeating for
 * `node_timeout`, or leaves and does not return within it, has failed: its services end (the
 * manager then applies the restart policy, which places them again elsewhere).
 *
 * Reconciliation when a node logs in: a process it reports that the controller holds a handle
 * for is adopted again; one it reports that nobody owns (re-placed meanwhile, or stopped) is
 * stopped; a handle on that node it does not report ended while nobody watched.
 */
export class Cluster {
  private readonly nodes = new Map<string, NodeState>();
  private readonly handles = new Map<string, RemoteProcessHandle>();
  private readonly starts = new Map<string, PendingStart>();
  private readonly timing: ClusterTiming;
  private lastChosen: string | undefined;
  private lastBroadcast = -Infinity;
  private readonly watchdog: ReturnType<typeof setInterval>;
  private readonly recoveryDeadline: number;
  /** Every duration here (heartbeat silence, node_timeout, expiries) is measured on it: a wall-clock step fails no node. */
  private readonly mono: Clock;

  constructor(private readonly deps: ClusterDeps) {
    this.timing = {
      heartbeatIntervalMs: deps.config.heartbeat_interval,
      nodeTimeoutMs: deps.config.node_timeout,
      reconciliationDelayMs: deps.config.reconciliation_delay,
      startTimeoutMs: 180_000,
      deadNodeExpiryMs: 10 * 60_000,
      ...deps.timing,
    };
    this.mono = deps.monotonic ?? monotonicNow;
    this.recoveryDeadline = this.mono() + this.timing.reconciliationDelayMs;
    this.watchdog = setInterval(() => this.tick(this.mono()), Math.min(this.timing.heartbeatIntervalMs, 1000));
    this.watchdog.unref();
  }

  get heartbeatIntervalMs(): number {
    return this.timing.heartbeatIntervalMs;
  }

  /** The enrolled nodes; the cluster server admits logins against them. */
  get identities(): NodeRegistry {
    return this.deps.identities;
  }

  list(): ClusterNode[] {
    return [...this.nodes.values()].map((s) => s.node).sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1));
  }

  get(nodeId: string): ClusterNode | undefined {
    return this.nodes.get(nodeId)?.node;
  }

  isConnected(nodeId: string): boolean {
    return this.nodes.get(nodeId)?.link != null;
  }

  /**
   * A node passed authentication (the server admitted it against the registry, and no session
   * of its id is live: a live one is never replaced): recorded, then reconciled against what it
   * runs. Players are routed to the host of its enrolment, whatever this login reports.
   */
  connected(request: AuthRequestMessage, remoteAddress: string, link: AgentLink, close: (code: number, reason: string) => void, enrolled?: { reenrolled: boolean }): ClusterNode {
    const now = Date.now();
    const nodeId = request.nodeName;
    if (this.nodes.get(nodeId)?.link) throw new Error(`node ${nodeId} has a live session: the newcomer must be refused before it gets here`);
    const enrolment = this.deps.identities.get(nodeId);
    const reported = request.publicHost || remoteAddress;
    const host = enrolment?.host ?? reported;
    if (enrolment && request.publicHost && request.publicHost !== enrolment.host) {
      this.deps.log.warn({ nodeId, reported: request.publicHost, host: enrolment.host }, `node ${nodeId} reports public host ${request.publicHost}; ignored: players are routed to ${enrolment.host}, its host since enrolment (\`nodes host ${nodeId} <host>\` changes it)`);
    }
    const node = nodeFromAuth(request, host, now, this.mono());
    this.nodes.set(nodeId, { node, link, lostAt: null, failedAt: null, close });
    if (enrolled) {
      this.deps.log.info({ nodeId, host, remote: remoteAddress }, enrolled.reenrolled ? `node ${nodeId} enrolled again (its previous secret was never used and is void now)` : `node ${nodeId} enrolled: it logs in with its own secret from now on`);
      this.deps.bus.publish('NODE_ENROLLED', { nodeId, host, reenrolled: enrolled.reenrolled }, 'api:cluster');
    }
    this.deps.log.info({ nodeId, host, services: request.runningServices.length }, 'node connected');
    this.deps.bus.publish('NODE_CONNECTED', { nodeId, host });
    this.reconcile(node, link, request.runningServices);
    return node;
  }

  /** The node's socket closed; its services are presumed running until node_timeout. */
  disconnected(nodeId: string, link: AgentLink, reason: string): void {
    const state = this.nodes.get(nodeId);
    if (!state || state.link !== link) return; // not (or no longer) this node's session
    state.link = null;
    state.close = null;
    state.lostAt = this.mono();
    state.node.connected = false;
    try {
      this.deps.identities.seen(nodeId);
    } catch (error) {
      this.deps.log.warn({ nodeId }, `the node registry could not be updated: ${(error as Error).message}`);
    }
    for (const handle of this.handlesOn(nodeId)) handle.detach();
    for (const [id, start] of this.starts) {
      if (start.nodeId !== nodeId) continue;
      clearTimeout(start.timer);
      this.starts.delete(id);
      start.reject(new Error(`node ${nodeId} disconnected during the start`));
    }
    this.deps.log.warn({ nodeId, reason }, `node disconnected; its services are failed unless it returns within ${this.timing.nodeTimeoutMs} ms`);
    this.deps.bus.publish('NODE_DISCONNECTED', { nodeId });
  }

  heartbeat(nodeId: string, beat: HeartbeatResponseMessage): void {
    const state = this.nodes.get(nodeId);
    if (!state) return;
    applyHeartbeat(state.node, beat, Date.now(), this.mono());
    for (const service of beat.services) {
      const record = this.deps.registry.get(service.serviceName);
      if (record && record.nodeId === nodeId && service.memoryUsedMb !== undefined) record.memoryUsedMb = service.memoryUsedMb;
    }
    this.deps.bus.publish('NODE_HEARTBEAT', { nodeId, cpuUsage: beat.cpuUsage, services: beat.services.length });
  }

  stdout(nodeId: string, serviceName: string, lines: readonly string[]): void {
    const handle = this.handles.get(serviceName);
    if (handle?.nodeId === nodeId) handle.deliver(lines);
  }

  stateChanged(nodeId: string, message: ServiceStateChangedMessage): void {
    if (message.requestId) {
      const start = this.starts.get(message.requestId);
      if (!start || start.nodeId !== nodeId) return;
      if (message.serviceName !== start.serviceName) {
        // Only the answer for the instance asked for counts: never a handle on another service.
        this.deps.log.warn({ nodeId, requested: start.serviceName, named: message.serviceName }, `node ${nodeId} answered the start of ${start.serviceName} with ${message.state} for ${message.serviceName}: refused`);
        return;
      }
      this.starts.delete(message.requestId);
      clearTimeout(start.timer);
      if (message.state === 'RUNNING' && message.pid && message.port) {
        const handle = this.track(message.serviceName, nodeId, message.pid, new Date(message.startedAt ?? Date.now()));
        start.resolve({ handle, port: message.port });
      } else {
        start.reject(new Error(message.reason || `the agent could not start ${message.serviceName}`));
      }
      return;
    }
    if (message.state === 'EXITED') {
      const handle = this.handles.get(message.serviceName);
      if (handle?.nodeId === nodeId) handle.end(message.exitCode ?? null);
    }
  }

  /** Where a new instance of a group goes (placement.node / fallback, else the strategy). */
  place(request: { memoryMb: number; preferredNode: string; fallback: 'wait' | 'local' | 'fail'; exclude?: string; target?: string }): string {
    if (request.target) {
      const known = this.nodes.has(request.target) || this.deps.identities.get(request.target) !== undefined;
      if (request.target !== LOCAL_NODE && !known) throw new ApiError('NODE_NOT_FOUND', `node "${request.target}" is not known; GET /api/nodes lists the nodes`);
    }
    const decision = choosePlacement(this.candidates(), {
      memoryMb: request.memoryMb,
      strategy: this.deps.config.placement_strategy,
      preferredNode: request.target ?? request.preferredNode,
      fallback: request.target ? 'fail' : request.fallback,
      exclude: request.exclude,
      lastChosen: this.lastChosen,
    }, LOCAL_NODE);
    if (!decision.ok) throw new ApiError('SERVICE_START_FAILED', decision.reason);
    this.lastChosen = decision.nodeId;
    return decision.nodeId;
  }

  /**
   * The limits of the whole cluster (this machine plus every connected node; a node without a
   * limit makes the total unlimited): what the scaling engine weighs a scale-up against. The
   * start itself then picks the node.
   */
  capacity(): MachineLimits {
    const local = this.deps.localLimits();
    let maxServices = local.maxServices;
    let maxMemoryMb = local.maxMemoryMb;
    for (const { node, link } of this.nodes.values()) {
      if (!link) continue;
      maxServices += node.maxServices > 0 ? node.maxServices : Number.POSITIVE_INFINITY;
      maxMemoryMb += node.maxMemoryMb > 0 ? node.maxMemoryMb : Number.POSITIVE_INFINITY;
    }
    return { maxServices, maxMemoryMb };
  }

  hostOf(nodeId: string): string {
    return this.nodes.get(nodeId)?.node.host ?? '127.0.0.1';
  }

  /** Asks the node to provision and launch; resolves once the agent reports the process running. */
  launch(nodeId: string, start: Omit<StartServiceMessage, 'type' | 'requestId'>): Promise<{ handle: RemoteProcessHandle; port: number }> {
    const state = this.nodes.get(nodeId);
    if (!state?.link) return Promise.reject(new Error(`node ${nodeId} is not connected`));
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.starts.delete(requestId);
        reject(new Error(`node ${nodeId} did not report ${start.serviceName} running within ${Math.round(this.timing.startTimeoutMs / 1000)} s`));
      }, this.timing.startTimeoutMs);
      this.starts.set(requestId, { nodeId, serviceName: start.serviceName, resolve, reject, timer });
      state.link!.send({ type: 'START_SERVICE', requestId, ...start });
    });
  }

  /**
   * After a controller restart: a handle for a service the state file says runs on a node. It
   * is bound when the node reports it; if the node has not within `reconciliation_delay`
   * (counted from this controller's start), it ended while nobody watched.
   */
  recover(serviceName: string, nodeId: string, pid: number, startedAt: Date): RemoteProcessHandle {
    const handle = this.track(serviceName, nodeId, pid, startedAt);
    handle.detach();
    return handle;
  }

  /** The nodes on the channel (and failed ones not yet expired) beside the enrolled ones, by id. */
  overview(): NodeOverview[] {
    const ids = new Set([...this.nodes.keys(), ...this.deps.identities.list().map((e) => e.nodeId)]);
    return [...ids].sort().map((nodeId) => ({ nodeId, node: this.nodes.get(nodeId)?.node ?? null, enrolment: this.deps.identities.get(nodeId) ?? null }));
  }

  /**
   * The operator revokes a node: its secret stops working at once, its session is closed, and
   * its services count as failed (restart-on-crash ones are placed again elsewhere). The agent
   * is first asked to stop them, so a node being retired leaves no second copy running. The id
   * cannot enrol again until it is forgotten. Undefined for an unknown id; `already` when it was revoked.
   */
  revoke(nodeId: string, actor: Actor): { services: number; already: boolean } {
    const enrolment = this.deps.identities.get(nodeId);
    const state = this.nodes.get(nodeId);
    if (!enrolment && !state) throw new ApiError('NODE_NOT_FOUND', `node "${nodeId}" is not known; GET /api/nodes lists the nodes`);
    const already = enrolment?.revokedAt != null;
    // Written first: when the registry cannot record it, nothing else happens either.
    if (enrolment && !already) this.deps.identities.revoke(nodeId);
    const services = [...this.handlesOn(nodeId)].filter((h) => h.isAlive());
    if (state?.link) {
      for (const handle of services) state.link.send({ type: 'STOP_SERVICE', serviceName: handle.name, timeoutSeconds: 30, stopCommand: 'stop' });
      const { link, close } = state;
      close?.(4004, 'this node was revoked by the operator');
      this.disconnected(nodeId, link, 'revoked by the operator');
    }
    if (state) {
      state.lostAt = null;
      this.fail(nodeId, 'it was revoked by the operator');
      // Nothing of a revoked node is waited for: its entry goes now (its enrolment stays listed, revoked).
      this.nodes.delete(nodeId);
    }
    if (!already) {
      this.deps.log.warn({ nodeId, services: services.length }, `node ${nodeId} revoked: its secret no longer opens anything`);
      this.deps.bus.publish('NODE_REVOKED', { nodeId, services: services.length }, actor);
    }
    return { services: services.length, already };
  }

  /**
   * Drops a revoked or offline node: its enrolment and what is left of its entry. The id may
   * then enrol afresh with the cluster token. A node on the channel is refused (revoke it first).
   */
  forget(nodeId: string, actor: Actor): void {
    const enrolment = this.deps.identities.get(nodeId);
    const state = this.nodes.get(nodeId);
    if (!enrolment && !state) throw new ApiError('NODE_NOT_FOUND', `node "${nodeId}" is not known; GET /api/nodes lists the nodes`);
    if (state?.link) throw new ApiError('NODE_ONLINE', `node ${nodeId} is connected: revoke it first (POST /api/nodes/${nodeId}/revoke, \`nodes revoke ${nodeId}\`), or stop its agent`);
    if (state?.lostAt != null || [...this.handlesOn(nodeId)].some((h) => h.isAlive())) {
      throw new ApiError('NODE_ONLINE', `node ${nodeId} left less than node_timeout ago and its services are not failed yet: revoke it, or wait`);
    }
    if (enrolment) this.deps.identities.forget(nodeId);
    this.nodes.delete(nodeId);
    this.deps.log.info({ nodeId }, `node ${nodeId} forgotten: it may enrol again with the cluster token`);
    this.deps.bus.publish('NODE_FORGOTTEN', { nodeId }, actor);
  }

  /** The operator's choice of where players reach a node; services started on it from now on carry it. */
  setHost(nodeId: string, host: string, actor: Actor): void {
    const enrolment = this.deps.identities.get(nodeId);
    if (!enrolment || enrolment.revokedAt) throw new ApiError('NODE_NOT_FOUND', `node "${nodeId}" is not ${enrolment ? 'enrolled (it was revoked)' : 'known'}; GET /api/nodes lists the nodes`);
    if (enrolment.host === host) return;
    this.deps.identities.setHost(nodeId, host);
    const state = this.nodes.get(nodeId);
    if (state) state.node.host = host;
    this.deps.log.info({ nodeId, host, previous: enrolment.host }, `node ${nodeId}: players are routed to ${host} from now on`);
    this.deps.bus.publish('NODE_HOST_CHANGED', { nodeId, host, previous: enrolment.host }, actor);
  }

  close(): void {
    clearInterval(this.watchdog);
    for (const start of this.starts.values()) {
      clearTimeout(start.timer);
      start.reject(new Error('the controller is shutting down'));
    }
    this.starts.clear();
    for (const state of this.nodes.values()) state.close?.(1001, 'controller shutting down');
  }

  /** Services and memory per node, from the registry, with this machine as a candidate too. */
  private candidates(): Candidate[] {
    const usage = new Map<string, { services: number; memory: number }>();
    for (const record of this.deps.registry.all()) {
      if (!ACTIVE_STATES.has(record.state)) continue;
      const entry = usage.get(record.nodeId) ?? { services: 0, memory: 0 };
      entry.services++;
      entry.memory += record.memoryMaxMb;
      usage.set(record.nodeId, entry);
    }
    const remote: Candidate[] = this.list().map((node) => ({
      nodeId: node.nodeId,
      connected: node.connected,
      maxServices: node.maxServices,
      maxMemoryMb: node.maxMemoryMb,
      services: usage.get(node.nodeId)?.services ?? 0,
      memoryUsedMb: usage.get(node.nodeId)?.memory ?? 0,
    }));
    // Enrolled nodes that are away are known (a group naming one waits for it), never chosen.
    for (const enrolment of this.deps.identities.list()) {
      if (enrolment.revokedAt || this.nodes.has(enrolment.nodeId)) continue;
      remote.push({ nodeId: enrolment.nodeId, connected: false, maxServices: 0, maxMemoryMb: 0, services: 0, memoryUsedMb: 0 });
    }
    const limits = this.deps.localLimits();
    const local = usage.get(LOCAL_NODE);
    // This machine last, so a tie goes to an agent: that is what agents are for.
    return [...remote, { nodeId: LOCAL_NODE, connected: true, maxServices: limits.maxServices, maxMemoryMb: limits.maxMemoryMb, services: local?.services ?? 0, memoryUsedMb: local?.memory ?? 0 }];
  }

  private track(serviceName: string, nodeId: string, pid: number, startedAt: Date): RemoteProcessHandle {
    const link = this.nodes.get(nodeId)?.link ?? null;
    const handle = new RemoteProcessHandle(serviceName, nodeId, pid, startedAt, link, (closed) => {
      if (this.handles.get(closed.name) === closed) this.handles.delete(closed.name);
    });
    this.handles.set(serviceName, handle);
    return handle;
  }

  private *handlesOn(nodeId: string): Iterable<RemoteProcessHandle> {
    for (const handle of this.handles.values()) if (handle.nodeId === nodeId) yield handle;
  }

  private reconcile(node: ClusterNode, link: AgentLink, running: readonly RunningService[]): void {
    const { nodeId } = node;
    const reported = new Set<string>();
    for (const service of running) {
      reported.add(service.serviceName);
      const handle = this.handles.get(service.serviceName);
      if (handle && handle.nodeId === nodeId && handle.isAlive()) {
        handle.attach(link, service.pid);
        // Recovered before its node was back, the record could not know the node's address yet.
        const record = this.deps.registry.get(service.serviceName);
        if (record) {
          record.host = node.host;
          record.pid = service.pid;
        }
        continue;
      }
      // Nobody owns it any more (re-placed while the node was away, or stopped): no duplicates.
      this.deps.log.warn({ nodeId, service: service.serviceName }, 'the node runs a service the controller no longer owns: stopping it');
      link.send({ type: 'STOP_SERVICE', serviceName: service.serviceName, timeoutSeconds: 30, stopCommand: 'stop' });
    }
    for (const handle of [...this.handlesOn(nodeId)]) {
      if (reported.has(handle.name)) continue;
      this.deps.log.warn({ nodeId, service: handle.name }, 'the node no longer runs this service: it ended while the node was away');
      handle.end(null);
    }
  }

  /** Heartbeat requests, stalled and silent nodes, nodes that did not come back, unclaimed recoveries; `now` is monotonic ms. */
  private tick(now: number): void {
    if (now - this.lastBroadcast >= this.timing.heartbeatIntervalMs) {
      this.lastBroadcast = now;
      const timestamp = Date.now();
      for (const state of this.nodes.values()) state.link?.send({ type: 'HEARTBEAT_REQUEST', timestamp });
    }
    for (const [nodeId, state] of this.nodes) {
      if (state.link) {
        if (now - state.node.heardMono > this.timing.nodeTimeoutMs) {
          this.deps.log.warn({ nodeId }, `no heartbeat for ${this.timing.nodeTimeoutMs} ms: disconnecting the node`);
          const { link, close } = state;
          close?.(4002, 'heartbeat timeout');
          this.disconnected(nodeId, link, 'heartbeat timeout');
          state.lostAt = null; // failed now, not again after another node_timeout
          this.fail(nodeId, 'it stopped heartbeating');
        }
        continue;
      }
      if (state.lostAt !== null && now - state.lostAt >= this.timing.nodeTimeoutMs) {
        state.lostAt = null;
        this.fail(nodeId, `it did not return within ${this.timing.nodeTimeoutMs} ms`);
        continue;
      }
      // A failed node's entry does not stay forever: an enrolled one is listed from its enrolment (offline) after this.
      if (state.failedAt !== null && now - state.failedAt >= this.timing.deadNodeExpiryMs) {
        this.nodes.delete(nodeId);
        this.deps.log.info({ nodeId }, `node ${nodeId} failed ${Math.round(this.timing.deadNodeExpiryMs / 1000)} s ago: its entry expired`);
      }
    }
    if (now >= this.recoveryDeadline) {
      for (const handle of this.handles.values()) {
        if (handle.attached || !handle.isAlive()) continue;
        const state = this.nodes.get(handle.nodeId);
        if (state && state.lostAt !== null) continue; // its node's own timeout decides
        if (!state) {
          this.deps.log.warn({ service: handle.name, nodeId: handle.nodeId }, `node ${handle.nodeId} did not return within reconciliation_delay: the service is failed`);
          handle.end(null);
        }
      }
    }
  }

  /** The node failed: every service on it ended (the manager restarts restart-on-crash ones elsewhere). */
  private fail(nodeId: string, why: string): void {
    const state = this.nodes.get(nodeId);
    if (state) state.failedAt = this.mono();
    const lost = [...this.handlesOn(nodeId)].filter((h) => h.isAlive());
    this.deps.log.error({ nodeId, services: lost.length }, `node failed: ${why}`);
    if (lost.length > 0) this.deps.bus.publish('API_WARNING', { message: `node ${nodeId} failed (${why}); ${lost.length} service(s) on it are treated as crashed` });
    for (const handle of lost) handle.end(null);
  }
}
