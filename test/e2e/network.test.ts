/**
 * The network layer through the compiled binary: a proxy and a backend run under it, the
 * bridge's events move the roster and the totals, settings and maintenance reach subscribers
 * and survive a restart, broadcast and send reach the real consoles, and the player list pings
 * the backend.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

const TOKEN = 'e2e-network-token-0123456789abcdef';
const RECORDER = join(import.meta.dir, '../fixtures/console-recorder.ts');
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const ALICE = 'a11ce000-0000-4000-8000-000000000001';

let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

async function startBinary(dir: string) {
  const child = Bun.spawn([svc, '--dir', dir], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN }, stdout: 'pipe', stderr: 'pipe' });
  cleanups.push(() => child.kill('SIGKILL'));
  const out = new LineCollector(child.stdout);
  const listening = await out.waitForLine((l) => l.includes('API listening'));
  const url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;
  const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
    fetch(url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  return { child, out, url, api };
}

describe('the network layer (compiled binary)', () => {
  test('roster, settings, maintenance, broadcast, send and the player list; settings survive a restart', async () => {
    const { dir, remove } = tempDir('svc-e2e-net-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n[services]\nisolation = "none"\n');
    const first = await startBinary(dir);
    const { api } = first;

    const groups = [
      { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: [process.execPath, RECORDER], minInstances: 0 },
      { name: 'Lobby', type: 'LOBBY', software: 'CUSTOM', version: '1.21.1', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxPlayers: 20 },
    ];
    for (const group of groups) expect((await api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    for (const group of ['Proxy', 'Lobby']) expect((await api(`/api/services/${group}/start`, { method: 'POST' })).status).toBe(201);
    for (const name of ['Proxy-1', 'Lobby-1']) {
      await waitFor(async () => (await readJson(await api(`/api/services/${name}`))).state === 'READY', { timeoutMs: 20_000, what: `${name} READY` });
    }

    const frames: { type: string; data: Record<string, string> }[] = [];
    const events = new WebSocket(`${first.url.replace('http', 'ws')}/api/events?token=${TOKEN}`);
    events.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
    await new Promise((resolve) => events.addEventListener('open', resolve));
    const frameOf = (type: string) => waitFor(() => frames.find((f) => f.type === type), { what: `a ${type} frame` });
    // The socket is subscribed once a frame caused after its open arrives.
    await waitFor(async () => {
      await api('/api/proxy/chat', { method: 'PUT', json: { enabled: true } });
      return frames.some((f) => f.type === 'CHAT_FORMAT_UPDATED');
    }, { what: 'the events socket to receive' });

    expect((await api('/api/proxy/events', { method: 'POST', json: { type: 'PLAYER_CONNECTED', player: 'Alice', uuid: ALICE, service: 'Lobby-1' } })).status).toBe(200);
    expect((await frameOf('PLAYER_CONNECTED')).data).toEqual({ player: 'Alice', uuid: ALICE, service: 'Lobby-1' });
    const status = await readJson(await api('/api/status'));
    expect(status).toMatchObject({ online: true, totalPlayers: 1 });
    expect(status.groups.find((g: { name: string }) => g.name === 'Lobby').players).toBe(1);

    expect((await api('/api/proxy/motd', { method: 'PUT', json: { line1: 'from the binary', maxPlayers: 200 } })).status).toBe(200);
    expect((await frameOf('MOTD_UPDATED')).data).toMatchObject({ line1: 'from the binary', maxPlayers: '200' });
    expect((await api('/api/maintenance/global', { method: 'POST', json: { enabled: true, reason: 'e2e' } })).status).toBe(200);
    expect((await frameOf('MAINTENANCE_ENABLED')).data).toEqual({ scope: 'global', reason: 'e2e' });
    expect((await api('/api/maintenance/whitelist', { method: 'POST', json: { entry: 'Alice' } })).status).toBe(200);

    const broadcast = await readJson(await api('/api/broadcast', { method: 'POST', json: { message: 'hello network' } }));
    expect(broadcast).toMatchObject({ success: true, services: 2 });
    const proxyConsole = join(readJsonSync(join(dir, 'data/state/services.json')).services.find((s: { name: string }) => s.name === 'Proxy-1').workDir, 'console-input.txt');
    await waitFor(() => existsSync(proxyConsole) && readFileSync(proxyConsole, 'utf8').includes('velocity broadcast hello network'), { what: 'the broadcast on the proxy console' });
    await waitFor(async () => (await readJson(await api('/api/services/Lobby-1/logs?lines=50'))).lines.some((l: string) => l.includes('[Server] hello network')), { what: 'say on the backend' });
    expect((await api('/api/players/Alice/send', { method: 'POST', json: { targetService: 'Lobby-1' } })).status).toBe(200);
    await waitFor(() => readFileSync(proxyConsole, 'utf8').includes('send Alice Lobby-1'), { what: 'send on the proxy console' });

    const players = await readJson(await api('/api/players'));
    expect(players.players).toEqual([{ name: 'Alice', uuid: ALICE, service: 'Lobby-1', server: 'Lobby-1', group: 'Lobby', source: 'roster', proxy: null }]);
    expect(players.count).toBe(players.total);
    // The players module (installed on a first start) answers from its roster: no backend is pinged.
    // The ping fallback through the binary is test/e2e/modules-real-clients.test.ts, after an uninstall.
    expect(players.services).toEqual([]);

    events.close();
    first.child.kill('SIGTERM');
    expect(await first.child.exited).toBe(0);

    const second = await startBinary(dir);
    const config = await readJson(await second.api('/api/proxy/config'));
    expect(config.motd).toMatchObject({ line1: 'from the binary', maxPlayers: 200 });
    expect(config.maintenance).toMatchObject({ globalEnabled: true, reason: 'e2e', whitelist: ['Alice'] });
    second.child.kill('SIGTERM');
    expect(await second.child.exited).toBe(0);
  }, 90_000);
});

function readJsonSync(file: string) {
  return JSON.parse(readFileSync(file, 'utf8'));
}
