/**
 * Issue 36's second attack, through the API: a service-level caller puts a player in `Admin`
 * (or grants `*` some other way), then logs in as that player and holds every admin route.
 * Every way a grant can happen is refused with 403 FORBIDDEN to the derived service token, a
 * JWT without `admin` and a session holding only svc.dashboard.perms.manage, and done for an
 * admin session; what hands out no admin passes for everyone. The same for the `perms`
 * command: over HTTP (a proxy running it for an in-game player), and on the consoles.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import type { OutputLine } from '../../../src/core/commands/command';
import type { Actor } from '../../../src/events/catalogue';
import { authModule } from '../../../src/modules/auth';
import { permsModule } from '../../../src/modules/perms';
import { playersModule } from '../../../src/modules/players';
import { expectErrorBody, MASTER_TOKEN, readJson, startController, type TestController } from '../../support/controller';
import { bringOnline, grant, loginAs, testPlayer } from '../../support/dashboard-login';

const FUTURE = new Date(Date.now() + 86_400_000).toISOString();
const NEEDS_ADMIN = 'needs an admin token or an admin dashboard session';

const manager = testPlayer(101, 'Moderator');
const operator = testPlayer(102, 'Operator');
/** Whom the escalations target: an ordinary player, one in Mod (a step below Admin), one held back from admin. */
const target = testPlayer(103, 'Target');
const staffer = testPlayer(104, 'Staffer');
const held = testPlayer(105, 'HeldBack');
/** The in-game player a proxy runs `perms` for. */
const gamer = testPlayer(106, 'Gamer');

let c: TestController;
const tokens = { service: '', writerJwt: '', scraperJwt: '', manager: '', operator: '', adminJwt: '', proxy: '' };

async function perms(method: string, path: string, json?: unknown, token?: string): Promise<Response> {
  return c.api(`/api/permissions${path}`, { method, json, token });
}

/** A change with the master token; must succeed. */
async function setUp(method: string, path: string, json?: unknown): Promise<void> {
  const response = await perms(method, path, json);
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
}

/** Groups, tracks and the targets' players, as GET reads them: what a refused change must leave alone. */
async function picture(): Promise<unknown> {
  const read = async (path: string) => readJson(await perms('GET', path));
  return {
    groups: await read('/groups'),
    tracks: await read('/tracks'),
    players: await Promise.all([target, staffer, held].map((p) => read(`/players/${p.uuid}`))),
  };
}

async function isAdmin(sessionToken: string): Promise<boolean> {
  const response = await c.api('/api/auth/me', { token: sessionToken });
  expect(response.status).toBe(200);
  return (await readJson(response)).isAdmin;
}

beforeAll(async () => {
  c = await startController({ modules: [playersModule, permsModule, authModule] });
  // Default and Admin (*, weight 100) from the first start.
  await setUp('POST', '/groups', { name: 'VIP' });
  await setUp('POST', '/groups/VIP/permissions', { permission: 'essentials.fly' });
  await setUp('POST', '/groups', { name: 'Mod' });
  await setUp('POST', '/groups', { name: 'Mid' });
  await setUp('PUT', '/groups/Mid', { parents: ['Admin'] });
  await setUp('POST', '/groups', { name: 'Top' });
  await setUp('PUT', '/groups/Top', { parents: ['Mid'] });
  await setUp('POST', '/groups', { name: 'Muted' });
  await setUp('PUT', '/groups/Muted', { weight: 500, permissions: ['-svc.dashboard.admin'] });
  await setUp('POST', '/tracks', { name: 'staff', groups: ['VIP', 'Mod', 'Admin'] });
  for (const p of [target, staffer, held]) await setUp('POST', `/players/${p.uuid}/groups`, { group: 'VIP', name: p.name });
  await setUp('POST', `/players/${staffer.uuid}/groups`, { group: 'Mod' });
  await setUp('POST', `/players/${held.uuid}/groups`, { group: 'Admin' });
  await setUp('POST', `/players/${held.uuid}/groups`, { group: 'Muted' });

  const auth = c.controller.kernel.auth;
  tokens.service = c.service;
  tokens.writerJwt = (await auth.mintJwt('deployer', ['services:write', 'groups:write'], 600)).token;
  tokens.scraperJwt = (await auth.mintJwt('grafana', ['metrics:read'], 600)).token;
  tokens.adminJwt = (await auth.mintJwt('ops', ['admin'], 600)).token;
  tokens.manager = await loginAs(c, manager, ['svc.dashboard.perms.manage']);
  tokens.operator = await loginAs(c, operator, ['svc.dashboard.admin']);

  // A proxy's own credential (core/tenancy), and an in-game player it may run `perms` for.
  tokens.proxy = 'svcs_routes-admin-grants-proxy-credential';
  const proxyHash = createHash('sha256').update(tokens.proxy).digest('hex');
  auth.useTenants({ identify: (hash) => (hash === proxyHash ? { service: 'Proxy-1', role: 'proxy' } : undefined) });
  await bringOnline(c, gamer);
  await grant(c, gamer, ['svc.command.perms']);
});
afterAll(() => c.stop());

/** Every way to hand out admin; each answers 403 FORBIDDEN naming what it would hand out. */
const ESCALATIONS: { what: string; method: string; path: string; body?: unknown; mention: string }[] = [
  { what: 'a player into Admin', method: 'POST', path: `/players/${target.uuid}/groups`, body: { group: 'Admin' }, mention: 'putting Target (00000000-0000-4000-8000-000000000067) in group "Admin" (admin-equivalent: it holds "*")' },
  { what: 'a player into Admin until tomorrow', method: 'POST', path: `/players/${target.uuid}/groups`, body: { group: 'admin', expiresAt: FUTURE }, mention: 'in group "Admin" (until' },
  { what: 'a player into Admin on one server', method: 'POST', path: `/players/${target.uuid}/groups`, body: { group: 'Admin', server: 'Lobby-1' }, mention: 'in group "Admin" (server=Lobby-1)' },
  { what: 'a player into a group inheriting Admin', method: 'POST', path: `/players/${target.uuid}/groups`, body: { group: 'Top' }, mention: 'in group "Top" (admin-equivalent: it inherits "*" from "Admin")' },
  { what: '* to a group', method: 'POST', path: '/groups/VIP/permissions', body: { permission: '*' }, mention: 'granting "*" (admin-equivalent) to group "VIP"' },
  { what: 'svc.dashboard.admin to a group for a day', method: 'POST', path: '/groups/VIP/permissions', body: { permission: 'svc.dashboard.admin', expiresAt: FUTURE }, mention: 'granting "svc.dashboard.admin"' },
  { what: 'svc.* in the group form', method: 'PUT', path: '/groups/VIP', body: { prefix: '&6', permissions: ['essentials.fly', 'SVC.*'] }, mention: 'granting "svc.*" (admin-equivalent) to group "VIP"' },
  { what: 'Admin as a parent', method: 'PUT', path: '/groups/VIP', body: { parents: ['Admin'] }, mention: 'making "VIP" inherit from "Admin" (admin-equivalent: it holds "*")' },
  { what: 'a parent inheriting Admin', method: 'PUT', path: '/groups/Mod', body: { parents: ['VIP', 'Top'] }, mention: 'making "Mod" inherit from "Top" (admin-equivalent: it inherits "*" from "Admin")' },
  { what: 'Admin as the default group', method: 'PUT', path: '/groups/Admin', body: { default: true }, mention: 'making "Admin" the default group' },
  { what: 'a promotion into Admin', method: 'POST', path: `/tracks/staff/promote/${staffer.uuid}`, mention: 'putting Staffer (00000000-0000-4000-8000-000000000068) in group "Admin"' },
  { what: 'svc.dashboard.* to many groups', method: 'POST', path: '/bulk/permissions', body: { groups: ['VIP', 'Mod'], permission: 'svc.dashboard.*' }, mention: 'granting "svc.dashboard.*" (admin-equivalent)' },
  { what: 'many players into Admin', method: 'POST', path: '/bulk/groups', body: { players: [target.uuid, staffer.uuid], group: 'Admin', expiresAt: FUTURE }, mention: 'in group "Admin"' },
  { what: 'a re-weight lifting a negation', method: 'PUT', path: '/groups/Muted', body: { weight: 1 }, mention: 'this would make HeldBack (00000000-0000-4000-8000-000000000069) a dashboard admin (svc.dashboard.admin granted by "*" in group "Admin")' },
  { what: 'leaving the negating group', method: 'DELETE', path: `/players/${held.uuid}/groups`, body: { group: 'Muted' }, mention: 'this would make HeldBack' },
  { what: 'deleting the negating group', method: 'DELETE', path: '/groups/Muted', mention: 'this would make HeldBack' },
];

const NOT_ADMIN = [
  ['the derived service token', 'service'],
  ['a JWT with write scopes', 'writerJwt'],
  ['a session with svc.dashboard.perms.manage', 'manager'],
] as const;

describe.each(NOT_ADMIN)('without admin: %s', (_, caller) => {
  test.each(ESCALATIONS)('$what: 403 FORBIDDEN, nothing changed', async ({ method, path, body, mention }) => {
    const before = await picture();
    const response = await perms(method, path, body, tokens[caller]);
    expect(response.status).toBe(403);
    const error = await expectErrorBody(response);
    expect(error.error).toBe('FORBIDDEN');
    expect(error.message).toContain(mention);
    expect(error.message).toContain(NEEDS_ADMIN);
    expect(await picture()).toEqual(before);
  });
});

test('a metrics:read JWT changes nothing either', async () => {
  const before = await picture();
  for (const { method, path, body } of ESCALATIONS) expect((await perms(method, path, body, tokens.scraperJwt)).status).toBe(403);
  expect(await picture()).toEqual(before);
});

describe.each(NOT_ADMIN)('what hands out no admin passes: %s', (_, caller) => {
  test('a VIP node, an unchanged form of Admin, a track step below Admin, a held membership again', async () => {
    const token = tokens[caller];
    expect((await perms('POST', '/groups/VIP/permissions', { permission: 'essentials.fly' }, token)).status).toBe(200);
    expect((await perms('POST', '/groups/VIP/permissions', { permission: 'essentials.home', server: 'Lobby-1' }, token)).status).toBe(200);
    // The dashboard's group editor sends every field back.
    for (const name of ['Admin', 'Top', 'Muted']) {
      const g = await readJson(await perms('GET', `/groups/${name}`));
      const form = { prefix: g.prefix, suffix: g.suffix, weight: g.weight, priority: g.priority, default: g.default, permissions: g.permissions, parents: g.parents };
      const saved = await perms('PUT', `/groups/${name}`, form, token);
      expect(saved.status).toBe(200);
    }
    expect((await perms('POST', `/players/${held.uuid}/groups`, { group: 'Admin' }, token)).status).toBe(200);
    expect((await perms('POST', `/tracks/staff/promote/${target.uuid}`, undefined, token)).status).toBe(200);
    expect((await perms('POST', `/tracks/staff/demote/${target.uuid}`, undefined, token)).status).toBe(200);
  });

  test('taking admin away: a membership, the node, the group', async () => {
    const group = `Owner-${caller}`;
    const owner = testPlayer(200 + NOT_ADMIN.findIndex(([, c]) => c === caller), `Own${caller.slice(0, 8)}`);
    await setUp('POST', '/groups', { name: group });
    await setUp('POST', `/groups/${group}/permissions`, { permission: '*' });
    await setUp('POST', `/players/${owner.uuid}/groups`, { group, name: owner.name });
    const token = tokens[caller];
    expect((await perms('DELETE', `/players/${owner.uuid}/groups`, { group }, token)).status).toBe(200);
    expect((await perms('DELETE', `/groups/${group}/permissions`, { permission: '*' }, token)).status).toBe(200);
    expect((await perms('DELETE', `/groups/${group}`, undefined, token)).status).toBe(200);
  });
});

describe('the attack end to end', () => {
  test('a perms.manage session cannot make itself admin; an admin session can', async () => {
    const refused = await perms('POST', `/players/${manager.uuid}/groups`, { group: 'Admin' }, tokens.manager);
    expect(refused.status).toBe(403);
    expect(await isAdmin(tokens.manager)).toBe(false);
    expect((await c.api('/api/config', { token: tokens.manager })).status).toBe(403);

    expect((await perms('POST', `/players/${manager.uuid}/groups`, { group: 'Admin' }, tokens.operator)).status).toBe(200);
    expect(await isAdmin(tokens.manager)).toBe(true);
    expect((await perms('DELETE', `/players/${manager.uuid}/groups`, { group: 'Admin' }, tokens.manager)).status).toBe(200);
    expect(await isAdmin(tokens.manager)).toBe(false);
  });
});

// ---- the perms command ----------------------------------------------------------------------

interface Run {
  status: number;
  message: string | undefined;
  text: string;
}

async function execute(args: string[], token: string, caller?: typeof gamer): Promise<Run> {
  const response = await c.api('/api/commands/perms/execute', { method: 'POST', json: { args, ...(caller ? { caller } : {}) }, token });
  const body = await readJson(response);
  return { status: response.status, message: body.message, text: (body.lines ?? []).map((l: { text: string }) => l.text).join('\n') };
}

/** The command run straight on the registry, with the context a console or the route gives it. */
async function onRegistry(args: string[], context: { actor: Actor; caller: string; admin?: boolean }): Promise<{ success: boolean; message?: string }> {
  const { commands } = c.controller.kernel;
  const lines: OutputLine[] = [];
  return commands.run(commands.find('perms')!, { args, ...context }, (line) => lines.push(line));
}

describe('the perms command', () => {
  const cmdTarget = testPlayer(110, 'CmdTarget');

  beforeAll(async () => {
    await setUp('POST', '/groups', { name: 'CmdVip' });
    await setUp('POST', '/groups', { name: 'CmdAdmin' });
    await setUp('POST', '/groups/CmdAdmin/permissions', { permission: 'svc.dashboard.admin' });
    await setUp('POST', `/players/${cmdTarget.uuid}/groups`, { group: 'CmdVip', name: cmdTarget.name });
  });

  test('over HTTP from a proxy for an in-game player (no admin): escalations fail, the rest works', async () => {
    const refusals: [string[], string][] = [
      [['user', 'addgroup', cmdTarget.name, 'CmdAdmin'], 'putting CmdTarget'],
      [['user', 'addgroup', cmdTarget.name, 'CmdAdmin', 'expires=1h'], 'putting CmdTarget'],
      [['group', 'addperm', 'CmdVip', '*'], 'granting "*" (admin-equivalent) to group "CmdVip"'],
      [['group', 'addperm', 'CmdVip', 'svc.dashboard.*', 'server=Lobby-1'], 'granting "svc.dashboard.*"'],
      [['group', 'addparent', 'CmdVip', 'CmdAdmin'], 'making "CmdVip" inherit from "CmdAdmin"'],
      [['group', 'setdefault', 'CmdAdmin'], 'making "CmdAdmin" the default group'],
      [['group', 'setweight', 'Muted', '0'], 'this would make'],
    ];
    for (const [args, mention] of refusals) {
      const run = await execute(args, tokens.proxy, gamer);
      expect({ args, status: run.status }).toEqual({ args, status: 422 });
      expect(run.message).toContain(mention);
      expect(run.message).toContain(NEEDS_ADMIN);
    }
    expect((await readJson(await perms('GET', `/players/${cmdTarget.uuid}`))).groups).toEqual(['CmdVip']);

    for (const args of [
      ['group', 'addperm', 'CmdVip', 'essentials.fly'],
      ['group', 'setweight', 'CmdVip', '5'],
      ['user', 'addgroup', cmdTarget.name, 'Mod', 'expires=1h'],
      ['user', 'removegroup', cmdTarget.name, 'Mod'],
      ['group', 'info', 'CmdAdmin'],
    ]) {
      const run = await execute(args, tokens.proxy, gamer);
      expect({ args, status: run.status, message: run.message }).toEqual({ args, status: 200, message: undefined });
    }
  });

  test('over HTTP with the master token (admin): the grant is done', async () => {
    const run = await execute(['user', 'addgroup', cmdTarget.name, 'CmdAdmin', 'expires=1h'], MASTER_TOKEN);
    expect(run.status).toBe(200);
    expect((await readJson(await perms('GET', `/players/${cmdTarget.uuid}`))).groups).toEqual(['CmdVip', 'CmdAdmin']);
    await setUp('DELETE', `/players/${cmdTarget.uuid}/groups`, { group: 'CmdAdmin' });
  });

  test('the controller’s terminal and the console stream are the operator; any other caller must say admin', async () => {
    const grantArgs = ['group', 'addperm', 'CmdVip', 'svc.*', 'expires=1h'];
    const refused = await onRegistry(grantArgs, { actor: 'api:service', caller: 'http:api:service@127.0.0.1', admin: false });
    expect(refused).toMatchObject({ success: false, message: expect.stringContaining('granting "svc.*"') });
    // A caller the context does not vouch for is not an admin (fail closed).
    expect((await onRegistry(grantArgs, { actor: 'api:service', caller: 'somewhere-new' })).success).toBe(false);

    expect(await onRegistry(grantArgs, { actor: 'console', caller: 'console' })).toEqual({ success: true });
    expect(await onRegistry(['group', 'removeperm', 'CmdVip', 'svc.*'], { actor: 'api:service', caller: 'http:api:service@127.0.0.1', admin: false })).toEqual({ success: true });
    expect(await onRegistry(grantArgs, { actor: 'dashboard:Operator', caller: 'console-stream:0f9c' })).toEqual({ success: true });
    expect(await onRegistry(['group', 'removeperm', 'CmdVip', 'svc.*'], { actor: 'console', caller: 'console' })).toEqual({ success: true });
    expect(await onRegistry(grantArgs, { actor: 'api:jwt:ops', caller: 'http:api:jwt:ops@127.0.0.1', admin: true })).toEqual({ success: true });
  });
});

describe('with admin', () => {
  test('an admin JWT grants *', async () => {
    expect((await perms('POST', '/groups', { name: 'JwtOwners' }, tokens.adminJwt)).status).toBe(201);
    expect((await perms('POST', '/groups/JwtOwners/permissions', { permission: '*' }, tokens.adminJwt)).status).toBe(200);
  });

  // Last: these change the model the other tests start from.
  test('an admin session makes every one of those changes', async () => {
    for (const { what, method, path, body } of ESCALATIONS) {
      const response = await perms(method, path, body, tokens.operator);
      if (response.status >= 300) throw new Error(`${what}: ${response.status} ${await response.text()}`);
    }
    const targetNow = await readJson(await perms('GET', `/players/${target.uuid}`));
    expect(targetNow.groups).toContain('Admin');
    expect((await readJson(await perms('GET', '/groups/Admin'))).default).toBe(true);
  });
});
