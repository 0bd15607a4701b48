import type { Socket, SocketHandler, TCPSocketListener } from 'bun';
import type { EventBus } from '../events/bus';
import type { Logger } from '../log';
import { pingServer } from '../core/net/server-list-ping';
import { HealthChecker, type HealthProbe } from './health-checker';
import { backendKey, type Backend, type LoadBalancerConfig, type LoadBalancerStatus } from './model';
import { encodeProxyV2, encodeProxyV2Local } from './proxy-protocol';
import { Relay } from './relay';
import { chooseBackend, type Candidate } from './strategy';

/** Timings and clock; tests shorten the first three and may drive the clock. */
export interface LoadBalancerTiming {
  /** Between health-check rounds (config: health_check_interval, seconds). */
  healthCheckIntervalMs: number;
  /** One health check's deadline (config: health_check_timeout). */
  healthCheckTimeoutMs: number;
  /** How often idle connections are looked for (default: a quarter of idle_timeout, 10 ms to 1 s). */
  idleSweepMs: number;
  /** Milliseconds; only differences are used (idle timeout). */
  now: () => number;
}

export interface LoadBalancerOptions {
  config: LoadBalancerConfig;
  /** Where players may go: in the controller, the READY proxy services. Asked per connection and per health round. */
  backends: () => readonly Backend[];
  bus: Pick<EventBus, 'publish'>;
  log?: Logger;
  /** The health check (default: a Server List Ping, after a PROXY LOCAL header when proxy_protocol is on). */
  probe?: HealthProbe;
  timing?: Partial<LoadBalancerTiming>;
}

/** A connect to a backend on behalf of one relay; at most two per relay (the first and one retry). */
interface Attempt {
  relay: Relay;
  key: string;
  /** The PROXY header for this client, written first once connected (a retry reuses it). */
  header: Uint8Array | undefined;
  retry: boolean;
  /** Connected, failed or given up: later events of the connect itself are ignored. */
  settled: boolean;
  /** The relay took this socket as its backend; only then do its events reach the relay. */
  adopted: boolean;
  socket: Socket<Attempt> | null;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type ClientSocket = Socket<Relay | undefined>;

/**
 * The TCP load balancer in front of the proxies: accepts players on `[loadbalancer]`
 * bind:port, picks a healthy proxy by the configured strategy and relays bytes both ways
 * (optionally after a PROXY protocol v2 header carrying the player's address).
 *
 * Limits: beyond `max_connections` open client connections a new one is closed at once and
 * counted as rejected; a backend that does not connect within `connection_timeout` is given
 * up for one other healthy backend, then the client is closed; a connection with no byte
 * either way for `idle_timeout` is closed; each direction buffers at most about
 * `buffer_size` bytes before it stops reading from its source (see Outbox).
 */
export class LoadBalancer {
  private listener: TCPSocketListener<Relay | undefined> | undefined;
  private readonly relays = new Set<Relay>();
  private readonly connections = new Map<string, number>();
  private readonly health: HealthChecker;
  private readonly timing: LoadBalancerTiming;
  private readonly backendHandlers: SocketHandler<Attempt>;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private turn = 0;
  private stopped = false;
  private total = 0;
  private rejected = 0;
  private failed = 0;

  constructor(private readonly options: LoadBalancerOptions) {
    const { config } = options;
    this.timing = {
      healthCheckIntervalMs: config.health_check_interval * 1000,
      healthCheckTimeoutMs: config.health_check_timeout,
      idleSweepMs: Math.min(1000, Math.max(10, Math.floor(config.idle_timeout / 4))),
      now: () => performance.now(),
      ...options.timing,
    };
    this.health = new HealthChecker({
      backends: options.backends,
      probe: options.probe ?? slpProbe(config.proxy_protocol),
      intervalMs: this.timing.healthCheckIntervalMs,
      timeoutMs: this.timing.healthCheckTimeoutMs,
      thresholds: { unhealthy: config.unhealthy_threshold, healthy: config.healthy_threshold },
      onChange: (backend, oldStatus, newStatus) => {
        this.options.log?.warn({ backend: backend.name, host: backend.host, port: backend.port, oldStatus, newStatus }, `load balancer: proxy ${backend.name} (${backendKey(backend)}) is ${newStatus}`);
        this.options.bus.publish('LOAD_BALANCER_BACKEND_HEALTH_CHANGED', { host: backend.host, port: backend.port, oldStatus, newStatus });
      },
    });
    this.backendHandlers = this.makeBackendHandlers();
  }

  /** Binds and starts accepting. Throws when the address cannot be bound (port taken, bad bind). */
  start(): void {
    if (this.listener) return;
    const { config } = this.options;
    this.listener = Bun.listen<Relay | undefined>({
      hostname: config.bind,
      port: config.port,
      allowHalfOpen: true,
      // Never share the port with another process: two balancers would split the players.
      exclusive: true,
      socket: {
        open: (socket) => this.accept(socket),
        data: (socket, chunk) => socket.data?.fromClient(chunk),
        drain: (socket) => socket.data?.clientDrained(),
        end: (socket) => socket.data?.clientEnded(),
        close: (socket) => socket.data?.clientClosedNow(),
        error: (socket, error) => {
          this.options.log?.debug({ err: error }, 'load balancer: client socket error');
          socket.data?.clientClosedNow();
        },
      },
    });
    this.stopped = false;
    this.health.start();
    this.sweeper = setInterval(() => this.sweepIdle(), this.timing.idleSweepMs);
    this.sweeper.unref();
    this.options.log?.info({ bind: config.bind, port: this.port, strategy: config.strategy }, `load balancer listening on ${config.bind}:${this.port} (${config.strategy})`);
    this.options.bus.publish('LOAD_BALANCER_STARTED', { bind: config.bind, port: this.port, strategy: config.strategy });
  }

  /** Closes the listener and every relayed connection. Safe to call twice. */
  stop(reason: string): void {
    if (!this.listener || this.stopped) return;
    this.stopped = true;
    this.health.stop();
    if (this.sweeper) clearInterval(this.sweeper);
    // Relays first: they close both of their sockets, the backend's included, which the listener knows nothing of.
    for (const relay of [...this.relays]) relay.abort();
    this.listener.stop(true);
    this.options.log?.info({ reason }, 'load balancer stopped');
    this.options.bus.publish('LOAD_BALANCER_STOPPED', { reason });
  }

  /** The bound port (0 before start). */
  get port(): number {
    return this.listener?.port ?? 0;
  }

  get activeConnections(): number {
    return this.relays.size;
  }

  get totalConnections(): number {
    return this.total;
  }

  get rejectedConnections(): number {
    return this.rejected;
  }

  /** Clients closed because no healthy backend could be connected. */
  get failedConnections(): number {
    return this.failed;
  }

  /** Bytes waiting in the balancer for a slow side, over every connection (bounded by about buffer_size per direction). */
  get bufferedBytes(): number {
    let sum = 0;
    for (const relay of this.relays) sum += relay.backlog;
    return sum;
  }

  /** One health-check round now (tests; the timer runs them on its own). */
  checkHealth(): Promise<void> {
    return this.health.checkNow();
  }

  status(): LoadBalancerStatus {
    const { config } = this.options;
    return {
      enabled: true,
      bind: config.bind,
      port: this.port,
      strategy: config.strategy,
      proxyProtocol: config.proxy_protocol,
      totalConnections: this.total,
      activeConnections: this.relays.size,
      rejectedConnections: this.rejected,
      backends: this.options.backends().map((b) => ({
        name: b.name,
        host: b.host,
        port: b.port,
        playerCount: b.playerCount,
        health: this.health.statusOf(b),
        connectionCount: this.connections.get(backendKey(b)) ?? 0,
      })),
    };
  }

  private accept(socket: ClientSocket): void {
    const { config } = this.options;
    if (this.stopped) return socket.terminate();
    if (this.relays.size >= config.max_connections) {
      this.rejected++;
      return socket.terminate();
    }
    this.total++;
    socket.setNoDelay(true);
    const relay = new Relay(socket, config.buffer_size, this.timing.now, (done) => this.finished(done));
    socket.data = relay;
    this.relays.add(relay);
    let header: Uint8Array | undefined;
    if (config.proxy_protocol) {
      try {
        header = encodeProxyV2({ sourceAddress: socket.remoteAddress, sourcePort: socket.remotePort, destinationAddress: socket.localAddress, destinationPort: socket.localPort });
      } catch (error) {
        this.options.log?.warn({ err: error }, 'load balancer: cannot encode the PROXY header for this client; closing it');
        return relay.abort();
      }
    }
    this.connect(relay, header, undefined);
  }

  /** Healthy backends with their connection counts, minus `exclude` (the one that just failed). */
  private candidates(exclude: string | undefined): Candidate[] {
    const out: Candidate[] = [];
    for (const backend of this.options.backends()) {
      const key = backendKey(backend);
      if (key === exclude || this.health.statusOf(backend) !== 'healthy') continue;
      out.push({ ...backend, connections: this.connections.get(key) ?? 0 });
    }
    return out;
  }

  private connect(relay: Relay, header: Uint8Array | undefined, failedKey: string | undefined): void {
    const backend = chooseBackend(this.options.config.strategy, this.candidates(failedKey), this.turn++);
    if (!backend) {
      this.failed++;
      this.options.log?.debug(failedKey ? `load balancer: ${failedKey} failed and no other healthy proxy is left` : 'load balancer: no healthy proxy');
      return relay.abort();
    }
    const key = backendKey(backend);
    this.assign(relay, key);
    const attempt: Attempt = { relay, key, header, retry: failedKey !== undefined, settled: false, adopted: false, socket: null, timer: undefined };
    const timeoutMs = this.options.config.connection_timeout;
    attempt.timer = setTimeout(() => this.attemptFailed(attempt, `no connection within ${timeoutMs} ms`), timeoutMs);
    attempt.timer.unref();
    Bun.connect<Attempt>({ hostname: backend.host, port: backend.port, data: attempt, allowHalfOpen: true, socket: this.backendHandlers }).catch((error: unknown) =>
      this.attemptFailed(attempt, error instanceof Error ? error.message : String(error)),
    );
  }

  private attemptFailed(attempt: Attempt, why: string): void {
    if (attempt.settled) return;
    attempt.settled = true;
    clearTimeout(attempt.timer);
    attempt.socket?.terminate();
    const { relay } = attempt;
    this.unassign(relay);
    if (relay.finished || relay.clientClosed) return;
    this.options.log?.debug({ backend: attempt.key, why }, 'load balancer: backend connect failed');
    if (attempt.retry) {
      this.failed++;
      return relay.abort();
    }
    this.connect(relay, attempt.header, attempt.key);
  }

  private makeBackendHandlers(): SocketHandler<Attempt> {
    return {
      open: (socket) => {
        const attempt = socket.data;
        attempt.socket = socket;
        // Given up already (timeout) or the client left while we connected.
        if (attempt.settled || attempt.relay.finished || attempt.relay.clientClosed) {
          if (!attempt.settled) this.attemptFailed(attempt, 'client gone');
          return socket.terminate();
        }
        attempt.settled = true;
        attempt.adopted = true;
        clearTimeout(attempt.timer);
        socket.setNoDelay(true);
        attempt.relay.backendOpened(socket, attempt.header);
        attempt.header = undefined;
      },
      data: (socket, chunk) => {
        if (socket.data.adopted) socket.data.relay.fromBackend(chunk);
      },
      drain: (socket) => {
        if (socket.data.adopted) socket.data.relay.backendDrained();
      },
      end: (socket) => {
        if (socket.data.adopted) socket.data.relay.backendEnded();
      },
      close: (socket) => this.backendGone(socket.data, 'closed before it opened'),
      error: (socket, error) => this.backendGone(socket.data, error.message),
      connectError: (socket, error) => this.attemptFailed(socket.data, error.message),
    };
  }

  private backendGone(attempt: Attempt, why: string): void {
    if (!attempt.settled) return this.attemptFailed(attempt, why);
    // Only the socket the relay adopted speaks for its backend; a late or abandoned one was terminated.
    if (attempt.adopted) attempt.relay.backendClosedNow();
  }

  private assign(relay: Relay, key: string): void {
    relay.assigned = key;
    this.connections.set(key, (this.connections.get(key) ?? 0) + 1);
  }

  private unassign(relay: Relay): void {
    const key = relay.assigned;
    if (key === null) return;
    relay.assigned = null;
    const left = (this.connections.get(key) ?? 1) - 1;
    if (left > 0) this.connections.set(key, left);
    else this.connections.delete(key);
  }

  private finished(relay: Relay): void {
    this.relays.delete(relay);
    this.unassign(relay);
  }

  private sweepIdle(): void {
    const cutoff = this.timing.now() - this.options.config.idle_timeout;
    for (const relay of this.relays) if (relay.lastActivity <= cutoff) relay.abort();
  }
}

/**
 * The default health check: a Server List Ping, which proves the proxy's Minecraft stack
 * answers, not only that its port accepts. A proxy that requires the PROXY header
 * (proxy_protocol on) gets the LOCAL form first, the format's own provision for health checks.
 */
function slpProbe(proxyProtocol: boolean): HealthProbe {
  const preamble = proxyProtocol ? encodeProxyV2Local() : undefined;
  return (backend, timeoutMs) =>
    pingServer(backend.host, backend.port, { timeoutMs, measureLatency: false, preamble }).then(
      () => true,
      () => false,
    );
}
