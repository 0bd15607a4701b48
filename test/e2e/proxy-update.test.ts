/**
 * Proxy updates through the compiled binary: `proxy update` (over POST /api/commands) against
 * the PaperMC fake brings a Velocity group's template jar and version to the latest stable
 * build; the events reach a subscriber of /api/events in order, APPLIED is audited.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakePaperMc } from '../fixtures/upstream/papermc';
import { digest, fakeJar } from '../fixtures/upstream/serve';
import { startBinaryController, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { openEventSocket } from '../support/events-socket';

const TOKEN = 'proxy-update-e2e-token-0123456789abc';
const OLD = fakeJar('velocity 3.3.0-SNAPSHOT build 400');
const NEW = fakeJar('velocity 3.4.0-SNAPSHOT build 500');
const papermc = fakePaperMc({
  velocity: { versions: { '3.0.0': ['3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT'] }, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar: NEW }], '3.3.0-SNAPSHOT': [{ id: 400, jar: OLD }] } },
});
const cleanups: (() => void)[] = [() => papermc.close()];
let svc: string;
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

test('proxy update: the template jar and the group version follow the latest stable build; AVAILABLE then APPLIED', async () => {
  const { dir, remove } = tempDir('svc-e2e-proxy-update-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\n[software]\npapermc_url = "${papermc.url}"\n[proxy]\nupdate_check = false\n`);
  const controller = await startBinaryController(svc, dir, TOKEN, cleanups);
  const frames: { type: string; data: Record<string, unknown> }[] = [];
  const socket = await openEventSocket<{ type: string; data: Record<string, unknown> }>(controller.url, TOKEN, (frame) => frames.push(frame));
  cleanups.push(() => socket.close());
  const group = { name: 'Proxy', software: 'VELOCITY', version: '3.3.0-SNAPSHOT', minInstances: 0 };
  expect((await controller.api('/api/groups', { method: 'POST', body: JSON.stringify(group) })).status).toBe(201);
  mkdirSync(join(dir, 'templates', 'Proxy'), { recursive: true });
  writeFileSync(join(dir, 'templates', 'Proxy', 'server.jar'), OLD);

  const res = await controller.api('/api/commands/proxy/execute', { method: 'POST', body: JSON.stringify({ args: ['update'] }) });
  expect(res.status).toBe(200);
  expect(JSON.stringify((await readJson(res)).lines)).toContain('group Proxy: VELOCITY 3.3.0-SNAPSHOT → 3.4.0-SNAPSHOT applied');
  expect(digest('sha256', readFileSync(join(dir, 'templates', 'Proxy', 'server.jar')))).toBe(digest('sha256', NEW));
  expect((await readJson(await controller.api('/api/groups/Proxy'))).version).toBe('3.4.0-SNAPSHOT');
  await waitFor(() => frames.some((f) => f.type === 'PROXY_UPDATE_APPLIED'), { what: 'PROXY_UPDATE_APPLIED on the socket' });
  expect(frames.filter((f) => f.type.startsWith('PROXY_UPDATE')).map((f) => [f.type, f.data])).toEqual([
    ['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }],
    ['PROXY_UPDATE_APPLIED', { oldVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }],
  ]);
  expect((await readJson(await controller.api('/api/audit?action=PROXY_UPDATE_APPLIED'))).entries).toHaveLength(1);
  controller.child.kill('SIGTERM');
  expect(await controller.child.exited).toBe(0);
}, 60_000);
