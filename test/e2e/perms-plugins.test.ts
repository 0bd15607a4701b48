/**
 * The permissions module in the compiled binary, driven the way its real clients drive it
 * (REFERENCE-MODULES §2 "Plugin clients" and "Dashboard reads"):
 *   - the Velocity bridge (master token) sends PUT /players/{uuid} {name} on login, without a
 *     server, and reads effectivePermissions, prefix and suffix;
 *   - the backend perms plugin (derived service token) sends the same PUT with
 *     ?server=<service name> and reads effectivePermissions, prefix, suffix, displayGroup and
 *     priority; both listen on /api/events for PERMISSION_GROUP_* (refresh everyone) and
 *     PLAYER_PERMISSIONS_UPDATED (refresh data.uuid) and then GET the player again;
 *   - the dashboard lists groups and players, creates a group with {name, default:false},
 *     saves the group editor with PUT {prefix, suffix, weight, priority, default, permissions,
 *     parents}, and adds or removes a player's group with {group}.
 * Then kill -9 and a restart: every change is there (the reference lost PUT's permissions,
 * parents and meta), and a temporary grant that expired is gone rather than permanent. Last,
 * the module is uninstalled: its routes are 404 and core runs on.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveServiceToken } from '../../src/core/auth';
import { startBinaryController, svcBinary } from '../support/binary';
import { tempDir, waitFor } from '../support/controller';
import { offlineUuid } from '../support/minecraft-client';

const TOKEN = 'perms-plugins-token-0123456789abcdef';
const SERVICE_TOKEN = deriveServiceToken(TOKEN);
const ALICE = offlineUuid('Alice');
const BOB = offlineUuid('Bob');

type Binary = Awaited<ReturnType<typeof startBinaryController>>;

let svc: string;
let dir: string;
let removeDir: () => void;
let current: Binary;
const cleanups: (() => void)[] = [];
const frames: { type: string; data: Record<string, string> }[] = [];
let socket: WebSocket | undefined;

const call = async (method: string, path: string, body?: unknown, token = TOKEN) => {
  const res = await fetch(current.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as ReturnType<typeof JSON.parse> };
};
const ok = async (method: string, path: string, body?: unknown, token = TOKEN) => {
  const res = await call(method, path, body, token);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** The event socket a plugin keeps open, with the service token a backend holds. */
async function listen(): Promise<void> {
  socket?.close();
  socket = new WebSocket(`${current.url.replace('http', 'ws')}/api/events?token=${SERVICE_TOKEN}`);
  socket.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
  await new Promise((resolve, reject) => {
    socket!.addEventListener('open', resolve);
    socket!.addEventListener('error', reject);
  });
}
const frame = (type: string, match: (data: Record<string, string>) => boolean = () => true) =>
  waitFor(() => frames.find((f) => f.type === type && match(f.data)), { what: `a ${type} frame`, timeoutMs: 5000 });

beforeAll(async () => {
  svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-perms-e2e-'));
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n');
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
  await listen();
}, 120_000);

afterAll(() => {
  socket?.close();
  for (const cleanup of cleanups) cleanup();
  removeDir();
});

describe('the perms plugins and the dashboard against the compiled binary', () => {
  test('first start: the module is installed with Default and Admin (*)', async () => {
    const modules = (await ok('GET', '/api/modules')).modules as { id: string; installed: boolean }[];
    expect(modules.find((m) => m.id === 'perms')?.installed).toBe(true);
    const { groups, total } = await ok('GET', '/api/permissions/groups');
    expect(total).toBe(2);
    const byName = Object.fromEntries(groups.map((g: { name: string }) => [g.name, g]));
    expect(byName.Default).toMatchObject({ name: 'Default', default: true, prefix: '&9[User] &7', priority: 0, permissions: [], parents: [], meta: {} });
    expect(byName.Admin).toMatchObject({ name: 'Admin', default: false, priority: 100, weight: 100, permissions: ['*'] });
  });

  test('the dashboard builds a VIP group, the bridge and the backend plugin read it on login', async () => {
    expect(await call('POST', '/api/permissions/groups', { name: 'VIP', default: false })).toMatchObject({ status: 201, body: { success: true } });
    // The dashboard's group editor sends the whole group back.
    await ok('PUT', '/api/permissions/groups/VIP', { prefix: '&6[VIP] ', suffix: ' &6★', weight: 10, priority: 50, default: false, permissions: ['vip.*', 'essentials.fly', '-vip.secret'], parents: ['Default'] });
    await frame('PERMISSION_GROUP_UPDATED', (d) => d.group === 'VIP');
    await ok('POST', '/api/permissions/groups/VIP/permissions', { permission: 'lobby.jump', server: 'Lobby-1' });
    await ok('PUT', '/api/permissions/groups/VIP/meta', { key: 'color', value: 'gold' });

    // Login on the proxy: no server; a new player gets the default group.
    const atProxy = await ok('PUT', `/api/permissions/players/${ALICE}`, { name: 'Alice' });
    expect(atProxy).toMatchObject({ uuid: ALICE, name: 'Alice', groups: ['Default'], displayGroup: 'Default', prefix: '&9[User] &7', suffix: '', priority: 0 });
    expect(Array.isArray(atProxy.effectivePermissions)).toBe(true);

    const before = frames.length;
    await ok('POST', `/api/permissions/players/${ALICE}/groups`, { group: 'VIP' });
    const updated = await frame('PLAYER_PERMISSIONS_UPDATED', (d) => d.uuid === ALICE);
    expect(frames.indexOf(updated)).toBeGreaterThanOrEqual(before);
    expect(updated.data).toMatchObject({ uuid: ALICE, player: 'Alice' });

    // The bridge refreshes the uuid of the event.
    const proxyView = await ok('GET', `/api/permissions/players/${updated.data.uuid}`);
    expect(proxyView).toMatchObject({ groups: ['Default', 'VIP'], displayGroup: 'VIP', prefix: '&6[VIP] ', suffix: ' &6★', priority: 50 });
    expect(proxyView.effectivePermissions).toEqual(['-vip.secret', 'essentials.fly', 'vip.*']);

    // The backend plugin joins with its service name: the server-scoped grant counts there only.
    const onLobby = await ok('PUT', `/api/permissions/players/${ALICE}?server=Lobby-1`, { name: 'Alice' }, SERVICE_TOKEN);
    expect(onLobby.effectivePermissions).toEqual(['-vip.secret', 'essentials.fly', 'lobby.jump', 'vip.*']);
    const onGame = await ok('PUT', `/api/permissions/players/${ALICE}?server=Game-1`, { name: 'Alice' }, SERVICE_TOKEN);
    expect(onGame.effectivePermissions).not.toContain('lobby.jump');

    expect(await ok('GET', `/api/permissions/check/${ALICE}/vip.chat.color`)).toEqual({ uuid: ALICE, permission: 'vip.chat.color', allowed: true });
    expect((await ok('GET', `/api/permissions/check/${ALICE}/vip.secret`)).allowed).toBe(false);
    expect((await ok('GET', `/api/permissions/check/${ALICE}/lobby.jump`)).allowed).toBe(false);
    expect((await ok('GET', `/api/permissions/check/${ALICE}/lobby.jump?server=Lobby-1`)).allowed).toBe(true);
  });

  test('the dashboard lists players and removes a group with {group}', async () => {
    await ok('PUT', `/api/permissions/players/${BOB}`, { name: 'Bob' });
    await ok('POST', `/api/permissions/players/${BOB}/groups`, { group: 'VIP' });
    const listed = await ok('GET', '/api/permissions/players?q=b');
    expect(listed).toEqual([{ uuid: BOB, name: 'Bob', groups: ['Default', 'VIP'], displayGroup: 'VIP', prefix: '&6[VIP] ' }]);
    await ok('DELETE', `/api/permissions/players/${BOB}/groups`, { group: 'VIP' });
    expect((await ok('GET', `/api/permissions/players/${BOB}`)).groups).toEqual(['Default']);
  });

  test('kill -9 and a restart keep every change; an expired temporary grant is gone, not permanent', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    await ok('POST', '/api/permissions/groups/VIP/permissions', { permission: 'event.access', expiresAt: soon });
    expect((await ok('GET', `/api/permissions/check/${ALICE}/event.access`)).allowed).toBe(true);
    await ok('POST', '/api/permissions/tracks', { name: 'ranks', groups: ['Default', 'VIP', 'Admin'] });

    current.child.kill('SIGKILL');
    await current.child.exited;
    current = await startBinaryController(svc, dir, TOKEN, cleanups);
    await listen();

    const vip = await ok('GET', '/api/permissions/groups/vip');
    expect(vip).toMatchObject({ name: 'VIP', prefix: '&6[VIP] ', suffix: ' &6★', weight: 10, priority: 50, parents: ['Default'], meta: { color: 'gold' } });
    expect(vip.permissions).toEqual(expect.arrayContaining(['vip.*', 'essentials.fly', '-vip.secret', 'lobby.jump']));
    expect(vip.scopedPermissions).toContainEqual({ permission: 'lobby.jump', server: 'Lobby-1' });
    expect(await ok('GET', '/api/permissions/tracks/ranks')).toEqual({ name: 'ranks', groups: ['Default', 'VIP', 'Admin'] });

    // The sweep removes the row once its time is over; the answer changed the moment it expired.
    await waitFor(async () => !(await ok('GET', '/api/permissions/groups/VIP')).permissions.includes('event.access'), { what: 'event.access swept', timeoutMs: 10_000, intervalMs: 100 });
    expect((await ok('GET', `/api/permissions/check/${ALICE}/event.access`)).allowed).toBe(false);
    // Announced by the controller itself (the core audit keeps the event with its actor), so the plugins refresh.
    const announced = await ok('GET', '/api/audit?action=PERMISSION_GROUP_UPDATED&actor=system');
    expect(announced.entries).toHaveLength(1);

    // And it stays gone across another restart (the reference reloaded it as a permanent grant).
    current.child.kill('SIGKILL');
    await current.child.exited;
    current = await startBinaryController(svc, dir, TOKEN, cleanups);
    expect((await ok('GET', '/api/permissions/groups/VIP')).permissions).not.toContain('event.access');
    expect((await ok('GET', `/api/permissions/check/${ALICE}/event.access`)).allowed).toBe(false);
    expect((await ok('POST', `/api/permissions/tracks/ranks/promote/${ALICE}`))).toMatchObject({ success: true, previousGroup: 'VIP', newGroup: 'Admin' });
    const audit = await ok('GET', '/api/permissions/audit?action=group.expireperm');
    expect(audit).toMatchObject({ total: 1, entries: [{ actor: 'system', action: 'group.expireperm', target: 'VIP', details: 'event.access' }] });
  }, 60_000);

  test('uninstalled and restarted: the perms routes are 404 and core runs on', async () => {
    expect(await ok('POST', '/api/modules/uninstall/perms')).toMatchObject({ success: true, restartRequired: true });
    current.child.kill('SIGTERM');
    await current.child.exited;
    current = await startBinaryController(svc, dir, TOKEN, cleanups);
    for (const path of ['/api/permissions/groups', `/api/permissions/players/${ALICE}`, `/api/permissions/check/${ALICE}/a.b`]) {
      expect(await call('GET', path)).toMatchObject({ status: 404, body: { success: false, error: 'ROUTE_NOT_FOUND' } });
    }
    expect(await ok('GET', '/api/health')).toMatchObject({ status: 'ok' });
    expect((await ok('GET', '/api/groups')).groups).toEqual([]);
  }, 60_000);
});
