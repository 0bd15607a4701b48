/**
 * The balancer's byte relay over real loopback sockets: round trips, half-close, buffering
 * before the backend is up, the one retry, max_connections, idle_timeout and backpressure.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import type { Socket } from 'bun';
import { waitFor } from '../support/controller';
import { closedPort, closedSoon, connectClient, startBalancer, startPeer, type Peer, type TestBalancer } from './support';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});
function peer(mode: 'echo' | 'record' | 'paused' = 'echo'): Peer {
  const p = startPeer(mode);
  cleanup.push(() => p.stop());
  return p;
}
function balancer(...args: Parameters<typeof startBalancer>): TestBalancer {
  const b = startBalancer(...args);
  cleanup.push(() => b.stop());
  return b;
}

/** `size` bytes of a pattern that shows any reordering, loss or duplication. */
function pattern(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 7 + (i >> 12)) % 251;
  return out;
}

/** Writes `data` as fast as the socket takes it (respecting its backpressure); `blocked` once a write came back short. */
async function sender(port: number, data: Uint8Array): Promise<{ socket: Socket<undefined>; sent: () => number; blocked: () => boolean; received: Uint8Array[] }> {
  let offset = 0;
  let blocked = false;
  const received: Uint8Array[] = [];
  const push = (socket: Socket<undefined>) => {
    while (offset < data.length) {
      const written = socket.write(data.subarray(offset, Math.min(data.length, offset + 256 * 1024)));
      if (written <= 0) {
        blocked = true;
        return;
      }
      offset += written;
      if (written < Math.min(256 * 1024, data.length - offset + written)) {
        blocked = true;
        return;
      }
    }
  };
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      open: (s) => push(s),
      drain: (s) => push(s),
      data: (_s, chunk) => void received.push(chunk),
    },
  });
  push(socket);
  return { socket, sent: () => offset, blocked: () => blocked, received };
}

describe('relaying', () => {
  test('bytes go both ways; counters and the per-backend connection count follow', async () => {
    const echo = peer('echo');
    const b = balancer(() => [echo.backend('Proxy-1', 3)]);
    expect(b.events.map((e) => [e.type, e.data])).toEqual([['LOAD_BALANCER_STARTED', { bind: '127.0.0.1', port: String(b.port), strategy: 'least-players' }]]);
    const client = await connectClient(b.port);
    client.socket.write('ping 1');
    await waitFor(() => client.text === 'ping 1', { what: 'the echo' });
    client.socket.write(' ping 2');
    await waitFor(() => client.text === 'ping 1 ping 2', { what: 'the second echo' });
    expect(b.lb.status()).toMatchObject({
      enabled: true, bind: '127.0.0.1', port: b.port, strategy: 'least-players', proxyProtocol: false,
      totalConnections: 1, activeConnections: 1, rejectedConnections: 0,
      backends: [{ name: 'Proxy-1', host: '127.0.0.1', port: echo.port, playerCount: 3, health: 'healthy', connectionCount: 1 }],
    });
    client.socket.end();
    await waitFor(() => b.lb.activeConnections === 0, { what: 'the relay to finish' });
    await waitFor(() => echo.connections[0]?.closed, { what: 'the backend side closed' });
    expect(b.lb.status().backends[0]!.connectionCount).toBe(0);
    expect(b.lb.totalConnections).toBe(1);
  });

  test('half-close: the client FIN reaches the backend after its bytes, the reply still comes back, then both close', async () => {
    const echo = peer('echo');
    const b = balancer(() => [echo.backend('Proxy-1')]);
    const client = await connectClient(b.port);
    client.socket.write('last words');
    client.socket.shutdown();
    await closedSoon(client);
    expect(client.text).toBe('last words');
    await waitFor(() => b.lb.activeConnections === 0, { what: 'the relay to finish' });
  });

  test('client bytes sent before the backend is up wait and go out in order (across a retry)', async () => {
    const echo = peer('echo');
    const refused = closedPort();
    // least-players picks the refusing backend first (0 players), then retries on the other.
    const b = balancer(() => [
      { name: 'Dead', host: '127.0.0.1', port: refused, playerCount: 0 },
      echo.backend('Live', 10),
    ]);
    const client = await connectClient(b.port);
    for (const part of ['one ', 'two ', 'three ', 'four']) client.socket.write(part);
    await waitFor(() => client.text === 'one two three four', { what: 'the echo of all four parts' });
    expect(b.lb.failedConnections).toBe(0);
    expect(b.lb.status().backends.map((x) => [x.name, x.connectionCount])).toEqual([['Dead', 0], ['Live', 1]]);
    client.socket.end();
  });

  test('when the retry fails too, the client is closed and counted as failed', async () => {
    const b = balancer(() => [
      { name: 'Dead-1', host: '127.0.0.1', port: closedPort(), playerCount: 0 },
      { name: 'Dead-2', host: '127.0.0.1', port: closedPort(), playerCount: 0 },
    ]);
    const client = await connectClient(b.port);
    await closedSoon(client);
    expect(b.lb.failedConnections).toBe(1);
    expect(b.lb.activeConnections).toBe(0);
    expect(b.lb.status().backends.every((x) => x.connectionCount === 0)).toBe(true);
  });

  test('no backend at all: the client is closed at once', async () => {
    const b = balancer(() => []);
    const client = await connectClient(b.port);
    await closedSoon(client);
    expect(b.lb.failedConnections).toBe(1);
  });

  test('round-robin spreads clients over the backends in turn', async () => {
    const p1 = peer('echo');
    const p2 = peer('echo');
    const b = balancer(() => [p1.backend('A', 0), p2.backend('B', 50)], { strategy: 'round-robin' });
    const clients = [];
    for (let i = 0; i < 4; i++) {
      const client = await connectClient(b.port);
      client.socket.write('x');
      await waitFor(() => client.text === 'x', { what: `client ${i} echoed` });
      clients.push(client);
    }
    expect(p1.connections.length).toBe(2);
    expect(p2.connections.length).toBe(2);
    for (const client of clients) client.socket.end();
  });

  test('least-players: ties go to the backend with fewer balancer connections', async () => {
    const p1 = peer('echo');
    const p2 = peer('echo');
    const b = balancer(() => [p1.backend('A', 4), p2.backend('B', 4)]);
    const first = await connectClient(b.port);
    first.socket.write('x');
    await waitFor(() => first.text === 'x', { what: 'the first client echoed' });
    const second = await connectClient(b.port);
    second.socket.write('y');
    await waitFor(() => second.text === 'y', { what: 'the second client echoed' });
    expect([p1.connections.length, p2.connections.length]).toEqual([1, 1]);
    first.socket.end();
    second.socket.end();
  });
});

describe('limits', () => {
  test('max_connections: one more client is closed at once and counted as rejected', async () => {
    const echo = peer('echo');
    const b = balancer(() => [echo.backend('Proxy-1')], { max_connections: 2 });
    const held = [await connectClient(b.port), await connectClient(b.port)];
    await waitFor(() => echo.connections.length === 2, { what: 'two relays up' });
    const extra = await connectClient(b.port);
    await closedSoon(extra);
    expect(b.lb.rejectedConnections).toBe(1);
    expect(b.lb.totalConnections).toBe(2);
    expect(b.lb.activeConnections).toBe(2);
    expect(echo.connections.length).toBe(2);
    // the held ones still work
    held[0]!.socket.write('still here');
    await waitFor(() => held[0]!.text === 'still here', { what: 'a held client echoed' });
    // and once one leaves, a new client gets in
    held[1]!.socket.end();
    await waitFor(() => b.lb.activeConnections === 1, { what: 'one relay finished' });
    const next = await connectClient(b.port);
    next.socket.write('in');
    await waitFor(() => next.text === 'in', { what: 'the next client echoed' });
    expect(b.lb.rejectedConnections).toBe(1);
    held[0]!.socket.end();
    next.socket.end();
  });

  test('idle_timeout: a connection with no bytes either way is closed on both sides', async () => {
    const echo = peer('echo');
    const b = balancer(() => [echo.backend('Proxy-1')], { idle_timeout: 150 });
    const client = await connectClient(b.port);
    client.socket.write('hi');
    await waitFor(() => client.text === 'hi', { what: 'the echo' });
    const quietSince = performance.now();
    await closedSoon(client, 'the idle connection closed', 3000);
    expect(performance.now() - quietSince).toBeGreaterThanOrEqual(140);
    await waitFor(() => echo.connections[0]?.closed, { what: 'the backend side closed' });
    expect(b.lb.activeConnections).toBe(0);
  });

  test('a backend that stops reading: the balancer holds about buffer_size, the client is paused, nothing is lost', async () => {
    const stuck = peer('paused');
    const bufferSize = 16 * 1024;
    const b = balancer(() => [stuck.backend('Proxy-1')], { buffer_size: bufferSize });
    const data = pattern(48 * 1024 * 1024);
    const s = await sender(b.port, data);
    let peak = 0;
    await waitFor(
      () => {
        peak = Math.max(peak, b.lb.bufferedBytes);
        return s.blocked() && b.lb.bufferedBytes >= bufferSize;
      },
      { timeoutMs: 10_000, what: 'the sender blocked and the balancer at its high-water mark' },
    );
    expect(s.sent()).toBeLessThan(data.length);
    // highWater plus one read (Bun reads up to 512 KiB at once): nothing like the megabytes the sender has queued.
    expect(peak).toBeLessThanOrEqual(bufferSize + 512 * 1024);
    for (const conn of stuck.connections) conn.socket.resume();
    const conn = stuck.connections[0]!;
    await waitFor(
      () => {
        peak = Math.max(peak, b.lb.bufferedBytes);
        return conn.bytes === data.length;
      },
      { timeoutMs: 15_000, what: 'every byte at the backend' },
    );
    expect(peak).toBeLessThanOrEqual(bufferSize + 512 * 1024);
    expect(Buffer.compare(Buffer.concat(conn.received), Buffer.from(data))).toBe(0);
    s.socket.end();
  });

  test('a client that stops reading: the backend is paused in turn, nothing is lost once it reads again', async () => {
    const echo = peer('echo');
    const bufferSize = 16 * 1024;
    const b = balancer(() => [echo.backend('Proxy-1')], { buffer_size: bufferSize });
    const data = pattern(32 * 1024 * 1024);
    const s = await sender(b.port, data);
    s.socket.pause();
    let peak = 0;
    await waitFor(
      () => {
        peak = Math.max(peak, b.lb.bufferedBytes);
        return b.lb.bufferedBytes >= bufferSize;
      },
      { timeoutMs: 10_000, what: 'the balancer at its high-water mark' },
    );
    s.socket.resume();
    await waitFor(
      () => {
        peak = Math.max(peak, b.lb.bufferedBytes);
        return s.received.reduce((n, c) => n + c.length, 0) === data.length;
      },
      { timeoutMs: 15_000, what: 'every byte echoed back' },
    );
    expect(peak).toBeLessThanOrEqual(2 * (bufferSize + 512 * 1024));
    expect(Buffer.compare(Buffer.concat(s.received), Buffer.from(data))).toBe(0);
    s.socket.end();
  });
});

describe('health and lifecycle', () => {
  test('an unhealthy backend gets no new clients; the change is published once each way', async () => {
    const p1 = peer('echo');
    const p2 = peer('echo');
    const up = new Map([[p1.port, true], [p2.port, true]]);
    const b = balancer(() => [p1.backend('A', 0), p2.backend('B', 9)], { unhealthy_threshold: 2, healthy_threshold: 1 }, {
      probe: async (backend) => up.get(backend.port) ?? false,
    });
    up.set(p1.port, false);
    await b.lb.checkHealth();
    await b.lb.checkHealth();
    const changes = () => b.events.filter((e) => e.type === 'LOAD_BALANCER_BACKEND_HEALTH_CHANGED').map((e) => e.data);
    expect(changes()).toEqual([{ host: '127.0.0.1', port: String(p1.port), oldStatus: 'healthy', newStatus: 'unhealthy' }]);
    // A has fewer players but is unhealthy: the client goes to B
    const client = await connectClient(b.port);
    client.socket.write('x');
    await waitFor(() => client.text === 'x', { what: 'the echo' });
    expect([p1.connections.length, p2.connections.length]).toEqual([0, 1]);
    expect(b.lb.status().backends.map((x) => x.health)).toEqual(['unhealthy', 'healthy']);
    up.set(p1.port, true);
    await b.lb.checkHealth();
    expect(changes()[1]).toEqual({ host: '127.0.0.1', port: String(p1.port), oldStatus: 'unhealthy', newStatus: 'healthy' });
    client.socket.end();
  });

  test('stop closes every relayed connection and publishes LOAD_BALANCER_STOPPED', async () => {
    const echo = peer('echo');
    const b = startBalancer(() => [echo.backend('Proxy-1')]);
    const client = await connectClient(b.port);
    client.socket.write('x');
    await waitFor(() => client.text === 'x', { what: 'the echo' });
    b.lb.stop('controller stopping');
    b.lb.stop('twice is harmless');
    await closedSoon(client);
    await waitFor(() => echo.connections[0]?.closed, { what: 'the backend side closed' });
    expect(b.events.filter((e) => e.type === 'LOAD_BALANCER_STOPPED').map((e) => e.data)).toEqual([{ reason: 'controller stopping' }]);
    expect(b.lb.activeConnections).toBe(0);
  });

  test('a port already taken: start throws and nothing is published', () => {
    const holder = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    cleanup.push(() => holder.stop(true));
    expect(() => startBalancer(() => [], { port: holder.port })).toThrow();
  });
});
