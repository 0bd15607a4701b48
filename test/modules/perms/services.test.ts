import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { EventBus } from '../../../src/events/bus';
import type { SvcEvent } from '../../../src/events/catalogue';
import type { Kernel } from '../../../src/kernel';
import { createLogger } from '../../../src/log';
import type { Author } from '../../../src/modules/perms/author';
import { ExpirySweeper } from '../../../src/modules/perms/expiry';
import perms0001 from '../../../src/modules/perms/migrations/0001_perms.sql' with { type: 'text' };
import { PermsRuntime } from '../../../src/modules/perms/runtime';
import { PermState } from '../../../src/modules/perms/state';
import { PermStore } from '../../../src/modules/perms/store';
import type { Grant, Membership } from '../../../src/modules/perms/types';
import { openDatabase, type Database } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { tempDir } from '../../support/controller';
import { expectApiError, UUID_A, UUID_B, UUID_C } from './builders';

/**
 * The services over a real sqlite file, with a clock the tests move. The kernel is a stand-in
 * holding only what the module reads from it (the database and the event bus).
 */

/** The controller's terminal, which is the operator; and a plugin's token, which is not. */
const CONSOLE: Author = { actor: 'console', admin: true };
const PLUGIN: Author = { actor: 'api:service', admin: false };

const T0 = Date.parse('2026-06-01T12:00:00Z');
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });

let dir: ReturnType<typeof tempDir>;
let file: string;
let db: Database;
let clock: number;
let events: SvcEvent[];
let rt: PermsRuntime;
const sweepers: ExpirySweeper[] = [];

function open(): void {
  db = openDatabase(file);
  migrate(db, 'perms', [{ version: 1, name: 'perms', sql: perms0001 }]);
  const bus = new EventBus();
  bus.subscribe((event) => events.push(event));
  rt = new PermsRuntime({ db, bus } as unknown as Kernel, log, () => clock);
}

beforeEach(() => {
  dir = tempDir('svc-perms-');
  file = join(dir.dir, 'svc.db');
  clock = T0;
  events = [];
  open();
});
afterEach(() => {
  for (const sweeper of sweepers.splice(0)) sweeper.stop();
  db.close();
  dir.remove();
});

/** The model as a second connection reads it from the file: what a restart would load. */
function fromDisk(): PermState {
  const other = openDatabase(file);
  try {
    const state = new PermState(new PermStore(other));
    state.load();
    return state;
  } finally {
    other.close();
  }
}

const byId = <T extends { id: number }>(list: T[]) => [...list].sort((a, b) => a.id - b.id);

/** Memory holds exactly what a restart would load (group order is checked on its own, below). */
function expectSurvivesReload(): void {
  const disk = fromDisk();
  expect(byId(disk.groups())).toEqual(byId(rt.state.groups()));
  expect([...disk.players()]).toEqual([...rt.state.players()]);
  expect(disk.tracks()).toEqual(rt.state.tracks());
  expect(disk.snapshot().defaultGroup).toBe(rt.state.snapshot().defaultGroup);
  const again = new PermState(rt.store);
  again.load();
  expect(byId(again.groups())).toEqual(byId(rt.state.groups()));
}

const grantsOf = (name: string, node?: string): Grant[] => rt.state.group(name).grants.filter((g) => node === undefined || g.node === node);
const membershipsOf = (uuid: string): Membership[] => rt.state.player(uuid)?.memberships ?? [];
const groupsOf = (uuid: string) => membershipsOf(uuid).map((m) => m.group);
const unscoped = { server: '', world: '', expiresAt: null };
const audit = () => rt.store.auditPage({}, 500, 0).rows;
const sweeper = () => {
  const s = new ExpirySweeper(rt.changes, log);
  sweepers.push(s);
  return s;
};

describe('bootstrap', () => {
  test('a first start creates Default (the default) and Admin with *, once', () => {
    expect(rt.state.groups().map((g) => ({ name: g.name, isDefault: g.isDefault, prefix: g.prefix, priority: g.priority, weight: g.weight, grants: g.grants }))).toEqual([
      { name: 'Default', isDefault: true, prefix: '&9[User] &7', priority: 0, weight: 0, grants: [] },
      { name: 'Admin', isDefault: false, prefix: '&c[Admin] &7', priority: 100, weight: 100, grants: [{ node: '*', ...unscoped }] },
    ]);
    expect(rt.state.defaultGroup()?.name).toBe('Default');
    expect(audit().map((r) => [r.actor, r.action, r.target])).toEqual([
      ['system', 'group.create', 'Admin'],
      ['system', 'group.create', 'Default'],
    ]);
    expect(rt.groups.bootstrap()).toBe(false);
    db.close();
    open();
    expect(rt.state.groups().map((g) => g.name)).toEqual(['Default', 'Admin']);
    expect(audit()).toHaveLength(2);
  });

  test('a network that deleted Admin does not get it back on the next start', () => {
    rt.groups.delete('Admin', CONSOLE);
    db.close();
    open();
    expect(rt.state.groups().map((g) => g.name)).toEqual(['Default']);
  });
});

describe('reload', () => {
  // The group list (GET /groups) is served in this order: an edit must not move a group to
  // the end of it when a restart would list it in its place again.
  test('an edited group keeps its place in the list, as a restart loads it', () => {
    rt.groups.create('VIP', false, CONSOLE);
    rt.groups.addPermission('Default', 'chat', {}, CONSOLE);
    expect(rt.state.groups().map((g) => g.name)).toEqual(fromDisk().groups().map((g) => g.name));
    expect(rt.state.groups().map((g) => g.name)).toEqual(['Default', 'Admin', 'VIP']);
  });
});

describe('group permissions', () => {
  test('a scoped grant replaces the unscoped row, and an unscoped one replaces every scoped row', () => {
    rt.groups.addPermission('Default', 'Essentials.Fly', {}, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'essentials.fly', ...unscoped }]);
    rt.groups.addPermission('default', 'essentials.fly', { server: 'Lobby-1' }, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'essentials.fly', server: 'Lobby-1', world: '', expiresAt: null }]);
    rt.groups.addPermission('Default', 'essentials.fly', { world: 'nether', expiresAt: T0 + 60_000 }, CONSOLE);
    expect(grantsOf('Default')).toEqual([
      { node: 'essentials.fly', server: 'Lobby-1', world: '', expiresAt: null },
      { node: 'essentials.fly', server: '', world: 'nether', expiresAt: T0 + 60_000 },
    ]);
    expectSurvivesReload();
    rt.groups.addPermission('Default', 'essentials.fly', {}, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'essentials.fly', ...unscoped }]);
    expectSurvivesReload();
  });

  test('an expiry-only grant replaces the unscoped row and the other way round', () => {
    rt.groups.addPermission('Default', 'kit.daily', {}, CONSOLE);
    rt.groups.addPermission('Default', 'kit.daily', { expiresAt: T0 + 1000 }, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'kit.daily', server: '', world: '', expiresAt: T0 + 1000 }]);
    rt.groups.addPermission('Default', 'kit.daily', {}, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'kit.daily', ...unscoped }]);
    expectSurvivesReload();
  });

  test('re-adding the same server and world (any case) only updates the expiry', () => {
    rt.groups.addPermission('Default', 'fly', { server: 'Lobby-1', expiresAt: T0 + 1000 }, CONSOLE);
    rt.groups.addPermission('Default', 'fly', { server: 'lobby-1', expiresAt: T0 + 5000 }, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'fly', server: 'Lobby-1', world: '', expiresAt: T0 + 5000 }]);
    rt.groups.addPermission('Default', 'fly', { server: 'Lobby-1' }, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'fly', server: 'Lobby-1', world: '', expiresAt: null }]);
    rt.groups.addPermission('Default', 'fly', { server: 'Lobby-1' }, CONSOLE);
    expect(grantsOf('Default')).toEqual([{ node: 'fly', server: 'Lobby-1', world: '', expiresAt: null }]);
    expectSurvivesReload();
  });

  test('a bad node, scope or group changes nothing', () => {
    const before = rt.state.groups();
    const eventsBefore = events.length;
    expectApiError(() => rt.groups.addPermission('Default', 'a..b', {}, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.addPermission('Default', 'fly', { expiresAt: T0 }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.addPermission('Default', 'fly', { server: 'a b' }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.addPermission('Nope', 'fly', {}, CONSOLE), 'PERMISSION_GROUP_NOT_FOUND');
    expect(rt.state.groups()).toEqual(before);
    expect(events.length).toBe(eventsBefore);
  });

  test('removing a node: every scope, or only the one named', () => {
    rt.groups.addPermission('Default', 'fly', { server: 'Lobby-1' }, CONSOLE);
    rt.groups.addPermission('Default', 'fly', { server: 'Lobby-2' }, CONSOLE);
    expect(rt.groups.removePermission('Default', 'FLY', { server: 'LOBBY-2' }, CONSOLE)).toBe(true);
    expect(grantsOf('Default')).toEqual([{ node: 'fly', server: 'Lobby-1', world: '', expiresAt: null }]);
    expect(rt.groups.removePermission('Default', 'fly', undefined, CONSOLE)).toBe(true);
    expect(grantsOf('Default')).toEqual([]);
    const eventsBefore = events.length;
    expect(rt.groups.removePermission('Default', 'fly', undefined, CONSOLE)).toBe(false);
    expect(events.length).toBe(eventsBefore);
    expectSurvivesReload();
  });
});

describe('update (PUT)', () => {
  test('listed nodes keep their scopes, missing ones go, new ones come unscoped; parents and meta are replaced', () => {
    rt.groups.create('VIP', false, CONSOLE);
    rt.groups.create('Staff', false, CONSOLE);
    rt.groups.addPermission('VIP', 'fly', { server: 'Lobby-1', expiresAt: T0 + 60_000 }, CONSOLE);
    rt.groups.addPermission('VIP', 'fly', { world: 'nether' }, CONSOLE);
    rt.groups.addPermission('VIP', 'kit.vip', {}, CONSOLE);
    rt.groups.addPermission('VIP', 'old.node', { server: 'Lobby-2' }, CONSOLE);
    rt.groups.update('VIP', { parents: ['Default'], meta: { a: '1', b: '2' } }, CONSOLE);
    events.length = 0;

    const updated = rt.groups.update('vip', { permissions: ['FLY', 'kit.vip', 'New.Node', 'new.node'], parents: ['staff'], meta: { c: '3' }, prefix: '&6[VIP] ', weight: 10, priority: 5 }, { actor: 'api:admin', admin: true });
    expect(updated.grants).toEqual([
      { node: 'fly', server: 'Lobby-1', world: '', expiresAt: T0 + 60_000 },
      { node: 'fly', server: '', world: 'nether', expiresAt: null },
      { node: 'kit.vip', ...unscoped },
      { node: 'new.node', ...unscoped },
    ]);
    expect(updated.parents).toEqual(['staff']);
    expect(updated.meta).toEqual({ c: '3' });
    expect([updated.prefix, updated.weight, updated.priority, updated.suffix]).toEqual(['&6[VIP] ', 10, 5, '']);
    expect(events.map((e) => [e.type, e.data, e.actor])).toEqual([['PERMISSION_GROUP_UPDATED', { group: 'VIP', moduleId: 'perms' }, 'api:admin']]);
    expectSurvivesReload();
  });

  test('an empty permissions list removes every node; absent fields stay', () => {
    rt.groups.addPermission('Admin', 'extra', {}, CONSOLE);
    const updated = rt.groups.update('Admin', { permissions: [] }, CONSOLE);
    expect(updated.grants).toEqual([]);
    expect([updated.prefix, updated.priority, updated.weight]).toEqual(['&c[Admin] &7', 100, 100]);
    expectSurvivesReload();
  });

  test('cycles, unknown parents, invalid nodes and unsetting the default are refused and change nothing', () => {
    for (const name of ['A', 'B', 'C']) rt.groups.create(name, false, CONSOLE);
    rt.groups.update('A', { parents: ['B'] }, CONSOLE);
    rt.groups.update('B', { parents: ['C'] }, CONSOLE);
    const before = rt.state.groups();
    const eventsBefore = events.length;
    expectApiError(() => rt.groups.update('B', { parents: ['A'] }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('C', { parents: ['a'] }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('A', { parents: ['A'] }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('A', { parents: ['Missing'] }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('A', { permissions: ['ok', 'a*'], prefix: 'changed' }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('A', { meta: { 'bad key': 'x' } }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('A', { weight: 1.5 }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('A', { prefix: 'two\nlines' }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('Default', { default: false }, CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.update('A', {}, CONSOLE), 'NO_FIELDS_TO_UPDATE');
    expectApiError(() => rt.groups.update('Missing', { weight: 1 }, CONSOLE), 'PERMISSION_GROUP_NOT_FOUND');
    expect(rt.state.groups()).toEqual(before);
    expect(events.length).toBe(eventsBefore);
    // Parents that make no cycle, given twice, are kept once.
    expect(rt.groups.update('C', { parents: ['Default', 'default'] }, CONSOLE).parents).toEqual(['default']);
    expectSurvivesReload();
  });

  test('making another group the default moves the mark; the old default can then be unset no more', () => {
    rt.groups.create('VIP', false, CONSOLE);
    rt.groups.update('VIP', { default: true }, CONSOLE);
    expect(rt.state.defaultGroup()?.name).toBe('VIP');
    expect(rt.state.group('Default').isDefault).toBe(false);
    expect(rt.state.groups().filter((g) => g.isDefault).map((g) => g.name)).toEqual(['VIP']);
    expect(rt.groups.update('Default', { default: false }, CONSOLE).isDefault).toBe(false);
    expectSurvivesReload();
    rt.groups.create('Newbie', true, CONSOLE);
    expect(rt.state.groups().filter((g) => g.isDefault).map((g) => g.name)).toEqual(['Newbie']);
    expectSurvivesReload();
  });
});

describe('expiry', () => {
  test('the sweep deletes expired grants and memberships with their rows; after a reload they are gone, not permanent', () => {
    rt.groups.create('VIP', false, CONSOLE);
    rt.groups.addPermission('VIP', 'fly', { expiresAt: T0 + 60_000 }, CONSOLE);
    rt.groups.addPermission('Default', 'kit.daily', { server: 'Lobby-1', expiresAt: T0 + 60_000 }, CONSOLE);
    rt.groups.addPermission('Default', 'kit.weekly', { expiresAt: T0 + 120_000 }, CONSOLE);
    rt.groups.addPermission('Default', 'chat', {}, CONSOLE);
    rt.players.register(UUID_A, 'Alice', {}, PLUGIN);
    rt.players.addGroup(UUID_A, 'VIP', { expiresAt: T0 + 60_000 }, undefined, CONSOLE);
    rt.players.addGroup(UUID_B, 'Admin', { server: 'Lobby-1', expiresAt: T0 + 60_000 }, 'Bob', CONSOLE);
    expect(rt.players.check(UUID_A, 'fly', {})).toBe(true);
    expect(rt.players.check(UUID_A, 'kit.daily', { server: 'Lobby-1' })).toBe(true);

    // One ms before: nothing goes.
    clock = T0 + 59_999;
    const s = sweeper();
    events.length = 0;
    s.sweep();
    expect(events).toEqual([]);
    expect(grantsOf('VIP', 'fly')).toHaveLength(1);

    // At the expiry: resolution already ignores the rows, the sweep deletes them.
    clock = T0 + 60_000;
    expect(rt.players.check(UUID_A, 'fly', {})).toBe(false);
    const auditBefore = audit().length;
    s.sweep();
    expect(grantsOf('VIP')).toEqual([]);
    expect(grantsOf('Default').map((g) => g.node)).toEqual(['kit.weekly', 'chat']);
    expect(groupsOf(UUID_A)).toEqual(['default']);
    expect(groupsOf(UUID_B)).toEqual([]);
    expect(events.map((e) => `${e.actor} ${e.type} ${JSON.stringify(e.data)}`).sort()).toEqual(
      [
        `system PERMISSION_GROUP_UPDATED ${JSON.stringify({ group: 'Default', moduleId: 'perms' })}`,
        `system PERMISSION_GROUP_UPDATED ${JSON.stringify({ group: 'VIP', moduleId: 'perms' })}`,
        `system PLAYER_PERMISSIONS_UPDATED ${JSON.stringify({ uuid: UUID_A, player: 'Alice', moduleId: 'perms' })}`,
        `system PLAYER_PERMISSIONS_UPDATED ${JSON.stringify({ uuid: UUID_B, player: 'Bob', moduleId: 'perms' })}`,
      ].sort(),
    );
    const written = audit().slice(0, audit().length - auditBefore);
    expect(written.every((r) => r.actor === 'system' && r.at === T0 + 60_000)).toBe(true);
    expect(written.map((r) => [r.action, r.target, r.details]).sort()).toEqual(
      [
        ['group.expireperm', 'VIP', 'fly'],
        ['group.expireperm', 'Default', 'kit.daily server=Lobby-1'],
        ['user.expiregroup', 'Alice', 'VIP'],
        ['user.expiregroup', 'Bob', 'Admin server=Lobby-1'],
      ].sort(),
    );

    // A restart long after: the rows are gone, nothing came back as a permanent grant.
    expectSurvivesReload();
    db.close();
    clock = T0 + 10 * 86_400_000;
    open();
    expect(grantsOf('VIP')).toEqual([]);
    expect(rt.state.group('Default').grants.map((g) => g.node)).toEqual(['kit.weekly', 'chat']);
    expect(groupsOf(UUID_A)).toEqual(['default']);
    expect(groupsOf(UUID_B)).toEqual([]);
    for (const where of [{}, { server: 'Lobby-1' }]) {
      expect(rt.players.check(UUID_A, 'fly', where)).toBe(false);
      expect(rt.players.check(UUID_A, 'kit.daily', where)).toBe(false);
      expect(rt.players.check(UUID_B, 'anything', where)).toBe(false);
      expect(rt.players.check(UUID_A, 'chat', where)).toBe(true);
    }
  });

  test('a sweep with nothing expired writes and announces nothing', () => {
    rt.groups.addPermission('Default', 'fly', { expiresAt: T0 + 1000 }, CONSOLE);
    const auditBefore = audit().length;
    events.length = 0;
    sweeper().sweep();
    expect(events).toEqual([]);
    expect(audit().length).toBe(auditBefore);
    expect(grantsOf('Default', 'fly')).toHaveLength(1);
  });
});

describe('expiry sweep without work', () => {
  // The sweep runs at least once a minute; with nothing expired it must not throw away every
  // player's cached answer (a network's worth of recomputation per minute).
  test('a sweep with nothing expired keeps the cached answers', () => {
    rt.players.register(UUID_A, 'Alice', {}, PLUGIN);
    const cached = rt.state.resolution(UUID_A, {}, clock);
    expect(rt.state.resolution(UUID_A, {}, clock)).toBe(cached);
    sweeper().sweep();
    expect(rt.state.resolution(UUID_A, {}, clock)).toBe(cached);
  });
});

describe('deleting a group', () => {
  test("it leaves players' groups, other groups' parents and tracks; the default cannot be deleted", () => {
    for (const name of ['VIP', 'Staff', 'Mod']) rt.groups.create(name, false, CONSOLE);
    rt.groups.update('Staff', { parents: ['VIP', 'Default'] }, CONSOLE);
    rt.groups.update('Mod', { parents: ['Staff'] }, CONSOLE);
    rt.players.register(UUID_A, 'Alice', {}, CONSOLE);
    rt.players.addGroup(UUID_A, 'VIP', { server: 'Lobby-1' }, undefined, CONSOLE);
    rt.players.addGroup(UUID_A, 'Staff', {}, undefined, CONSOLE);
    rt.players.addGroup(UUID_B, 'VIP', {}, 'Bob', CONSOLE);
    rt.tracks.create('ladder', ['Default', 'VIP', 'Staff'], CONSOLE);
    events.length = 0;

    rt.groups.delete('vip', CONSOLE);
    expect(rt.state.findGroup('VIP')).toBeUndefined();
    expect(groupsOf(UUID_A)).toEqual(['default', 'staff']);
    expect(groupsOf(UUID_B)).toEqual([]);
    expect(rt.state.group('Staff').parents).toEqual(['default']);
    expect(rt.state.group('Mod').parents).toEqual(['staff']);
    expect(rt.state.track('ladder').groups).toEqual(['default', 'staff']);
    expect(events.map((e) => [e.type, e.data])).toEqual([['PERMISSION_GROUP_DELETED', { group: 'VIP', moduleId: 'perms' }]]);
    expectSurvivesReload();

    expectApiError(() => rt.groups.delete('Default', CONSOLE), 'VALIDATION_FAILED');
    expectApiError(() => rt.groups.delete('VIP', CONSOLE), 'PERMISSION_GROUP_NOT_FOUND');
  });
});

describe('players', () => {
  test('register gives the default group to a new player only, and renames a known one without an event', () => {
    const view = rt.players.register(UUID_A, 'Alice', {}, PLUGIN);
    expect(view.name).toBe('Alice');
    expect(membershipsOf(UUID_A)).toEqual([{ group: 'default', ...unscoped }]);
    expect(events).toEqual([]);

    expect(rt.players.removeGroup(UUID_A, 'Default', undefined, CONSOLE)).toBe(true);
    events.length = 0;
    rt.players.register(UUID_A, 'Alice2', {}, PLUGIN);
    expect(rt.state.player(UUID_A)?.name).toBe('Alice2');
    expect(membershipsOf(UUID_A)).toEqual([]);
    expect(events).toEqual([]);

    // Someone added to a group before their first join is not new on joining.
    rt.players.addGroup(UUID_B, 'Admin', {}, undefined, CONSOLE);
    expect(rt.state.player(UUID_B)?.name).toBe('unknown');
    rt.players.register(UUID_B, 'Bob', {}, PLUGIN);
    expect(groupsOf(UUID_B)).toEqual(['admin']);
    expect(rt.state.player(UUID_B)?.name).toBe('Bob');
    expectSurvivesReload();
  });

  test('group memberships follow the same scope rules as grants', () => {
    rt.groups.create('VIP', false, CONSOLE);
    rt.players.addGroup(UUID_A, 'VIP', {}, 'Alice', CONSOLE);
    rt.players.addGroup(UUID_A, 'vip', { server: 'Lobby-1', expiresAt: T0 + 5000 }, undefined, CONSOLE);
    expect(membershipsOf(UUID_A)).toEqual([{ group: 'vip', server: 'Lobby-1', world: '', expiresAt: T0 + 5000 }]);
    rt.players.addGroup(UUID_A, 'VIP', { server: 'LOBBY-1' }, undefined, CONSOLE);
    expect(membershipsOf(UUID_A)).toEqual([{ group: 'vip', server: 'Lobby-1', world: '', expiresAt: null }]);
    rt.players.addGroup(UUID_A, 'VIP', {}, undefined, CONSOLE);
    expect(membershipsOf(UUID_A)).toEqual([{ group: 'vip', ...unscoped }]);
    expectApiError(() => rt.players.addGroup(UUID_A, 'Nope', {}, undefined, CONSOLE), 'PERMISSION_GROUP_NOT_FOUND');
    expectApiError(() => rt.players.removeGroup(UUID_C, 'VIP', undefined, CONSOLE), 'PLAYER_NOT_FOUND');
    expectSurvivesReload();
  });
});

describe('answers follow every change at once', () => {
  test('group edits, memberships and scopes show in the next check, for known and unknown players', () => {
    rt.players.register(UUID_A, 'Alice', {}, PLUGIN);
    expect(rt.players.check(UUID_A, 'fly', {})).toBe(false);
    expect(rt.players.check(UUID_C, 'fly', {})).toBe(false);
    rt.groups.addPermission('Default', 'fly', {}, CONSOLE);
    expect(rt.players.check(UUID_A, 'fly', {})).toBe(true);
    expect(rt.players.check(UUID_C, 'fly', {})).toBe(true);
    rt.groups.create('Muted', false, CONSOLE);
    rt.groups.update('Muted', { weight: 5, permissions: ['-fly'] }, CONSOLE);
    rt.players.addGroup(UUID_C, 'Muted', { server: 'Lobby-1' }, 'Carol', CONSOLE);
    expect(rt.players.check(UUID_C, 'fly', {})).toBe(true);
    expect(rt.players.check(UUID_C, 'fly', { server: 'lobby-1' })).toBe(false);
    expect(rt.players.effective(UUID_C, { server: 'Lobby-1' })).toEqual(['-fly']);
    expect(rt.players.removeGroup(UUID_C, 'Muted', { server: 'Lobby-1' }, CONSOLE)).toBe(true);
    expect(rt.players.check(UUID_C, 'fly', { server: 'Lobby-1' })).toBe(true);
    rt.groups.update('Default', { permissions: [] }, CONSOLE);
    expect(rt.players.check(UUID_A, 'fly', {})).toBe(false);
    expect(rt.players.debug(UUID_A, 'fly', {})).toEqual({ allowed: false, reason: "Denied — no permission node answers 'fly'", chain: [] });
  });
});

describe('tracks', () => {
  const members = () => ({ uuid: UUID_A, before: new Set(groupsOf(UUID_A)) });
  /** The groups left and joined since `before`. */
  const swapped = (before: Set<string>) => {
    const after = new Set(groupsOf(UUID_A));
    return { left: [...before].filter((g) => !after.has(g)), joined: [...after].filter((g) => !before.has(g)) };
  };

  beforeEach(() => {
    rt.groups.create('VIP', false, CONSOLE);
    rt.groups.create('Staff', false, CONSOLE);
    rt.groups.create('Builder', false, CONSOLE);
    rt.tracks.create('Ladder', ['Default', 'VIP', 'Staff'], CONSOLE);
    rt.players.register(UUID_A, 'Alice', {}, PLUGIN);
    events.length = 0;
  });

  test('promote and demote swap exactly one group and name the previous one', () => {
    rt.players.addGroup(UUID_A, 'Builder', {}, undefined, CONSOLE);
    events.length = 0;
    let m = members();
    expect(rt.tracks.promote('ladder', UUID_A, CONSOLE)).toEqual({ success: true, previousGroup: 'Default', newGroup: 'VIP', message: 'Alice promoted on Ladder: Default → VIP' });
    expect(swapped(m.before)).toEqual({ left: ['default'], joined: ['vip'] });
    expect(events.map((e) => [e.type, e.data, e.actor])).toEqual([
      ['PLAYER_PROMOTED', { uuid: UUID_A, player: 'Alice', track: 'Ladder', newGroup: 'VIP', moduleId: 'perms' }, 'console'],
      ['PLAYER_PERMISSIONS_UPDATED', { uuid: UUID_A, player: 'Alice', moduleId: 'perms' }, 'console'],
    ]);

    m = members();
    expect(rt.tracks.promote('Ladder', UUID_A, CONSOLE)).toMatchObject({ success: true, previousGroup: 'VIP', newGroup: 'Staff' });
    expect(swapped(m.before)).toEqual({ left: ['vip'], joined: ['staff'] });

    m = members();
    events.length = 0;
    expect(rt.tracks.promote('Ladder', UUID_A, CONSOLE)).toEqual({ success: false, previousGroup: 'Staff', newGroup: null, message: 'Alice is already at the top of Ladder' });
    expect(swapped(m.before)).toEqual({ left: [], joined: [] });
    expect(events).toEqual([]);

    m = members();
    expect(rt.tracks.demote('Ladder', UUID_A, CONSOLE)).toMatchObject({ success: true, previousGroup: 'Staff', newGroup: 'VIP' });
    expect(swapped(m.before)).toEqual({ left: ['staff'], joined: ['vip'] });
    expect(events.map((e) => e.type)).toEqual(['PLAYER_DEMOTED', 'PLAYER_PERMISSIONS_UPDATED']);

    rt.tracks.demote('Ladder', UUID_A, CONSOLE);
    expect(rt.tracks.demote('Ladder', UUID_A, CONSOLE)).toMatchObject({ success: false, previousGroup: 'Default', newGroup: null });
    expect(groupsOf(UUID_A).sort()).toEqual(['builder', 'default']);
    expect(audit().filter((r) => r.action.startsWith('user.')).map((r) => [r.action, r.details]).slice(0, 2)).toEqual([
      ['user.demote', 'Ladder: VIP → Default'],
      ['user.demote', 'Ladder: Staff → VIP'],
    ]);
    expectSurvivesReload();
  });

  test('a player holding two track groups moves from the highest; the lower one stays', () => {
    rt.players.addGroup(UUID_A, 'Staff', {}, undefined, CONSOLE);
    expect(rt.tracks.promote('Ladder', UUID_A, CONSOLE)).toMatchObject({ success: false, previousGroup: 'Staff' });
    const m = members();
    expect(rt.tracks.demote('Ladder', UUID_A, CONSOLE)).toMatchObject({ success: true, previousGroup: 'Staff', newGroup: 'VIP' });
    expect(swapped(m.before)).toEqual({ left: ['staff'], joined: ['vip'] });
    expect(groupsOf(UUID_A)).toContain('default');
  });

  test('off the track: promote gives the bottom group with no previous one, demote is refused', () => {
    rt.players.removeGroup(UUID_A, 'Default', undefined, CONSOLE);
    expect(rt.tracks.demote('Ladder', UUID_A, CONSOLE)).toEqual({ success: false, previousGroup: null, newGroup: null, message: 'Alice holds no group of Ladder' });
    expect(rt.tracks.promote('Ladder', UUID_A, CONSOLE)).toMatchObject({ success: true, previousGroup: null, newGroup: 'Default' });
    expect(groupsOf(UUID_A)).toEqual(['default']);
  });

  test('every scope of the group left goes; the group joined is held unscoped', () => {
    rt.players.addGroup(UUID_A, 'VIP', { server: 'Lobby-1' }, undefined, CONSOLE);
    rt.players.addGroup(UUID_A, 'VIP', { world: 'nether', expiresAt: T0 + 1000 }, undefined, CONSOLE);
    rt.players.addGroup(UUID_A, 'Staff', { server: 'Lobby-2' }, undefined, CONSOLE);
    // Staff (scoped) is the highest: demote to VIP.
    expect(rt.tracks.demote('Ladder', UUID_A, CONSOLE)).toMatchObject({ success: true, previousGroup: 'Staff', newGroup: 'VIP' });
    expect(membershipsOf(UUID_A)).toEqual([
      { group: 'default', ...unscoped },
      { group: 'vip', ...unscoped },
    ]);
    expectSurvivesReload();
  });

  test('an unknown player or track is refused', () => {
    expectApiError(() => rt.tracks.promote('Ladder', UUID_C, CONSOLE), 'PLAYER_NOT_FOUND');
    expectApiError(() => rt.tracks.demote('Nope', UUID_A, CONSOLE), 'PERMISSION_TRACK_NOT_FOUND');
  });
});

describe('bulk', () => {
  const itemError = /^[^:]+: .+$/;

  test('one node to many groups: the unknown ones are listed as "item: why", the rest done', () => {
    rt.groups.create('VIP', false, CONSOLE);
    events.length = 0;
    const result = rt.bulk.addPermission(['Default', 'nope', 'vip', 'Also-Nope'], 'Bulk.Node', { server: 'Lobby-1' }, CONSOLE);
    expect(result).toEqual({ success: false, processed: 2, failed: 2, errors: ['nope: no permission group by that name', 'Also-Nope: no permission group by that name'] });
    for (const error of result.errors) expect(error).toMatch(itemError);
    expect(grantsOf('Default', 'bulk.node')).toEqual([{ node: 'bulk.node', server: 'Lobby-1', world: '', expiresAt: null }]);
    expect(grantsOf('VIP', 'bulk.node')).toHaveLength(1);
    expect(events.map((e) => e.data.group).sort()).toEqual(['Default', 'VIP']);
    expect(audit()[0]).toMatchObject({ action: 'bulk.addperm', details: 'bulk.node server=Lobby-1' });

    expect(rt.bulk.addPermission(['Default', 'VIP'], 'bulk.node', {}, CONSOLE)).toEqual({ success: true, processed: 2, failed: 0, errors: [] });
    expect(grantsOf('Default', 'bulk.node')).toEqual([{ node: 'bulk.node', ...unscoped }]);
    expectApiError(() => rt.bulk.addPermission(['Default'], 'bad node', {}, CONSOLE), 'VALIDATION_FAILED');
    expectSurvivesReload();
  });

  test('one group to many players: bad uuids are listed, unknown players are stored', () => {
    rt.players.register(UUID_A, 'Alice', {}, PLUGIN);
    events.length = 0;
    const result = rt.bulk.addGroup([UUID_A, 'not-a-uuid', UUID_B.toUpperCase(), UUID_B, ''], 'Admin', {}, CONSOLE);
    expect(result).toEqual({ success: false, processed: 2, failed: 2, errors: ['not-a-uuid: not a UUID', ': not a UUID'] });
    expect(result.errors[0]).toMatch(itemError);
    expect(groupsOf(UUID_A)).toEqual(['default', 'admin']);
    expect(groupsOf(UUID_B)).toEqual(['admin']);
    expect(rt.state.player(UUID_B)?.name).toBe('unknown');
    expect(events.map((e) => [e.type, e.data.uuid, e.data.player])).toEqual([
      ['PLAYER_PERMISSIONS_UPDATED', UUID_A, 'Alice'],
      ['PLAYER_PERMISSIONS_UPDATED', UUID_B, 'unknown'],
    ]);
    expect(rt.players.check(UUID_B, 'anything.at.all', {})).toBe(true);
    expectApiError(() => rt.bulk.addGroup([UUID_C], 'Nope', {}, CONSOLE), 'PERMISSION_GROUP_NOT_FOUND');
    expect(rt.state.player(UUID_C)).toBeUndefined();
    expectSurvivesReload();
  });
});
