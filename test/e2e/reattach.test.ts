import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'reattach-test-token-0123456789';
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).forEach((f) => f()));


const startBinary = (dir: string) => startBinaryController(svc, dir, TOKEN, cleanups);

describe('services survive the controller (compiled binary)', () => {
  test('kill -9 the controller: the service keeps running, is recovered, and works again', async () => {
    const { dir, remove } = tempDir('svc-reattach-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
    mkdirSync(join(dir, 'config/groups'), { recursive: true });
    writeFileSync(
      join(dir, 'config/groups/Lobby.toml'),
      `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\njar_name = "server.jar"\nstart_command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE_PAPER)}, "--port", "{port}"]\n[group.scaling]\nmin_instances = 1\n[group.lifecycle]\nrestart_on_crash = false\n`,
    );

    // First controller: boots Lobby-1 because min_instances = 1.
    const first = await startBinary(dir);
    await waitFor(async () => (await readJson(await first.api('/api/services/Lobby-1'))).state === 'READY', { what: 'Lobby-1 READY', timeoutMs: 15_000 });
    const before = await readJson(await first.api('/api/services/Lobby-1'));
    // Whatever happens to the assertions, no game server outlives the test.
    cleanups.push(() => killGameServers(dir, [before.pid]));
    first.child.kill('SIGKILL');
    await first.child.exited;
    expect(() => process.kill(before.pid, 0)).not.toThrow();

    // Second controller: adopts it instead of starting another.
    const second = await startBinary(dir);
    const after = await readJson(await second.api('/api/services/Lobby-1'));
    expect(after).toMatchObject({ name: 'Lobby-1', state: 'READY', pid: before.pid, port: before.port });
    expect((await readJson(await second.api('/api/services?group=Lobby'))).total).toBe(1);
    await second.out.waitForLine((l) => l.includes('recovered a running service') && l.includes('Lobby-1'));

    // Console output and input work again.
    const frames: string[] = [];
    const consoleSocket = new WebSocket(`${second.url.replace('http', 'ws')}/api/services/Lobby-1/console?token=${TOKEN}`);
    consoleSocket.addEventListener('message', (m) => frames.push(String(m.data)));
    await new Promise((resolve) => consoleSocket.addEventListener('open', resolve));
    expect((await second.api('/api/services/Lobby-1/exec', { method: 'POST', body: JSON.stringify({ command: 'say back again' }) })).status).toBe(200);
    await waitFor(() => frames.some((f) => f.includes('[Server] back again')), { what: 'the console line' });
    consoleSocket.close();

    // The exit code of a process that ends while no controller watches is still reported.
    second.child.kill('SIGKILL');
    await second.child.exited;
    process.kill(before.pid, 'SIGTERM');
    await waitFor(() => {
      try {
        process.kill(before.pid, 0);
        return false;
      } catch {
        return true;
      }
    }, { what: 'the server to end' });
    const third = await startBinary(dir);
    const ended = JSON.parse(await third.out.waitForLine((l) => l.includes('ended while the controller was away')));
    expect(ended).toMatchObject({ service: 'Lobby-1', exitCode: 143 });
    expect(readFileSync(join(dir, 'logs/svc.log'), 'utf8')).toContain('"service":"Lobby-1","exitCode":143');
    // min_instances = 1 is refilled: a fresh Lobby-1 takes the crashed slot.
    await waitFor(async () => {
      const view = await readJson(await third.api('/api/services/Lobby-1'));
      return view.state === 'READY' && view.pid !== before.pid;
    }, { what: 'a fresh Lobby-1', timeoutMs: 15_000 });

    // A graceful stop of the third controller leaves nothing running.
    third.child.kill('SIGTERM');
    expect(await third.child.exited).toBe(0);
    expect(readFileSync(join(dir, 'logs/svc.log'), 'utf8')).toContain('"services":1,"msg":"stopping all services"');
  }, 60_000);
});
