import { arch, cpus, freemem, hostname, loadavg, platform, release, totalmem } from 'node:os';
import type { Logger } from '../log';
import { VERSION } from '../version';
import { parseControllerMessage, PROTOCOL_VERSION, type AgentMessage, type ControllerMessage } from '../cluster/protocol';
import type { AgentConfig } from './config';
import { maxMemoryMb } from './config';
import type { LocalServices } from './local-services';
import type { NodeIdentity } from './identity';
import { OPERATOR_REFUSALS } from '../cluster/identity/login';
import { openChannel, type Pinned } from './trust';

export interface AgentTiming {
  /** First reconnect wait; doubles up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** The wait after a refusal only the operator can fix (a revoked node, an unknown secret, a wrong token); default 60 s. */
  refusedRetryMs?: number;
}

const REFUSED_RETRY_MS = 60_000;

/** Lines of one service collected within a tick are sent as one frame. */
const MAX_LINES_PER_FRAME = 500;

/**
 * The agent's side of the channel: logs in (AUTH_REQUEST with what it runs, so the controller
 * can reconcile), answers heartbeats, carries out commands, relays lines and exits. The
 * connection is re-made with backoff forever; the services never depend on it.
 */
export class AgentConnection {
  private socket: WebSocket | null = null;
  private accepted = false;
  private backoffMs: number;
  private closed = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private silenceTimer: ReturnType<typeof setTimeout> | null = null;
  private heartbeatIntervalMs = 5000;
  private readonly pendingLines = new Map<string, string[]>();
  private flushScheduled = false;
  /** Set when the controller refuses us for a reason retrying will not fix by itself. */
  lastRefusal: string | null = null;
  /** The controller's word for the last refusal (AUTH_RESPONSE `refusal`: revoked, unknown-secret, enrolled, in-use, …). */
  refusal: string | null = null;
  /** The next retry waits refusedRetryMs: the operator has to act first. */
  private slowRetry = false;

  constructor(
    private readonly config: AgentConfig,
    private readonly pinned: Pinned,
    private readonly services: LocalServices,
    private readonly log: Logger,
    private readonly timing: AgentTiming = { backoffMs: 1000, maxBackoffMs: 30_000 },
    private readonly onShutdown: (reason: string) => void = () => undefined,
    /** The controller's version and release feed, at each login (self-update follows it). */
    private readonly onControllerVersion: (version: string | undefined, release: { feedUrl: string; publicKey: string } | undefined) => void = () => undefined,
    /** This node's own secret (data/node.json); without it every login presents the cluster token, as agents before enrolment did. */
    private readonly identity?: NodeIdentity,
  ) {
    this.backoffMs = timing.backoffMs;
  }

  get connected(): boolean {
    return this.accepted;
  }

  start(): void {
    this.connect();
  }

  close(): void {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.socket?.close(1000, 'agent stopping');
  }

  /** A line from a service: batched per tick, dropped while disconnected (it stays in the service's log file). */
  line(serviceName: string, line: string): void {
    if (!this.accepted) return;
    const lines = this.pendingLines.get(serviceName) ?? [];
    lines.push(line);
    this.pendingLines.set(serviceName, lines);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flushLines());
  }

  exited(serviceName: string, code: number | null): void {
    this.flushLines();
    this.send({ type: 'SERVICE_STATE_CHANGED', serviceName, state: 'EXITED', exitCode: code });
  }

  private flushLines(): void {
    this.flushScheduled = false;
    for (const [serviceName, lines] of this.pendingLines) {
      for (let i = 0; i < lines.length; i += MAX_LINES_PER_FRAME) this.send({ type: 'SERVICE_STDOUT', serviceName, lines: lines.slice(i, i + MAX_LINES_PER_FRAME) });
    }
    this.pendingLines.clear();
  }

  private connect(): void {
    if (this.closed) return;
    let channel;
    try {
      // Checked at every connect: wss:// to a host the pinned certificate names, that certificate only (trust.ts).
      channel = openChannel(this.pinned, { fingerprint: this.config.agent.fingerprint, allowInsecure: this.config.agent.allow_insecure });
    } catch (error) {
      this.lastRefusal = (error as Error).message;
      this.log.error(`not connecting to the controller: ${this.lastRefusal}`);
      return;
    }
    const socket = new WebSocket(channel.wsUrl, (channel.tls ? { tls: channel.tls } : {}) as ConstructorParameters<typeof WebSocket>[1]);
    this.socket = socket;
    socket.addEventListener('open', () => {
      // The node's secret as its file holds it now; the cluster token only while there is none (an enrolment).
      this.identity?.reload();
      this.slowRetry = false;
      this.send({
        type: 'AUTH_REQUEST',
        protocolVersion: PROTOCOL_VERSION,
        token: this.identity?.loginToken(this.config.agent.token) ?? this.config.agent.token,
        nodeName: this.config.agent.node_name,
        agentVersion: VERSION,
        bunVersion: Bun.version,
        isolation: this.services.isolation,
        maxMemory: maxMemoryMb(this.config),
        maxServices: this.config.agent.max_services,
        currentServices: this.services.count,
        os: platform(),
        arch: arch(),
        hostname: hostname(),
        osVersion: release(),
        cpuModel: cpus()[0]?.model ?? 'unknown',
        availableProcessors: cpus().length,
        systemMemoryTotalMb: Math.round(totalmem() / 1048576),
        publicHost: this.config.agent.public_host,
        runningServices: this.services.running(),
      }, true);
    });
    socket.addEventListener('message', (event) => {
      this.alive();
      const parsed = parseControllerMessage(typeof event.data === 'string' ? event.data : Buffer.from(event.data as ArrayBuffer));
      if (!parsed.ok) {
        this.log.warn(`controller frame ignored: ${parsed.reason}`);
        return;
      }
      void this.handle(parsed.message);
    });
    socket.addEventListener('error', (event) => {
      const message = (event as ErrorEvent).message ?? 'connection error';
      const pinHint = /certificate|TLS/i.test(message) && this.pinned.certPem ? ` (the controller did not present the pinned certificate ${this.pinned.fingerprint}; if it was replaced on purpose, remove data/pinned.json)` : '';
      this.log.warn({ url: this.pinned.wsUrl }, `cluster connection failed: ${message}${pinHint}`);
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      const wasAccepted = this.accepted;
      this.accepted = false;
      this.socket = null;
      if (this.silenceTimer) clearTimeout(this.silenceTimer);
      if (this.closed) return;
      if (wasAccepted) this.backoffMs = this.timing.backoffMs;
      const wait = this.slowRetry ? Math.max(this.backoffMs, this.timing.refusedRetryMs ?? REFUSED_RETRY_MS) : this.backoffMs;
      this.log.warn({ code: event.code, reason: event.reason }, `disconnected from the controller; retrying in ${Math.round(wait / 1000)} s`);
      this.reconnectTimer = setTimeout(() => this.connect(), wait);
      this.backoffMs = Math.min(this.timing.maxBackoffMs, this.backoffMs * 2);
    });
  }

  /** A controller silent for three heartbeat periods is gone even if TCP has not noticed. */
  private alive(): void {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => this.socket?.close(4003, 'controller silent'), this.heartbeatIntervalMs * 3);
  }

  private async handle(message: ControllerMessage): Promise<void> {
    switch (message.type) {
      case 'AUTH_RESPONSE':
        if (!message.accepted) return this.refused(message.reason, message.refusal);
        // An enrolment: the secret is kept before anything else happens on this session.
        if (message.nodeSecret && this.identity) {
          const saved = this.identity.save(message.nodeSecret);
          if (saved) this.log.info({ nodeId: message.nodeId }, 'enrolled: this node logs in with its own secret from now on (data/node.json)');
        }
        this.accepted = true;
        this.lastRefusal = null;
        this.refusal = null;
        this.heartbeatIntervalMs = message.heartbeatInterval;
        this.alive();
        this.log.info({ nodeId: message.nodeId, services: this.services.count }, 'connected to the controller');
        this.onControllerVersion(message.controllerVersion, message.release);
        return;
      case 'HEARTBEAT_REQUEST':
        return this.heartbeat();
      case 'START_SERVICE':
        try {
          const started = await this.services.start(message);
          this.send({ type: 'SERVICE_STATE_CHANGED', serviceName: message.serviceName, state: 'RUNNING', requestId: message.requestId, ...started });
        } catch (error) {
          this.log.error({ service: message.serviceName, err: error }, 'start failed');
          this.send({ type: 'SERVICE_STATE_CHANGED', serviceName: message.serviceName, state: 'FAILED', requestId: message.requestId, reason: (error as Error).message.slice(0, 4000) });
        }
        return;
      case 'SEND_COMMAND':
        try {
          this.services.write(message.serviceName, message.command);
        } catch (error) {
          this.log.warn({ service: message.serviceName }, `command not delivered: ${(error as Error).message}`);
        }
        return;
      case 'SIGNAL_SERVICE':
        return this.services.signal(message.serviceName, message.signal);
      case 'STOP_SERVICE':
        return this.services.stop(message.serviceName, message.stopCommand, message.timeoutSeconds * 1000);
      case 'SHUTDOWN_AGENT':
        this.log.warn(`the controller asked this agent to shut down: ${message.reason}`);
        return this.onShutdown(message.reason);
    }
  }

  /**
   * A refused login. A refused secret is never swapped for the cluster token here: that would
   * undo the operator's revocation. What the operator has to do is said, and retries slow down.
   */
  private refused(reason: string, refusal: string | undefined): void {
    this.lastRefusal = reason;
    this.refusal = refusal ?? null;
    this.slowRetry = refusal !== undefined && (OPERATOR_REFUSALS.has(refusal) || refusal === 'rate-limited');
    const nodeId = this.config.agent.node_name;
    const heldSecret = this.identity?.secret() != null;
    let advice = '';
    if (refusal === 'revoked') {
      advice = `: node ${nodeId} was revoked on the controller. This agent does not fall back to the cluster token. To bring it back, the operator runs \`nodes forget ${nodeId}\` on the controller and deletes data/node.json here`;
    } else if (refusal === 'unknown-secret' || refusal === 'secret-of-another-node') {
      advice = `: the controller does not accept this node's secret (data/node.json). This agent does not fall back to the cluster token. If the node was forgotten on purpose, delete data/node.json here to enrol again`;
    } else if (refusal === 'enrolled' && !heldSecret) {
      advice = `: node ${nodeId} is enrolled, but this agent has no secret for it (data/node.json missing or unreadable). Restore the file, or revoke and forget the node on the controller so it enrols again`;
    }
    this.log.error({ refusal: refusal ?? 'unspecified' }, `the controller refused this agent: ${reason}${advice}`);
  }

  private heartbeat(): void {
    // The one-minute load per core, 0..1: the machine's busyness, which is what placement cares about.
    const load = loadavg()[0] ?? 0;
    this.send({
      type: 'HEARTBEAT_RESPONSE',
      timestamp: Date.now(),
      cpuUsage: Math.min(1, load / Math.max(1, cpus().length)),
      memoryUsedMb: Math.round((totalmem() - freemem()) / 1048576),
      memoryTotalMb: Math.round(totalmem() / 1048576),
      services: this.services.running(),
    });
  }

  private send(message: AgentMessage, beforeAuth = false): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || (!this.accepted && !beforeAuth)) return;
    socket.send(JSON.stringify(message));
  }
}
