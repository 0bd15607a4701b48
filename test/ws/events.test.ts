import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startController, waitFor, type TestController } from '../support/controller';
import { closeCode, OPCODE, RawWebSocket } from '../support/raw-ws';

let c: TestController;
const wsUrl = (query = '') => `${c.url.replace('http', 'ws')}/api/events${query}`;

/** Opens a socket and resolves with its close code, or 'open' once it is open and stays so. */
function connect(url: string, headers?: Record<string, string>): Promise<{ ws: WebSocket; outcome: Promise<number> ; opened: Promise<void> }> {
  const ws = new WebSocket(url, headers ? { headers } : undefined);
  const outcome = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)));
  const opened = new Promise<void>((resolve) => ws.addEventListener('open', () => resolve()));
  return Promise.resolve({ ws, outcome, opened });
}

/** Bus listeners of the controller itself (audit, proxy sync), before any socket subscribes. */
let baseListeners = 0;

beforeAll(async () => {
  c = await startController({ heartbeat: { intervalMs: 100, timeoutMs: 300 } });
  baseListeners = c.controller.kernel.bus.listenerCount;
});
afterAll(() => c.stop());

describe('GET /api/events authentication', () => {
  test.each([
    ['no token', ''],
    ['a wrong token', '?token=wrong'],
    ['the cluster token', `?token=${'test-cluster-token-0123456789abcdef'}`],
  ])('%s is closed with 1008 at once', async (_name, query) => {
    const { outcome } = await connect(wsUrl(query));
    expect(await outcome).toBe(1008);
  });

  test('an expired JWT is closed with 1008', async () => {
    const { token } = await c.controller.kernel.auth.mintJwt('old', ['admin'], -60);
    const { outcome } = await connect(wsUrl(`?token=${token}`));
    expect(await outcome).toBe(1008);
  });

  test('a JWT without admin or a service scope is closed with 1008', async () => {
    const { token } = await c.controller.kernel.auth.mintJwt('files', ['files:read'], 600);
    const { outcome } = await connect(wsUrl(`?token=${token}`));
    expect(await outcome).toBe(1008);
  });

  test.each([
    ['master token in ?token=', () => `?token=${c.master}`],
    ['derived service token in ?token=', () => `?token=${c.service}`],
  ])('%s is accepted', async (_name, query) => {
    const { ws, opened } = await connect(wsUrl(query()));
    await opened;
    const frames: string[] = [];
    ws.addEventListener('message', (m) => frames.push(String(m.data)));
    c.controller.kernel.bus.publish('GROUP_CREATED', { group: 'Probe' });
    await waitFor(() => frames.length > 0, { what: 'an event frame' });
    ws.close();
  });

  test('the Authorization header is accepted, as is a service-scope JWT', async () => {
    const { token } = await c.controller.kernel.auth.mintJwt('bridge', ['services:read'], 600);
    for (const bearer of [c.master, token]) {
      const { ws, opened } = await connect(wsUrl(), { authorization: `Bearer ${bearer}` });
      await opened;
      ws.close();
    }
  });
});

describe('event frames', () => {
  test('carry type, ISO timestamp and stringified data, in publish order; actor stays out', async () => {
    const { ws, opened } = await connect(wsUrl(`?token=${c.master}`));
    await opened;
    const frames: { type: string; timestamp: string; data: Record<string, unknown> }[] = [];
    ws.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
    const bus = c.controller.kernel.bus;
    bus.publish('SERVICE_CRASHED', { service: 'Lobby-1', exitCode: 137, restartAttempt: 2 }, 'api:admin');
    bus.publish('MAINTENANCE_ENABLED', { scope: 'global', reason: undefined });
    bus.publish('CHAT_FORMAT_UPDATED', { format: '<{player}> {message}', enabled: true });
    await waitFor(() => frames.length >= 3, { what: 'three frames' });
    expect(frames.map((f) => f.type)).toEqual(['SERVICE_CRASHED', 'MAINTENANCE_ENABLED', 'CHAT_FORMAT_UPDATED']);
    expect(frames[0]!.data).toEqual({ service: 'Lobby-1', exitCode: '137', restartAttempt: '2' });
    expect(frames[1]!.data).toEqual({ scope: 'global' });
    expect(frames[2]!.data).toEqual({ format: '<{player}> {message}', enabled: 'true' });
    expect(new Date(frames[0]!.timestamp).toISOString()).toBe(frames[0]!.timestamp);
    expect(Object.keys(frames[0]!).sort()).toEqual(['data', 'timestamp', 'type']);
    ws.close();
  });

  test('a subscriber that closes is unsubscribed, and sockets never add bus listeners', async () => {
    await waitFor(() => c.controller.eventSubscribers === 0, { what: 'earlier sockets to unsubscribe' });
    const { ws, opened, outcome } = await connect(wsUrl(`?token=${c.master}`));
    await opened;
    await waitFor(() => c.controller.eventSubscribers === 1, { what: 'subscription' });
    // One bus listener fans out to every socket (native publish), however many subscribe.
    expect(c.controller.kernel.bus.listenerCount).toBe(baseListeners);
    ws.close();
    await outcome;
    await waitFor(() => c.controller.eventSubscribers === 0, { what: 'unsubscription' });
  });
});

describe('heartbeat (test timing: ping every 100 ms, timeout 300 ms)', () => {
  test('the server pings, and a peer that answers stays connected', async () => {
    const raw = await RawWebSocket.connect(wsUrl(`?token=${c.master}`));
    expect(raw.status).toBe(101);
    let answered = 0;
    await raw.until(() => {
      for (const frame of raw.frames.splice(0)) {
        if (frame.opcode === OPCODE.ping) {
          raw.send(OPCODE.pong, frame.payload);
          answered++;
        }
      }
      return answered >= 5;
    }, 'five pings');
    expect(raw.closed).toBe(false);
    raw.end();
  });

  test('a peer that never answers is dropped after the timeout', async () => {
    const raw = await RawWebSocket.connect(wsUrl(`?token=${c.master}`));
    await raw.until(() => raw.frames.some((f) => f.opcode === OPCODE.ping), 'a ping');
    await raw.until(() => raw.closed, 'the server to drop the silent peer');
  });

  test('frames over 64 KiB are refused', async () => {
    const raw = await RawWebSocket.connect(wsUrl(`?token=${c.master}`));
    raw.send(OPCODE.text, Buffer.alloc(64 * 1024 + 1, 0x61));
    await raw.until(() => raw.closed || raw.frames.some((f) => f.opcode === OPCODE.close), 'refusal of the big frame');
    // The server answers an oversized frame with close code 1009 (message too big) or drops it.
    const close = raw.frames.find((f) => f.opcode === OPCODE.close);
    if (close) expect(closeCode(close)).toBe(1009);
    else expect(raw.closed).toBe(true);
  });
});
