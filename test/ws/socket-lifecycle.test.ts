import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server, ServerWebSocket } from 'bun';
import { Heartbeat } from '../../src/ws/heartbeat';
import type { SocketHandle } from '../../src/ws/socket-auth';
import { socketLifecycle, type SocketBehaviour } from '../../src/ws/socket-lifecycle';
import { startController, waitFor, type TestController } from '../support/controller';

/**
 * The lifecycle the three API sockets share, on a real Bun WebSocket server with the
 * controller's real authenticator. Its credential check can be held open (gate), so frames are
 * sent while it runs, as clients do.
 */
let c: TestController;
let server: Server<unknown>;
let clock = 0;
const heartbeat = new Heartbeat({ intervalMs: 60_000, timeoutMs: 1000 }, () => clock);
let gate: Promise<void> = Promise.resolve();

interface Kept {
  id: string;
  received: unknown[];
}
const events: string[] = [];
let refuseAdmitted = false;

const behaviour: SocketBehaviour<Kept> = {
  spec: { path: '/test', auth: 'admin', summary: 'a test socket' },
  admitted(ws) {
    const id = (ws.data as { id: string }).id;
    events.push(`admitted ${id}`);
    if (refuseAdmitted) {
      ws.close(4000, 'not kept');
      return null;
    }
    return { id, received: [] };
  },
  message(state, message) {
    state.received.push(message);
  },
  closed(state) {
    events.push(`closed ${state.id}`);
  },
};
let endpoint: ReturnType<typeof socketLifecycle<Kept>>;
let next = 0;
/** Frames the server got, and the last open's work: what the tests wait for instead of time. */
let framesSeen = 0;
let closesSeen = 0;
let lastOpen: Promise<void> = Promise.resolve();

beforeAll(async () => {
  c = await startController();
  const auth = c.controller.kernel.auth;
  // The real authenticator; only its answer waits for the gate.
  const gated = {
    identifySocket: async (token: string | null | undefined, fromQuery?: boolean) => {
      await gate;
      return auth.identifySocket(token, fromQuery);
    },
    authorize: auth.authorize.bind(auth),
    watchSession: auth.watchSession.bind(auth),
  };
  endpoint = socketLifecycle(gated, heartbeat, behaviour);
  const handles = new WeakMap<ServerWebSocket<unknown>, SocketHandle>();
  const handleOf = (raw: ServerWebSocket<unknown>): SocketHandle => {
    let handle = handles.get(raw);
    if (!handle) {
      handle = { data: raw.data, raw, close: (code?: number, reason?: string) => raw.close(code, reason) };
      handles.set(raw, handle);
    }
    return handle;
  };
  server = Bun.serve({
    port: 0,
    fetch(request, srv) {
      const url = new URL(request.url);
      const headers = Object.fromEntries(request.headers.entries());
      const data = { id: `s${next++}`, params: {}, query: Object.fromEntries(url.searchParams), headers };
      return srv.upgrade(request, { data }) ? undefined : new Response('upgrade', { status: 426 });
    },
    websocket: {
      open: (raw) => {
        lastOpen = Promise.resolve(endpoint.open(handleOf(raw)));
      },
      message: (raw, message) => {
        framesSeen++;
        endpoint.message(handleOf(raw), String(message));
      },
      pong: (raw) => endpoint.pong?.(handleOf(raw)),
      close: (raw) => {
        closesSeen++;
        endpoint.close(handleOf(raw));
      },
    },
  });
});
afterAll(async () => {
  heartbeat.stop();
  server.stop(true);
  await c.stop();
});

const url = (token?: string): string => `ws://127.0.0.1:${server.port}/test${token ? `?token=${token}` : ''}`;
const closeOf = (ws: WebSocket): Promise<{ code: number; reason: string }> => new Promise((resolve) => ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })));
const opened = (ws: WebSocket): Promise<unknown> => new Promise((resolve) => ws.addEventListener('open', resolve));

function holdGate(): () => void {
  let release = (): void => {};
  gate = new Promise<void>((resolve) => (release = resolve));
  return release;
}

describe('socketLifecycle', () => {
  test('frames sent while the credential is checked reach the endpoint first, in order', async () => {
    events.length = 0;
    const release = holdGate();
    const ws = new WebSocket(url(c.master));
    await opened(ws);
    const before = framesSeen;
    ws.send('one');
    ws.send('two');
    await waitFor(() => framesSeen === before + 2, { what: 'two frames at the server' });
    release();
    await waitFor(() => [...endpoint.connections()].length === 1, { what: 'the socket kept' });
    ws.send('three');
    const kept = [...endpoint.connections()][0]!;
    await waitFor(() => kept.received.length === 3, { what: 'three frames' });
    expect(kept.received).toEqual(['one', 'two', 'three']);
    const closed = closeOf(ws);
    ws.close(1000);
    await closed;
    await waitFor(() => events.includes(`closed ${kept.id}`), { what: 'closed called' });
    expect([...endpoint.connections()]).toEqual([]);
  });

  test('a refused credential is closed with 1008; the endpoint never hears of it or of its frames', async () => {
    events.length = 0;
    const release = holdGate();
    const ws = new WebSocket(url(c.service));
    const closed = closeOf(ws);
    await opened(ws);
    const before = framesSeen;
    ws.send('dropped');
    await waitFor(() => framesSeen === before + 1, { what: 'the frame at the server' });
    release();
    expect((await closed).code).toBe(1008);
    expect(events).toEqual([]);
    expect([...endpoint.connections()]).toEqual([]);
  });

  test('a socket that goes while its credential is checked is never admitted', async () => {
    events.length = 0;
    const release = holdGate();
    const ws = new WebSocket(url(c.master));
    await opened(ws);
    const before = closesSeen;
    ws.close(1000);
    await waitFor(() => closesSeen === before + 1, { what: 'the close at the server' });
    release();
    await lastOpen;
    expect(events).toEqual([]);
  });

  test('an endpoint that does not keep an admitted socket closes it; closed is not called', async () => {
    events.length = 0;
    refuseAdmitted = true;
    try {
      const ws = new WebSocket(url(c.master));
      expect(await closeOf(ws)).toEqual({ code: 4000, reason: 'not kept' });
      expect(events).toHaveLength(1);
      expect(events[0]).toStartWith('admitted ');
    } finally {
      refuseAdmitted = false;
    }
  });

  test('an admitted socket is on the heartbeat: silent past the timeout, it is cut', async () => {
    const ws = new WebSocket(url(c.master));
    const closed = closeOf(ws);
    await waitFor(() => [...endpoint.connections()].length === 1, { what: 'the socket kept' });
    clock += 5000;
    heartbeat.tick();
    expect((await closed).code).not.toBe(1000);
    await waitFor(() => [...endpoint.connections()].length === 0, { what: 'the socket let go' });
  });
});
