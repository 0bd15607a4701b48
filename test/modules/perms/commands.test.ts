/**
 * The `perms` console command against a real controller: run over POST
 * /api/commands/perms/execute (actor api:admin) and once on the local registry (actor console),
 * with what it changed read back through /api/permissions and the module's audit.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { OutputLine } from '../../../src/core/commands/command';
import type { SvcEvent } from '../../../src/events/catalogue';
import { permsModule } from '../../../src/modules/perms';
import { readJson, startController, type TestController } from '../../support/controller';

const ALICE = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';
const CAROL = '33333333-3333-4333-8333-333333333333';
const HOUR = 3_600_000;

let c: TestController;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({ modules: [permsModule] });
  c.controller.kernel.bus.subscribe((e) => void events.push(e));
  for (const [uuid, name] of [
    [ALICE, 'Alice'],
    [BOB, 'Bob'],
  ]) {
    expect((await c.api(`/api/permissions/players/${uuid}`, { method: 'PUT', json: { name } })).status).toBe(200);
  }
});
afterAll(() => c.stop());

interface Run {
  status: number;
  lines: { type: string; text: string }[];
  /** Every line's text, one per line. */
  text: string;
  /** The failure message (422), or undefined. */
  message: string | undefined;
}

async function perms(args: string[], token?: string): Promise<Run> {
  const response = await c.api('/api/commands/perms/execute', { method: 'POST', json: { args }, token });
  const body = await readJson(response);
  const lines: Run['lines'] = body.lines ?? [];
  return { status: response.status, lines, text: lines.map((l) => l.text).join('\n'), message: body.message };
}

/** Runs and expects success (200), giving the printed text. */
async function ok(...args: string[]): Promise<string> {
  const run = await perms(args);
  if (run.status !== 200) throw new Error(`perms ${args.join(' ')} answered ${run.status}: ${run.message}`);
  return run.text;
}

/** Runs and expects the command to fail (422), giving its message. */
async function fails(...args: string[]): Promise<string> {
  const run = await perms(args);
  expect(run.status).toBe(422);
  expect(run.lines.at(-1)).toEqual({ type: 'error', text: run.message! });
  return run.message!;
}

async function group(name: string) {
  const response = await c.api(`/api/permissions/groups/${name}`);
  expect(response.status).toBe(200);
  return readJson(response);
}

async function player(uuid: string) {
  const response = await c.api(`/api/permissions/players/${uuid}`);
  expect(response.status).toBe(200);
  return readJson(response);
}

describe('perms: the command itself', () => {
  test('is an admin command with one subcommand per family and completion hints', async () => {
    const { commands } = await readJson(await c.api('/api/commands', { token: c.service }));
    const command = commands.find((x: { name: string }) => x.name === 'perms');
    expect(command).toMatchObject({ permission: 'svc.command.perms', level: 'admin' });
    expect(command.subcommands.map((s: { path: string }) => s.path)).toEqual(['group', 'user', 'track', 'audit']);
    const user = command.subcommands.find((s: { path: string }) => s.path === 'user');
    expect(user.completions[0]).toMatchObject({ position: 0, type: 'CHOICE', values: expect.arrayContaining(['addgroup', 'promote']) });
    expect(user.completions[1]).toEqual({ position: 1, type: 'PLAYER' });
    const groupSub = command.subcommands.find((s: { path: string }) => s.path === 'group');
    // 'group' hints mean server groups in core; permission groups are free text.
    expect(groupSub.completions[1]).toEqual({ position: 1, type: 'FREE_TEXT' });
  });

  test('a service token may not run it', async () => {
    const run = await perms(['group', 'list'], c.service);
    expect(run.status).toBe(403);
  });

  test('without arguments it lists the subcommands', async () => {
    const text = await ok();
    expect(text).toContain('perms group <list');
    expect(text).toContain('perms user <list');
    expect(text).toContain('perms track <list');
    expect(text).toContain('perms audit [limit 1-500]');
  });

  test('usage errors: unknown subcommand, unknown action, missing arguments, unknown or repeated option', async () => {
    expect(await fails('frobnicate')).toBe('unknown subcommand "frobnicate"; usage: perms <group | user | track | audit> …');
    expect(await fails('group', 'zap')).toMatch(/^unknown action "zap"; usage: perms group </);
    expect(await fails('group')).toMatch(/^missing action; usage: perms group </);
    expect(await fails('group', 'info')).toBe('missing arguments; usage: perms group info <group>');
    expect(await fails('group', 'addperm', 'Default')).toMatch(/^too few arguments; usage: perms group addperm <group> <node>/);
    expect(await fails('group', 'addperm', 'Default', 'a.b', 'colour=red')).toMatch(/^unknown option "colour=" \(this takes server=, world=, expires=\); usage: perms group addperm/);
    expect(await fails('group', 'removeperm', 'Default', 'a.b', 'expires=1h')).toMatch(/^unknown option "expires=" \(this takes server=, world=\)/);
    expect(await fails('group', 'addperm', 'Default', 'a.b', 'server=A', 'server=B')).toMatch(/^server= is given twice/);
    expect(await fails('group', 'addperm', 'Default', 'a.b', 'world=')).toMatch(/^world= needs a value/);
    expect(await fails('group', 'addperm', 'Default', 'a.b', 'expires=soon')).toMatch(/^expires=soon is neither a duration \(30m, 12h, 7d, 1d12h\) nor an ISO-8601 time/);
    expect(await fails('user', 'promote', 'Alice')).toMatch(/^too few arguments; usage: perms user promote <name\|uuid> <track>/);
    expect(await fails('user', 'promote', 'Alice', 'ladder', 'server=x')).toMatch(/^unknown option "server=" \(this takes none\)/);
    expect(await fails('track', 'info', 'a', 'b')).toBe('unexpected "b"; usage: perms track info <track>');
    expect(await fails('audit', 'many')).toBe('"many" is not a whole number; usage: perms audit [limit 1-500]');
    // Nothing a refused line asked for was written.
    expect((await group('Default')).permissions).not.toContain('a.b');
  });
});

describe('perms group', () => {
  test('list, create, info and delete, with the failures of the service', async () => {
    expect(await ok('group', 'create', 'Helper')).toBe('created permission group Helper');
    const list = await ok('group', 'list');
    expect(list).toMatch(/^\d+ permission group\(s\)/);
    expect(list).toContain('Admin  priority 100, weight 100, 1 node(s)');
    expect(list).toContain('Default (default)  priority 0');
    expect(list).toContain('Helper  priority 0, weight 0, 0 node(s)');
    expect(await fails('group', 'create', 'helper')).toBe('a permission group named "Helper" already exists');
    expect(await fails('group', 'create', 'bad name!')).toMatch(/group name "bad name!" must be/);
    expect(await fails('group', 'create', 'Other', 'yes')).toMatch(/^"yes" is not "default"; usage: perms group create/);

    const info = await ok('group', 'info', 'admin');
    expect(info).toBe(['permission group Admin', 'prefix "&c[Admin] &7", suffix ""', 'priority 100, weight 100', 'inherits none', '1 permission(s)', '*'].join('\n'));

    expect(await ok('group', 'delete', 'HELPER')).toBe('deleted permission group Helper');
    expect((await c.api('/api/permissions/groups/Helper')).status).toBe(404);
    expect(await fails('group', 'delete', 'Helper')).toBe('no permission group named "Helper"');
    expect(await fails('group', 'delete', 'Default')).toMatch(/is the default group and cannot be deleted/);
    const created = events.find((e) => e.type === 'PERMISSION_GROUP_CREATED' && e.data.group === 'Helper');
    expect(created?.actor).toBe('api:admin');
  });

  test('addperm with server, world and expiry shows in scopedPermissions; removeperm takes one scope or all', async () => {
    await ok('group', 'create', 'Vip');
    const before = Date.now();
    expect(await ok('group', 'addperm', 'Vip', 'Fly.Use')).toBe('Vip has fly.use');
    expect(await ok('group', 'addperm', 'Vip', 'lobby.jump', 'world=nether', 'server=Lobby-1')).toBe('Vip has lobby.jump [server=Lobby-1 world=nether]');
    expect(await ok('group', 'addperm', 'Vip', 'event.access', 'expires=1d12h')).toMatch(/^Vip has event\.access \[until \d{4}-\d\d-\d\dT[\d:.]+Z\]$/);
    const iso = new Date(Date.now() + 2 * HOUR).toISOString();
    await ok('group', 'addperm', 'Vip', 'event.late', `expires=${iso}`, 'server=Game-1');

    const view = await group('Vip');
    expect(view.permissions).toEqual(expect.arrayContaining(['fly.use', 'lobby.jump', 'event.access', 'event.late']));
    const scoped = Object.fromEntries(view.scopedPermissions.map((s: { permission: string }) => [s.permission, s]));
    expect(Object.keys(scoped).sort()).toEqual(['event.access', 'event.late', 'lobby.jump']);
    expect(scoped['lobby.jump']).toEqual({ permission: 'lobby.jump', server: 'Lobby-1', world: 'nether' });
    const expires = Date.parse(scoped['event.access'].expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 36 * HOUR);
    expect(expires).toBeLessThanOrEqual(Date.now() + 36 * HOUR);
    expect(scoped['event.late']).toEqual({ permission: 'event.late', server: 'Game-1', expiresAt: iso });

    expect(await fails('group', 'addperm', 'Vip', 'a..b')).toMatch(/has an empty segment/);
    expect(await fails('group', 'addperm', 'Vip', 'x.y', 'expires=2001-01-01T00:00:00Z')).toMatch(/is not in the future/);
    expect(await fails('group', 'addperm', 'Vip', 'x.y', 'server=no spaces')).toMatch(/server "no spaces" is not a server name/);
    expect(await fails('group', 'addperm', 'Nope', 'x.y')).toBe('no permission group named "Nope"');

    expect(await ok('group', 'removeperm', 'Vip', 'lobby.jump', 'server=Lobby-2', 'world=nether')).toBe('Vip did not have lobby.jump at server=Lobby-2 world=nether; nothing changed');
    expect(await ok('group', 'removeperm', 'Vip', 'lobby.jump', 'server=Lobby-1', 'world=nether')).toBe('removed lobby.jump at server=Lobby-1 world=nether from Vip');
    expect(await ok('group', 'removeperm', 'Vip', 'FLY.USE')).toBe('removed fly.use from Vip');
    const after = await group('Vip');
    expect(after.permissions.sort()).toEqual(['event.access', 'event.late']);
    expect(events.filter((e) => e.type === 'PERMISSION_GROUP_UPDATED' && e.data.group === 'Vip').every((e) => e.actor === 'api:admin')).toBe(true);
  });

  test('prefix and suffix take the rest of the line; "" clears; priority and weight are whole numbers', async () => {
    await ok('group', 'create', 'Styled');
    expect(await ok('group', 'setprefix', 'Styled', '&6[VIP]', 'Gold', '')).toBe('prefix of Styled is now "&6[VIP] Gold "');
    expect(await ok('group', 'setsuffix', 'Styled', '&7★')).toBe('suffix of Styled is now "&7★"');
    expect(await group('Styled')).toMatchObject({ prefix: '&6[VIP] Gold ', suffix: '&7★' });
    expect(await ok('group', 'setprefix', 'Styled', '""')).toBe('prefix of Styled is now ""');
    expect(await ok('group', 'setsuffix', 'Styled', '')).toBe('suffix of Styled is now ""');
    expect(await group('Styled')).toMatchObject({ prefix: '', suffix: '' });
    expect(await fails('group', 'setprefix', 'Styled')).toMatch(/^missing the prefix \(give "" to clear it\); usage: perms group setprefix/);

    expect(await ok('group', 'setpriority', 'Styled', '50')).toBe('priority of Styled is now 50');
    expect(await ok('group', 'setweight', 'Styled', '-5')).toBe('weight of Styled is now -5');
    expect(await group('Styled')).toMatchObject({ priority: 50, weight: -5 });
    expect(await fails('group', 'setweight', 'Styled', '1.5')).toMatch(/^"1.5" is not a whole number; usage: perms group setweight/);
    expect(await fails('group', 'setpriority', 'Styled', '2000000')).toMatch(/priority must be a whole number between/);
  });

  test('addparent and removeparent change the parents through update, which refuses a cycle', async () => {
    await ok('group', 'create', 'Base');
    await ok('group', 'create', 'Middle');
    await ok('group', 'create', 'Top');
    expect(await ok('group', 'addparent', 'Middle', 'base')).toBe('Middle now inherits from Base');
    expect(await ok('group', 'addparent', 'Top', 'Middle')).toBe('Top now inherits from Middle');
    expect(await ok('group', 'addparent', 'Top', 'Default')).toBe('Top now inherits from Middle, Default');
    expect(await ok('group', 'addparent', 'Top', 'middle')).toBe('Top already inherits from Middle');
    expect((await group('Top')).parents).toEqual(['Middle', 'Default']);

    expect(await fails('group', 'addparent', 'Base', 'Top')).toBe('"Top" already inherits from "Base"; making it a parent would close a cycle');
    expect(await fails('group', 'addparent', 'Base', 'Base')).toBe('"Base" cannot be its own parent');
    expect(await fails('group', 'addparent', 'Base', 'Ghost')).toBe('parent "Ghost" is not a permission group');
    expect((await group('Base')).parents).toEqual([]);

    expect(await ok('group', 'removeparent', 'Top', 'MIDDLE')).toBe('Top now inherits from Default');
    expect(await ok('group', 'removeparent', 'Top', 'Default')).toBe('Top now inherits from none');
    expect((await group('Top')).parents).toEqual([]);
    expect(await fails('group', 'removeparent', 'Top', 'Default')).toBe('Top does not inherit from Default');
    // With the link gone, what was a cycle is allowed.
    expect(await ok('group', 'addparent', 'Base', 'Top')).toBe('Base now inherits from Top');
  });

  test('setdefault moves the default flag', async () => {
    await ok('group', 'create', 'Newcomer');
    expect(await ok('group', 'setdefault', 'Newcomer')).toBe('Newcomer is now the default group');
    expect((await group('Newcomer')).default).toBe(true);
    expect((await group('Default')).default).toBe(false);
    expect(await ok('group', 'setdefault', 'newcomer')).toBe('Newcomer is already the default group');
    expect(await ok('group', 'setdefault', 'Default')).toBe('Default is now the default group');
    expect((await group('Newcomer')).default).toBe(false);
    expect(await fails('group', 'setdefault', 'Nope')).toBe('no permission group named "Nope"');
  });

  test('meta set, list and remove', async () => {
    await ok('group', 'create', 'Meta');
    expect(await ok('group', 'meta', 'Meta', 'set', 'color', 'dark', 'gold')).toBe('meta color of Meta is now "dark gold"');
    expect(await ok('group', 'meta', 'Meta', 'set', 'rank', '3')).toBe('meta rank of Meta is now "3"');
    expect((await group('Meta')).meta).toEqual({ color: 'dark gold', rank: '3' });
    expect(await ok('group', 'meta', 'Meta', 'list')).toBe(['2 meta key(s) of Meta', 'color = "dark gold"', 'rank = "3"'].join('\n'));
    expect(await ok('group', 'meta', 'Meta', 'remove', 'rank')).toBe('removed meta rank from Meta');
    expect(await ok('group', 'meta', 'Meta', 'remove', 'rank')).toBe('Meta has no meta rank; nothing changed');
    expect((await group('Meta')).meta).toEqual({ color: 'dark gold' });
    expect(await fails('group', 'meta', 'Meta', 'set', 'bad key', 'x')).toMatch(/meta key "bad key" must be/);
    expect(await fails('group', 'meta', 'Meta', 'set', 'lonely')).toMatch(/^missing the key or the value; usage: perms group meta/);
    expect(await fails('group', 'meta', 'Meta', 'wipe')).toMatch(/^unknown meta action "wipe"/);
  });
});

describe('perms user', () => {
  test('list and info find players by name or by uuid in any spelling', async () => {
    const list = await ok('user', 'list');
    expect(list).toContain(`Alice (${ALICE})  groups Default, shown as Default`);
    expect(list).toContain(`Bob (${BOB})`);
    const some = await ok('user', 'list', 'LIC');
    expect(some.split('\n')).toEqual(['1 player(s) matching "LIC"', `Alice (${ALICE})  groups Default, shown as Default`]);

    const info = await ok('user', 'info', 'alice');
    expect(info.split('\n').slice(0, 3)).toEqual([`Alice (${ALICE})`, 'in Default', 'shown as Default: prefix "&9[User] &7", suffix "", priority 0']);
    const undashed = ALICE.replace(/-/g, '').toUpperCase();
    expect((await ok('user', 'info', undashed)).split('\n')[0]).toBe(`Alice (${ALICE})`);
    // A uuid the module has not stored still answers, with the default group only.
    expect((await ok('user', 'info', CAROL)).split('\n').slice(0, 2)).toEqual([`unknown (${CAROL})`, 'not stored by the permissions module yet: only the default group applies']);
    expect(await fails('user', 'info', 'Nobody')).toBe('the permissions module knows no player named "Nobody"; give their uuid, or wait until they have joined once');
  });

  test('addgroup with server and expiry, check with the reason, removegroup by scope', async () => {
    await ok('group', 'create', 'Builder');
    await ok('group', 'addperm', 'Builder', 'build.place', 'server=Lobby-1');
    const before = Date.now();
    expect(await ok('user', 'addgroup', 'Alice', 'builder', 'expires=2h', 'server=Lobby-1')).toMatch(/^Alice is in Builder \[server=Lobby-1 until \S+Z\]$/);
    const membership = (await player(ALICE)).memberships.find((m: { group: string }) => m.group === 'Builder');
    expect(membership.server).toBe('Lobby-1');
    expect(Date.parse(membership.expiresAt)).toBeGreaterThanOrEqual(before + 2 * HOUR);
    expect(Date.parse(membership.expiresAt)).toBeLessThanOrEqual(Date.now() + 2 * HOUR);
    const update = events.findLast((e) => e.type === 'PLAYER_PERMISSIONS_UPDATED' && e.data.uuid === ALICE);
    expect(update?.actor).toBe('api:admin');

    const allowed = await ok('user', 'check', 'Alice', 'Build.Place', 'server=Lobby-1');
    expect(allowed.split('\n').slice(0, 2)).toEqual(['Alice: build.place at server=Lobby-1 is allowed', "Granted by group 'Builder' (weight 0) via exact match on 'build.place'"]);
    expect(allowed).toContain('→ Builder: build.place (exact, weight 0) [server=Lobby-1]');
    const denied = await ok('user', 'check', ALICE, 'build.place');
    expect(denied.split('\n').slice(0, 2)).toEqual(['Alice: build.place is denied', "Denied — no permission node answers 'build.place'"]);
    expect(await fails('user', 'check', 'Alice', '-build.place')).toMatch(/^check asks about a node, not a negation/);

    expect(await ok('user', 'removegroup', 'Alice', 'Builder', 'server=Lobby-2')).toBe('Alice was not in Builder at server=Lobby-2; nothing changed');
    expect(await ok('user', 'removegroup', 'Alice', 'Builder', 'server=Lobby-1')).toBe('Alice left Builder at server=Lobby-1');
    expect((await player(ALICE)).groups).toEqual(['Default']);
    expect(await fails('user', 'removegroup', CAROL, 'Builder')).toMatch(/has no player 33333333-3333-4333-8333-333333333333/);
    expect(await fails('user', 'addgroup', 'Alice', 'Ghosts')).toBe('no permission group named "Ghosts"');
  });

  test('addgroup by uuid stores a player the module has not seen', async () => {
    const uuid = '44444444-4444-4444-8444-444444444444';
    expect(await ok('user', 'addgroup', uuid, 'Admin')).toBe(`unknown is in Admin`);
    expect((await player(uuid)).groups).toEqual(['Admin']);
  });

  test('promote and demote along a track', async () => {
    await ok('group', 'create', 'Rank1');
    await ok('group', 'create', 'Rank2');
    await ok('track', 'create', 'ranks', 'Default,Rank1', 'Rank2');
    expect(await ok('user', 'promote', 'Bob', 'ranks')).toBe('Bob promoted on ranks: Default → Rank1');
    expect(await ok('user', 'promote', 'bob', 'RANKS')).toBe('Bob promoted on ranks: Rank1 → Rank2');
    expect(await fails('user', 'promote', 'Bob', 'ranks')).toBe('Bob is already at the top of ranks');
    expect((await player(BOB)).groups).toEqual(['Rank2']);
    expect(await ok('user', 'demote', BOB, 'ranks')).toBe('Bob demoted on ranks: Rank2 → Rank1');
    expect((await player(BOB)).groups).toEqual(['Rank1']);
    const promoted = events.findLast((e) => e.type === 'PLAYER_PROMOTED');
    expect(promoted).toMatchObject({ actor: 'api:admin', data: { uuid: BOB, player: 'Bob', track: 'ranks', newGroup: 'Rank2' } });
    expect(await fails('user', 'demote', 'Bob', 'nowhere')).toBe('no track named "nowhere"');
  });

  test('meta set, list and remove', async () => {
    expect(await ok('user', 'meta', 'Alice', 'set', 'nick', 'The', 'Great')).toBe('meta nick of Alice is now "The Great"');
    expect(await ok('user', 'meta', ALICE, 'list')).toBe(['1 meta key(s) of Alice', 'nick = "The Great"'].join('\n'));
    expect((await player(ALICE)).meta).toEqual({ nick: 'The Great' });
    expect(await ok('user', 'meta', 'Alice', 'remove', 'nick')).toBe('removed meta nick from Alice');
    expect(await ok('user', 'meta', 'Alice', 'remove', 'nick')).toBe('Alice has no meta nick; nothing changed');
    expect(await fails('user', 'meta', CAROL, 'set', 'a', 'b')).toMatch(/has no player/);
  });
});

describe('perms track', () => {
  test('create, list, info and delete', async () => {
    await ok('group', 'create', 'StaffA');
    await ok('group', 'create', 'StaffB');
    expect(await ok('track', 'create', 'staff', 'StaffA,staffb')).toBe('created track staff: StaffA → StaffB');
    expect(await ok('track', 'list')).toContain('staff: StaffA → StaffB');
    expect(await ok('track', 'info', 'STAFF')).toBe(['track staff, lowest rank first', '1. StaffA', '2. StaffB'].join('\n'));
    expect(await fails('track', 'create', 'solo', 'StaffA')).toBe('a track needs at least 2 groups, lowest rank first');
    expect(await fails('track', 'create', 'staff', 'StaffA,StaffB')).toBe('a track named "staff" already exists');
    expect(await ok('track', 'delete', 'staff')).toBe('deleted track staff');
    expect((await c.api('/api/permissions/tracks/staff')).status).toBe(404);
    expect(await fails('track', 'delete', 'staff')).toBe('no track named "staff"');
  });
});

describe('perms audit', () => {
  test('newest first, with the actor the service recorded; the limit is clamped', async () => {
    await ok('group', 'create', 'Audited');
    // The local console's actor is "console".
    const lines: OutputLine[] = [];
    const command = c.controller.kernel.commands.find('perms')!;
    const result = await c.controller.kernel.commands.run(command, { args: ['group', 'setweight', 'Audited', '7'], actor: 'console', caller: 'test' }, (l) => lines.push(l));
    expect(result).toEqual({ success: true });
    expect(lines).toEqual([{ kind: 'success', text: 'weight of Audited is now 7' }]);

    const two = (await ok('audit', '2')).split('\n');
    expect(two[0]).toMatch(/^2 of \d+ audit entries, newest first$/);
    expect(two[1]).toMatch(/^\S+Z {2}console {2}group\.update Audited {2}weight$/);
    expect(two[2]).toMatch(/^\S+Z {2}api:admin {2}group\.create Audited$/);
    expect((await ok('audit', '0')).split('\n')).toHaveLength(2);
    const all = (await ok('audit', '100000')).split('\n');
    const total = Number(/^\d+ of (\d+)/.exec(all[0]!)![1]);
    expect(all).toHaveLength(Math.min(total, 500) + 1);
    expect((await ok('audit')).split('\n')).toHaveLength(Math.min(total, 50) + 1);
  });
});
