/**
 * RemoteConsole against a real controller: a dropped connection is retried with backoff and
 * the console works again afterwards; a command in flight when it drops ends, it does not hang.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { nextBackoff, RemoteConsole, socketUrl } from '../../src/cli/remote-transport';
import type { OutputLine } from '../../src/core/commands/command';
import { startController, waitFor, type TestController } from '../support/controller';

describe('backoff', () => {
  test.each([
    [0, 1000],
    [1000, 2000],
    [2000, 4000],
    [16_000, 30_000],
    [30_000, 30_000],
  ])('after %d ms the next wait is %d ms', (previous, next) => {
    expect(nextBackoff(previous)).toBe(next);
  });

  test.each([
    ['http://10.0.0.5:8080', 'ws://10.0.0.5:8080/api/console/stream'],
    ['https://svc.example.com/', 'wss://svc.example.com/api/console/stream'],
    ['https://example.com/svc?x=1', 'wss://example.com/svc/api/console/stream'],
  ])('%s → %s', (base, socket) => {
    expect(socketUrl(base)).toBe(socket);
  });
});

describe('RemoteConsole across a controller restart', () => {
  let c: TestController;
  const client = { username: 'test', hostname: 'here', os: 'test' };
  beforeAll(async () => {
    c = await startController();
  });
  afterAll(() => c.stop());

  /** Stops the controller and starts a fresh one on the same port. */
  async function restart(): Promise<void> {
    const port = Number(new URL(c.url).port);
    await c.stop();
    c = await startController({ port });
  }

  test('the interactive console reconnects by itself and runs commands again; -c mode gives up at once', async () => {
    const notices: string[] = [];
    const interactive = new RemoteConsole({ url: c.url, token: c.master, client, reconnect: true });
    interactive.onNotice((text) => notices.push(text));
    let fatal = '';
    const once = new RemoteConsole({ url: c.url, token: c.master, client, reconnect: false, onFatal: (m) => (fatal = m) });
    await interactive.connect();
    await once.connect();
    expect((await interactive.execute('version', () => undefined)).success).toBe(true);
    // a request still waiting when the connection goes settles instead of hanging
    const pending = once.complete('sta', 3);

    await restart();
    expect(await pending).toBeArray();
    await waitFor(() => notices.some((n) => /^connection lost \(\d+.*\); reconnecting in 1 s$/.test(n)), { what: 'the lost notice' });
    await waitFor(() => notices.includes(`reconnected to ${c.url}`), { timeoutMs: 5000, what: 'the reconnect' });
    const lines: OutputLine[] = [];
    expect((await interactive.execute('version', (l) => lines.push(l))).success).toBe(true);
    expect(lines[0]).toEqual({ kind: 'header', text: 'svc 0.13.0' });
    expect(c.controller.consoleSessions).toBe(1);

    await waitFor(() => fatal !== '', { what: 'the fatal notice of the one-shot console' });
    expect(fatal).toMatch(/^the controller closed the connection/);
    const refused: OutputLine[] = [];
    expect((await once.execute('status', (l) => refused.push(l))).success).toBe(false);
    expect(refused).toEqual([{ kind: 'error', text: 'not connected to the controller' }]);
    interactive.close();
  }, 20_000);
});

describe('RemoteConsole reading output frames', () => {
  const client = { username: 'test', hostname: 'here', os: 'test' };

  test('connects with an admin JWT and prints each line with its type', async () => {
    const c = await startController();
    try {
      const jwt = (await c.controller.kernel.auth.mintJwt('cli-jwt', ['admin'], 3600)).token;
      const remote = new RemoteConsole({ url: c.url, token: jwt, client, reconnect: false });
      await remote.connect();
      const lines: OutputLine[] = [];
      expect((await remote.execute('version', (l) => lines.push(l))).success).toBe(true);
      expect(lines[0]).toEqual({ kind: 'header', text: 'svc 0.13.0' });
      const failed: OutputLine[] = [];
      expect((await remote.execute('info Nope', (l) => failed.push(l))).success).toBe(false);
      expect(failed.at(-1)).toEqual({ kind: 'error', text: 'service "Nope" does not exist; `list` shows the services' });
      remote.close();
    } finally {
      await c.stop();
    }
  });

  test('an output frame without its line is skipped; a line type this build does not know still arrives', async () => {
    // A stand-in controller that answers the connect probe, then one command with odd frames.
    const server = Bun.serve({
      port: 0,
      fetch: (request, srv) => (srv.upgrade(request) ? undefined : new Response('no', { status: 400 })),
      websocket: {
        message(ws, data) {
          const frame = JSON.parse(String(data)) as { type: string; id?: string };
          if (frame.type === 'complete') ws.send(JSON.stringify({ type: 'completions', id: frame.id, candidates: [] }));
          if (frame.type !== 'execute') return;
          ws.send(JSON.stringify({ type: 'output', id: frame.id, kind: 'info', text: 'flat, without a line' }));
          ws.send(JSON.stringify({ type: 'output', id: frame.id, line: { type: 'sparkle', text: 'from a newer controller' } }));
          ws.send(JSON.stringify({ type: 'output', id: frame.id, line: { type: 'success', text: 'done' } }));
          ws.send(JSON.stringify({ type: 'output_end', id: frame.id, success: true }));
        },
      },
    });
    try {
      const remote = new RemoteConsole({ url: `http://127.0.0.1:${server.port}`, token: 'x', client, reconnect: false });
      await remote.connect();
      const lines: OutputLine[] = [];
      expect((await remote.execute('anything', (l) => lines.push(l))).success).toBe(true);
      expect(lines).toEqual([
        { kind: 'sparkle' as OutputLine['kind'], text: 'from a newer controller' },
        { kind: 'success', text: 'done' },
      ]);
      remote.close();
    } finally {
      server.stop(true);
    }
  });
});
