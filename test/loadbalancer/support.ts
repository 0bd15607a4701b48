/**
 * Helpers of the load-balancer tests: a balancer on port 0 over real loopback sockets, TCP
 * peers that echo or record, and a client that collects what comes back.
 */
import type { Socket, TCPSocketListener } from 'bun';
import { defaultConfig } from '../../src/config/schema';
import { EventBus } from '../../src/events/bus';
import type { SvcEvent } from '../../src/events/catalogue';
import { LoadBalancer, type LoadBalancerOptions } from '../../src/loadbalancer/load-balancer';
import type { Backend, LoadBalancerConfig } from '../../src/loadbalancer/model';
import { waitFor } from '../support/controller';

export interface TestBalancer {
  lb: LoadBalancer;
  bus: EventBus;
  events: SvcEvent[];
  port: number;
  stop(): void;
}

/** A started balancer on 127.0.0.1:0; health checks every hour unless `timing` says otherwise. */
export function startBalancer(
  backends: () => readonly Backend[],
  config: Partial<LoadBalancerConfig> = {},
  extra: Partial<Omit<LoadBalancerOptions, 'config' | 'backends' | 'bus'>> = {},
): TestBalancer {
  const bus = new EventBus();
  const events: SvcEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const lb = new LoadBalancer({
    config: { ...defaultConfig().loadbalancer, enabled: true, bind: '127.0.0.1', port: 0, ...config },
    backends,
    bus,
    ...extra,
    timing: { healthCheckIntervalMs: 3_600_000, ...extra.timing },
  });
  lb.start();
  return { lb, bus, events, port: lb.port, stop: () => lb.stop('test finished') };
}

export interface PeerConnection {
  socket: Socket<PeerConnection>;
  received: Uint8Array[];
  readonly bytes: number;
  closed: boolean;
}

export interface Peer {
  port: number;
  connections: PeerConnection[];
  backend(name: string, playerCount?: number): Backend;
  stop(): void;
}

/**
 * A TCP server on 127.0.0.1:0. `mode`: `echo` writes back what it reads (with backpressure),
 * `record` only keeps it, `paused` accepts and never reads (a consumer that is stuck).
 */
export function startPeer(mode: 'echo' | 'record' | 'paused' = 'echo'): Peer {
  const connections: PeerConnection[] = [];
  const listener: TCPSocketListener<PeerConnection> = Bun.listen<PeerConnection>({
    hostname: '127.0.0.1',
    port: 0,
    allowHalfOpen: true,
    socket: {
      open(socket) {
        const conn: PeerConnection = {
          socket,
          received: [],
          closed: false,
          get bytes() {
            return this.received.reduce((n, c) => n + c.length, 0);
          },
        };
        socket.data = conn;
        connections.push(conn);
        if (mode === 'paused') socket.pause();
      },
      data(socket, chunk) {
        socket.data.received.push(chunk);
        if (mode === 'echo') echo(socket, chunk);
      },
      drain(socket) {
        flushEcho(socket);
      },
      end(socket) {
        socket.end();
      },
      close(socket) {
        socket.data.closed = true;
      },
    },
  });
  return {
    port: listener.port,
    connections,
    backend: (name, playerCount = 0) => ({ name, host: '127.0.0.1', port: listener.port, playerCount }),
    stop: () => listener.stop(true),
  };
}

const pendingEcho = new WeakMap<object, Uint8Array[]>();

function echo(socket: Socket<PeerConnection>, chunk: Uint8Array): void {
  const queue = pendingEcho.get(socket) ?? [];
  pendingEcho.set(socket, queue);
  queue.push(chunk);
  flushEcho(socket);
}

function flushEcho(socket: Socket<PeerConnection>): void {
  const queue = pendingEcho.get(socket);
  while (queue && queue.length > 0) {
    const chunk = queue[0]!;
    const written = socket.write(chunk);
    if (written < 0) return;
    if (written < chunk.length) {
      queue[0] = chunk.subarray(written);
      return;
    }
    queue.shift();
  }
}

export interface TestClient {
  socket: Socket<undefined>;
  received: Uint8Array[];
  readonly text: string;
  readonly bytes: number;
  closed: boolean;
  /** Set when the peer sent FIN. */
  ended: boolean;
}

/** A client connected to 127.0.0.1:port that records what it reads. */
export async function connectClient(port: number, options: { paused?: boolean } = {}): Promise<TestClient> {
  const client: TestClient = {
    socket: undefined as unknown as Socket<undefined>,
    received: [],
    closed: false,
    ended: false,
    get text() {
      return Buffer.concat(this.received).toString();
    },
    get bytes() {
      return this.received.reduce((n, c) => n + c.length, 0);
    },
  };
  client.socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    allowHalfOpen: true,
    socket: {
      open(socket) {
        if (options.paused) socket.pause();
      },
      data(_socket, chunk) {
        client.received.push(chunk);
      },
      end() {
        client.ended = true;
      },
      close() {
        client.closed = true;
      },
    },
  });
  return client;
}

/** Waits until the client has been closed by the other side. */
export function closedSoon(client: { closed: boolean }, what = 'the connection closed', timeoutMs = 3000): Promise<boolean> {
  return waitFor(() => client.closed, { timeoutMs, what });
}

/** A port nothing listens on (bound, then released). */
export function closedPort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}
