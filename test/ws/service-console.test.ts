import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { readJson, startController, waitFor, type TestController } from '../support/controller';
import type { Heartbeat } from '../../src/ws/heartbeat';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
let c: TestController;

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000 } });
  const group = { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0 };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await c.api('/api/services/Lobby-1'))).state === 'READY', { what: 'READY' });
});
afterAll(() => c.stop());

const consoleUrl = (name: string, token?: string) => `${c.url.replace('http', 'ws')}/api/services/${name}/console${token ? `?token=${token}` : ''}`;

function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.addEventListener('close', (e) => resolve(e.code)));
}

describe('GET /api/services/{name}/console', () => {
  test('admin only: the derived service token and no token are closed with 1008', async () => {
    expect(await closeCode(new WebSocket(consoleUrl('Lobby-1', c.service)))).toBe(1008);
    expect(await closeCode(new WebSocket(consoleUrl('Lobby-1')))).toBe(1008);
  });

  test('an unknown service is closed with 1003', async () => {
    expect(await closeCode(new WebSocket(consoleUrl('Nope-1', c.master)))).toBe(1003);
  });

  test('stdout lines out, trimmed frames in; blank frames ignored', async () => {
    const ws = new WebSocket(consoleUrl('Lobby-1'), { headers: { authorization: `Bearer ${c.master}` } });
    const lines: string[] = [];
    ws.addEventListener('message', (m) => lines.push(String(m.data)));
    await new Promise((resolve) => ws.addEventListener('open', resolve));
    await waitFor(() => c.controller.kernel.manager.handleOf('Lobby-1') !== null, { what: 'handle' });
    ws.send('   ');
    ws.send('  say from the socket  ');
    await waitFor(() => lines.some((l) => l.endsWith('[Server] from the socket')), { what: 'the echoed say' });
    expect(lines.every((l) => !l.includes('\n'))).toBe(true);
    await c.api('/api/services/Lobby-1/exec', { method: 'POST', json: { command: 'list' } });
    await waitFor(() => lines.some((l) => l.includes('players online')), { what: 'output of an API exec' });
    const closed = closeCode(ws);
    expect((await c.api('/api/services/Lobby-1/stop', { method: 'POST' })).status).toBe(200);
    expect(await closed).toBe(1000);
  });

  test('a line typed before an admin JWT was verified still reaches stdin (it used to be dropped)', async () => {
    expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
    const name = await waitFor(async () => {
      const list = (await readJson(await c.api('/api/services?group=Lobby&state=READY'))).services as { name: string }[];
      return list[0]?.name;
    }, { what: 'a READY Lobby instance' });
    const auth = c.controller.kernel.auth;
    const jwt = (await auth.mintJwt('early-typist', ['admin'], 3600)).token;
    const heartbeat = (c.controller as unknown as { heartbeat: Heartbeat }).heartbeat;
    const identify = auth.identify.bind(auth);
    const alive = heartbeat.alive.bind(heartbeat);
    let release = () => {};
    const lineReceived = new Promise<void>((resolve) => (release = resolve));
    // A frame counts as a sign of life first: once one arrived, the held verification goes on.
    heartbeat.alive = (id) => {
      alive(id);
      release();
    };
    // The HTTP guard identifies the upgrade request first; the socket's own check comes second and is held.
    let checks = 0;
    auth.identify = (token) => (token !== jwt || ++checks === 1 ? identify(token) : lineReceived.then(() => identify(token)));
    try {
      const ws = new WebSocket(consoleUrl(name), { headers: { authorization: `Bearer ${jwt}` } });
      const lines: string[] = [];
      ws.addEventListener('message', (m) => lines.push(String(m.data)));
      ws.addEventListener('open', () => ws.send('say typed on open'));
      await waitFor(() => lines.some((l) => l.endsWith('[Server] typed on open')), { what: 'the say typed before the token was verified' });
      expect(checks).toBe(2);
      ws.close();
    } finally {
      auth.identify = identify;
      heartbeat.alive = alive;
    }
    expect((await c.api(`/api/services/${name}/stop`, { method: 'POST' })).status).toBe(200);
  });

  test('a service without a running process is closed with 1003', async () => {
    // A crashed instance stays registered but has no process.
    const group = { name: 'Crashy', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--crash-after-ready', '2'], minInstances: 0, restartOnCrash: false };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    await c.api('/api/services/Crashy/start', { method: 'POST' });
    await waitFor(async () => (await readJson(await c.api('/api/services/Crashy-1'))).state === 'CRASHED', { what: 'CRASHED' });
    expect(await closeCode(new WebSocket(consoleUrl('Crashy-1', c.master)))).toBe(1003);
  });
});
