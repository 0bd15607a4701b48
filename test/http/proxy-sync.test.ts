import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { readJson, startController, waitFor, type TestController } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
let c: TestController;

const command = [process.execPath, FAKE_PAPER, '--port', '{port}'];
beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000 } });
  // A VELOCITY group run by the fixture: the kind makes it a proxy, the command replaces the jar.
  expect((await c.api('/api/groups', { method: 'POST', json: { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: command, minInstances: 0 } })).status).toBe(201);
  expect((await c.api('/api/groups', { method: 'POST', json: { name: 'Lobby', type: 'LOBBY', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: command, minInstances: 0 } })).status).toBe(201);
});
afterAll(() => c.stop());

const ready = (name: string) => waitFor(async () => (await readJson(await c.api(`/api/services/${name}`))).state === 'READY', { what: `${name} READY` });
const velocity = () => parseToml(readFileSync(join(c.controller.kernel.services.get('Proxy-1')!.workDir, 'velocity.toml'), 'utf8')) as { servers: Record<string, unknown> };

describe('proxy server list', () => {
  test('follows the READY backends and the proxy is told to reload', async () => {
    await c.api('/api/services/Proxy/start', { method: 'POST' });
    await ready('Proxy-1');
    const proxy = c.controller.kernel.services.get('Proxy-1')!;
    expect(proxy.port).toBeGreaterThanOrEqual(25565);
    expect(velocity().servers).toEqual({ try: [] });
    expect(readFileSync(join(proxy.workDir, 'forwarding.secret'), 'utf8').length).toBeGreaterThan(10);

    const lobby = await readJson(await c.api('/api/services/Lobby/start', { method: 'POST' }));
    await ready('Lobby-1');
    await waitFor(() => velocity().servers['Lobby-1'] === `127.0.0.1:${lobby.service.port}`, { what: 'Lobby-1 in velocity.toml' });
    expect(velocity().servers.try).toEqual(['Lobby-1']);
    await waitFor(async () => (await readJson(await c.api('/api/services/Proxy-1/logs?source=stdout'))).lines.some((l: string) => l.includes('Unknown command')), { what: 'the reload reaching the proxy console' });

    expect((await c.api('/api/services/Lobby-1/stop', { method: 'POST' })).status).toBe(200);
    await waitFor(() => velocity().servers['Lobby-1'] === undefined, { what: 'Lobby-1 gone from velocity.toml' });
  });
});
