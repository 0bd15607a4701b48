/**
 * The two ends of the load-balancer benchmark (lb.bench.ts), each its own process so the
 * balancer under test (in the bench process) does not share a JS thread with them.
 * Not a bench itself (run.ts only runs *.bench.ts) and never loaded by `bun test`.
 *
 *   bun lb-peer.ts server
 *       prints `listening <port>`; per connection the first byte picks the mode:
 *       'T' + u64 size: a sink that answers 'A' once `size` bytes have arrived;
 *       'E': an echo (respecting backpressure).
 *   bun lb-peer.ts balancer <server port>
 *       the load balancer under test (src/, default [loadbalancer] settings on 127.0.0.1:0,
 *       the server as its one backend); prints `listening <port>`
 *   bun lb-peer.ts client <port> throughput <bytes>
 *   bun lb-peer.ts client <port> rtt <count> <size>         one connection, sequential round trips
 *   bun lb-peer.ts client <port> rps <connections> <count> <size>   concurrent sequential round trips
 *   bun lb-peer.ts client <port> connect <count>            connect, 1-byte round trip, close
 *       each prints one JSON line: {seconds} or {samplesUs}.
 */
import type { Socket } from 'bun';
import { defaultConfig } from '../../src/config/schema';
import { EventBus } from '../../src/events/bus';
import { LoadBalancer } from '../../src/loadbalancer/load-balancer';

const [role, ...args] = Bun.argv.slice(2);

interface ServerConn {
  mode: 'T' | 'E' | null;
  header: number[];
  expected: number;
  received: number;
  pending: Uint8Array[];
}

function server(): void {
  const flush = (socket: Socket<ServerConn>) => {
    const queue = socket.data.pending;
    while (queue.length > 0) {
      const chunk = queue[0]!;
      const written = socket.write(chunk);
      if (written < 0) return;
      if (written < chunk.length) {
        queue[0] = chunk.subarray(written);
        return;
      }
      queue.shift();
    }
  };
  const listener = Bun.listen<ServerConn>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.setNoDelay(true);
        socket.data = { mode: null, header: [], expected: 0, received: 0, pending: [] };
      },
      data(socket, chunk) {
        const conn = socket.data;
        let body: Uint8Array = chunk;
        if (conn.mode === null) {
          conn.mode = chunk[0] === 0x54 ? 'T' : 'E';
          body = chunk.subarray(1);
        }
        if (conn.mode === 'E') {
          if (body.length === 0) return;
          conn.pending.push(body);
          if (conn.pending.length === 1) flush(socket);
          return;
        }
        let at = 0;
        while (conn.header.length < 8 && at < body.length) conn.header.push(body[at++]!);
        if (conn.header.length === 8 && conn.expected === 0) conn.expected = Number(new DataView(Uint8Array.from(conn.header).buffer).getBigUint64(0));
        conn.received += body.length - at;
        if (conn.expected > 0 && conn.received >= conn.expected) socket.write('A');
      },
      drain: (socket) => flush(socket),
    },
  });
  console.log(`listening ${listener.port}`);
}

function connect(port: number, handlers: { data: (socket: Socket<undefined>, chunk: Uint8Array) => void; drain?: (socket: Socket<undefined>) => void }): Promise<Socket<undefined>> {
  return Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      open: (socket) => void socket.setNoDelay(true),
      data: handlers.data,
      drain: handlers.drain,
    },
  });
}

async function throughput(port: number, bytes: number): Promise<void> {
  const block = crypto.getRandomValues(new Uint8Array(65536));
  const source = new Uint8Array(4 * 1024 * 1024);
  for (let i = 0; i < source.length; i += block.length) source.set(block, i);
  const header = new Uint8Array(9);
  header[0] = 0x54;
  new DataView(header.buffer).setBigUint64(1, BigInt(bytes));
  let sent = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const push = (socket: Socket<undefined>) => {
    while (sent < bytes) {
      const at = sent % source.length;
      const length = Math.min(1024 * 1024, bytes - sent, source.length - at);
      const written = socket.write(source.subarray(at, at + length));
      if (written > 0) sent += written;
      if (written < length) return;
    }
  };
  const socket = await connect(port, { data: () => resolveDone(), drain: (s) => push(s) });
  const started = performance.now();
  socket.write(header);
  push(socket);
  await done;
  const seconds = (performance.now() - started) / 1000;
  socket.end();
  console.log(JSON.stringify({ seconds }));
}

/** `count` sequential round trips of `size` bytes on one echo connection; microseconds each. */
async function roundTrips(port: number, count: number, size: number): Promise<number[]> {
  const message = new Uint8Array(size).fill(0x61);
  const samples: number[] = [];
  let got = 0;
  let sentAt = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const socket = await connect(port, {
    data: (s, chunk) => {
      got += chunk.length;
      if (got < size) return;
      samples.push((performance.now() - sentAt) * 1000);
      got -= size;
      if (samples.length === count) return resolveDone();
      sentAt = performance.now();
      s.write(message);
    },
  });
  socket.write('E');
  sentAt = performance.now();
  socket.write(message);
  await done;
  socket.end();
  return samples;
}

async function connects(port: number, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    const socket = await connect(port, { data: () => resolveDone() });
    socket.write('Ex');
    await done;
    samples.push((performance.now() - started) * 1000);
    socket.end();
  }
  return samples;
}

async function client(): Promise<void> {
  const [portText, test, ...rest] = args;
  const port = Number(portText);
  const n = rest.map(Number);
  switch (test) {
    case 'throughput':
      return throughput(port, n[0]!);
    case 'rtt':
      console.log(JSON.stringify({ samplesUs: await roundTrips(port, n[0]!, n[1]!) }));
      return;
    case 'rps': {
      const started = performance.now();
      await Promise.all(Array.from({ length: n[0]! }, () => roundTrips(port, n[1]!, n[2]!)));
      console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000 }));
      return;
    }
    case 'connect':
      console.log(JSON.stringify({ samplesUs: await connects(port, n[0]!) }));
      return;
    default:
      throw new Error(`unknown client test ${test}`);
  }
}

function balancer(serverPort: number): void {
  const lb = new LoadBalancer({
    config: { ...defaultConfig().loadbalancer, enabled: true, bind: '127.0.0.1', port: 0 },
    backends: () => [{ name: 'Proxy-1', host: '127.0.0.1', port: serverPort, playerCount: 0 }],
    bus: new EventBus(),
    timing: { healthCheckIntervalMs: 3_600_000 },
  });
  lb.start();
  console.log(`listening ${lb.port}`);
}

if (role === 'server') server();
else if (role === 'balancer') balancer(Number(args[0]));
else if (role === 'client') {
  await client();
  process.exit(0);
} else {
  console.error('usage: bun lb-peer.ts server | balancer <server port> | client <port> <test> ...');
  process.exit(2);
}
