/**
 * Only an admin hands out admin: every service path that can grant (memberships, temporary and
 * scoped ones too, group nodes, parents, the default group, weights, tracks, bulk) over a real
 * sqlite file, by an author without admin (refused, rolled back, nothing announced) and by one
 * with it (done). What hands out nothing passes for both.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ApiError } from '../../../src/errors';
import { EventBus } from '../../../src/events/bus';
import type { SvcEvent } from '../../../src/events/catalogue';
import type { Kernel } from '../../../src/kernel';
import { createLogger } from '../../../src/log';
import type { Author } from '../../../src/modules/perms/author';
import { ExpirySweeper } from '../../../src/modules/perms/expiry';
import { ADMIN_EQUIVALENT } from '../../../src/modules/perms/escalation';
import perms0001 from '../../../src/modules/perms/migrations/0001_perms.sql' with { type: 'text' };
import { PermsRuntime } from '../../../src/modules/perms/runtime';
import { PermState } from '../../../src/modules/perms/state';
import { PermStore } from '../../../src/modules/perms/store';
import { openDatabase, type Database } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { tempDir } from '../../support/controller';
import { UUID_A, UUID_B, UUID_C } from './builders';

const T0 = Date.parse('2026-06-01T12:00:00Z');
const HOUR = 3_600_000;
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });

/** The operator (master token, admin JWT, admin session); a plugin's token; a session with perms.manage only. */
const ADMIN: Author = { actor: 'api:admin', admin: true };
const PLUGIN: Author = { actor: 'api:service', admin: false };
const MANAGER: Author = { actor: 'dashboard:Moderator', admin: false };
const NOT_ADMIN = [
  ['a plugin token', PLUGIN],
  ['a perms.manage session', MANAGER],
] as const;

let dir: ReturnType<typeof tempDir>;
let file: string;
let db: Database;
let events: SvcEvent[];
let rt: PermsRuntime;
let clock: number;

beforeEach(() => {
  dir = tempDir('svc-perms-admin-');
  file = join(dir.dir, 'svc.db');
  events = [];
  clock = T0;
  db = openDatabase(file);
  migrate(db, 'perms', [{ version: 1, name: 'perms', sql: perms0001 }]);
  const bus = new EventBus();
  bus.subscribe((event) => events.push(event));
  rt = new PermsRuntime({ db, bus } as unknown as Kernel, log, () => clock);
  // Default, Admin (*) from the first start; VIP and Mod ordinary; Top inherits Admin through Mid.
  rt.groups.create('VIP', false, ADMIN);
  rt.groups.addPermission('VIP', 'essentials.fly', {}, ADMIN);
  rt.groups.create('Mod', false, ADMIN);
  rt.groups.addPermission('Mod', 'mod.kick', {}, ADMIN);
  rt.groups.create('Mid', false, ADMIN);
  rt.groups.update('Mid', { parents: ['Admin'] }, ADMIN);
  rt.groups.create('Top', false, ADMIN);
  rt.groups.update('Top', { parents: ['Mid'] }, ADMIN);
  rt.tracks.create('staff', ['VIP', 'Mod', 'Admin'], ADMIN);
  rt.players.register(UUID_A, 'Alice', {}, PLUGIN);
  rt.players.register(UUID_B, 'Bob', {}, PLUGIN);
  events.length = 0;
});
afterEach(() => {
  db.close();
  dir.remove();
});

const isAdmin = (uuid: string) => rt.resolver().has(uuid, 'svc.dashboard.admin');

/** Everything a restart would load, and what memory holds. */
function picture() {
  const disk = new PermState(new PermStore(db));
  disk.load();
  const byId = <T extends { id: number }>(list: T[]) => [...list].sort((a, b) => a.id - b.id);
  const audit = db.query<{ n: number }, []>('SELECT count(*) AS n FROM perm_audit').get()!.n;
  return {
    disk: { groups: byId(disk.groups()), players: [...disk.players()], tracks: disk.tracks(), default: disk.snapshot().defaultGroup },
    memory: { groups: byId(rt.state.groups()), players: [...rt.state.players()], tracks: rt.state.tracks(), default: rt.state.snapshot().defaultGroup },
    audit,
  };
}

/** Expects 403 FORBIDDEN naming `mention`, and that nothing changed: disk, memory, audit, events. */
function refused(work: () => unknown, mention: string): string {
  const before = picture();
  const published = events.length;
  let thrown: unknown;
  try {
    work();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  const error = thrown as ApiError;
  expect(error.errorCode).toBe('FORBIDDEN');
  expect(error.status).toBe(403);
  expect(error.message).toContain(mention);
  expect(error.message).toContain('needs an admin token or an admin dashboard session');
  expect(picture()).toEqual(before);
  expect(events.length).toBe(published);
  return error.message;
}

describe.each(NOT_ADMIN)('without admin (%s)', (_, by) => {
  test('putting a player in Admin, for a while, on one server, or in a group inheriting it, is refused', () => {
    refused(() => rt.players.addGroup(UUID_A, 'Admin', {}, undefined, by), 'putting Alice (aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa) in group "Admin" (admin-equivalent: it holds "*")');
    refused(() => rt.players.addGroup(UUID_A, 'admin', { expiresAt: T0 + HOUR }, undefined, by), 'in group "Admin" (until 2026-06-01T13:00:00.000Z)');
    refused(() => rt.players.addGroup(UUID_A, 'Admin', { server: 'Lobby-1' }, undefined, by), 'in group "Admin" (server=Lobby-1)');
    refused(() => rt.players.addGroup(UUID_A, 'Top', {}, undefined, by), 'in group "Top" (admin-equivalent: it inherits "*" from "Admin")');
    // A player the module has never seen is not stored either.
    refused(() => rt.players.addGroup(UUID_C, 'Admin', {}, 'Carol', by), 'putting Carol');
    expect(rt.state.player(UUID_C)).toBeUndefined();
    expect(isAdmin(UUID_A)).toBe(false);
  });

  test('granting an admin-equivalent node to a group, one by one or in the whole list, is refused', () => {
    for (const node of ADMIN_EQUIVALENT) {
      refused(() => rt.groups.addPermission('VIP', node, {}, by), `granting "${node}" (admin-equivalent) to group "VIP"`);
      refused(() => rt.groups.addPermission('VIP', node, { server: 'Lobby-1', expiresAt: T0 + HOUR }, by), `granting "${node}"`);
    }
    refused(() => rt.groups.update('VIP', { permissions: ['essentials.fly', 'SVC.Dashboard.*'] }, by), 'granting "svc.dashboard.*" (admin-equivalent) to group "VIP"');
    // Members or not: an empty group would take them later.
    rt.groups.create('Owner', false, by);
    refused(() => rt.groups.addPermission('Owner', '*', {}, by), 'to group "Owner"');
  });

  test('inheriting from a group that carries admin, directly or through parents, is refused', () => {
    refused(() => rt.groups.update('VIP', { parents: ['Admin'] }, by), 'making "VIP" inherit from "Admin" (admin-equivalent: it holds "*")');
    refused(() => rt.groups.update('VIP', { parents: ['Top'] }, by), 'making "VIP" inherit from "Top" (admin-equivalent: it inherits "*" from "Admin")');
    rt.groups.create('Owner', false, by);
    refused(() => rt.groups.update('Owner', { prefix: '&4', parents: ['Mod', 'Mid'] }, by), 'making "Owner" inherit from "Mid"');
  });

  test('making a group that carries admin the default group is refused', () => {
    refused(() => rt.groups.update('Admin', { default: true }, by), 'making "Admin" the default group, which every player holds');
    refused(() => rt.groups.update('Top', { default: true, prefix: '' }, by), 'making "Top" the default group');
  });

  test('promoting along a track into Admin is refused; the steps below it are not', () => {
    expect(rt.tracks.promote('staff', UUID_A, by)).toMatchObject({ success: true, newGroup: 'VIP' });
    expect(rt.tracks.promote('staff', UUID_A, by)).toMatchObject({ success: true, previousGroup: 'VIP', newGroup: 'Mod' });
    refused(() => rt.tracks.promote('staff', UUID_A, by), 'putting Alice (aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa) in group "Admin"');
    expect(rt.state.player(UUID_A)!.memberships.map((m) => m.group)).toEqual(['default', 'mod']);
    // Creating and editing a track is no grant: only a step onto an admin group is.
    rt.tracks.create('owners', ['Mod', 'Top'], by);
    refused(() => rt.tracks.promote('owners', UUID_A, by), 'in group "Top"');
    // Demoting out of an admin group takes admin away: allowed.
    rt.tracks.promote('owners', UUID_B, ADMIN);
    rt.tracks.promote('owners', UUID_B, ADMIN);
    expect(isAdmin(UUID_B)).toBe(true);
    expect(rt.tracks.demote('owners', UUID_B, by)).toMatchObject({ success: true, previousGroup: 'Top', newGroup: 'Mod' });
    expect(isAdmin(UUID_B)).toBe(false);
  });

  test('bulk: an admin node to many groups, many players into Admin: refused whole, nothing done', () => {
    refused(() => rt.bulk.addPermission(['VIP', 'Mod', 'Nope'], '*', {}, by), 'granting "*" (admin-equivalent) to group "VIP"');
    refused(() => rt.bulk.addGroup([UUID_A, UUID_B, UUID_C], 'Admin', { expiresAt: T0 + HOUR }, by), 'putting Alice');
    expect(rt.state.player(UUID_C)).toBeUndefined();
    expect(rt.bulk.addPermission(['VIP', 'Mod'], 'chat.color', {}, by)).toMatchObject({ success: true, processed: 2 });
    expect(rt.bulk.addGroup([UUID_A, UUID_B], 'VIP', {}, by)).toMatchObject({ success: true, processed: 2 });
  });

  test('ordinary changes pass: a VIP node, a negation, parents and tracks without admin, meta, registering', () => {
    rt.groups.addPermission('VIP', 'essentials.fly', { server: 'Lobby-1' }, by);
    rt.groups.addPermission('VIP', 'essentials.home', {}, by);
    rt.groups.addPermission('VIP', '-*', { world: 'nether' }, by);
    rt.groups.update('Mod', { parents: ['VIP'], weight: 5, priority: 10, permissions: ['mod.kick', 'mod.mute'] }, by);
    rt.players.addGroup(UUID_A, 'Mod', { expiresAt: T0 + HOUR }, undefined, by);
    rt.players.addGroup(UUID_C, 'VIP', {}, 'Carol', by);
    rt.groups.update('VIP', { default: true }, by);
    // Meta is text for chat plugins; nothing reads a node from it.
    rt.groups.setMeta('VIP', 'permission', '*', by);
    rt.players.setMeta(UUID_A, 'permission', 'svc.dashboard.admin', by);
    expect(rt.players.check(UUID_A, 'essentials.home', {})).toBe(true);
    expect(isAdmin(UUID_A)).toBe(false);
    expect(events.length).toBeGreaterThan(0);
  });

  test('the dashboard saving an unchanged form passes, Admin’s too; re-adding a held membership passes', () => {
    rt.players.addGroup(UUID_B, 'Admin', {}, undefined, ADMIN);
    for (const name of ['Admin', 'Top', 'VIP']) {
      const g = rt.state.group(name);
      const parents = g.parents.map((k) => rt.state.groupByKey(k)!.name);
      rt.groups.update(name, { prefix: g.prefix, suffix: g.suffix, weight: g.weight, priority: g.priority, default: g.isDefault, permissions: g.grants.map((x) => x.node), parents }, by);
    }
    rt.players.addGroup(UUID_B, 'Admin', {}, undefined, by);
    rt.tracks.create('again', ['Mod', 'Admin'], by);
    expect(isAdmin(UUID_B)).toBe(true);
    // A scoped membership replaces the unscoped one: narrower, so no grant (and no dashboard admin).
    rt.players.addGroup(UUID_B, 'Admin', { server: 'Lobby-1', expiresAt: T0 + HOUR }, undefined, by);
    expect(isAdmin(UUID_B)).toBe(false);
    refused(() => rt.players.addGroup(UUID_B, 'Admin', {}, undefined, by), 'putting Bob');
  });

  test('taking admin away passes: a membership, the node, a parent, the group', () => {
    rt.players.addGroup(UUID_A, 'Admin', {}, undefined, ADMIN);
    rt.players.addGroup(UUID_B, 'Top', {}, undefined, ADMIN);
    expect(isAdmin(UUID_A) && isAdmin(UUID_B)).toBe(true);
    expect(rt.players.removeGroup(UUID_A, 'Admin', undefined, by)).toBe(true);
    expect(isAdmin(UUID_A)).toBe(false);
    rt.groups.update('Mid', { parents: [] }, by);
    expect(isAdmin(UUID_B)).toBe(false);
    rt.groups.update('Mid', { parents: ['Admin'] }, ADMIN);
    expect(rt.groups.removePermission('Admin', '*', undefined, by)).toBe(true);
    expect(isAdmin(UUID_B)).toBe(false);
    rt.groups.delete('Admin', by);
    expect(rt.state.findGroup('Admin')).toBeUndefined();
  });

  describe('a heavier negation holding an admin back', () => {
    // Alice is in Admin (weight 100, *) and in Muted (weight 500, -svc.dashboard.admin): no admin.
    beforeEach(() => {
      rt.groups.create('Muted', false, ADMIN);
      rt.groups.update('Muted', { weight: 500, permissions: ['-svc.dashboard.admin'] }, ADMIN);
      rt.players.addGroup(UUID_A, 'Admin', {}, undefined, ADMIN);
      rt.players.addGroup(UUID_A, 'Muted', {}, undefined, ADMIN);
      expect(isAdmin(UUID_A)).toBe(false);
      events.length = 0;
    });

    const lifted = 'this would make Alice (aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa) a dashboard admin';

    test('re-weighting either group so the grant wins is refused', () => {
      refused(() => rt.groups.update('Muted', { weight: 1 }, by), `${lifted} (svc.dashboard.admin granted by "*" in group "Admin")`);
      refused(() => rt.groups.update('Admin', { weight: 1000 }, by), lifted);
      rt.groups.update('Muted', { weight: 100 }, by); // a tie: the negation still wins
      expect(isAdmin(UUID_A)).toBe(false);
    });

    test('lifting the negation is refused: the node, the group, the membership, or an expiry on any of them', () => {
      refused(() => rt.groups.removePermission('Muted', '-svc.dashboard.admin', undefined, by), lifted);
      refused(() => rt.groups.update('Muted', { permissions: [] }, by), lifted);
      refused(() => rt.groups.delete('Muted', by), lifted);
      refused(() => rt.players.removeGroup(UUID_A, 'Muted', undefined, by), lifted);
      refused(() => rt.players.addGroup(UUID_A, 'Muted', { expiresAt: T0 + HOUR }, undefined, by), `${lifted} from 2026-06-01T13:00:00.000Z on`);
      refused(() => rt.groups.addPermission('Muted', '-svc.dashboard.admin', { expiresAt: T0 + HOUR }, by), `${lifted} from 2026-06-01T13:00:00.000Z on`);
    });

    test('a player the negation holds back from nothing may leave it', () => {
      rt.players.addGroup(UUID_B, 'Muted', {}, undefined, ADMIN);
      expect(rt.players.removeGroup(UUID_B, 'Muted', undefined, by)).toBe(true);
    });
  });
});

describe('with admin', () => {
  test('every one of those grants is done', () => {
    rt.players.addGroup(UUID_A, 'Admin', { expiresAt: T0 + HOUR }, undefined, ADMIN);
    expect(isAdmin(UUID_A)).toBe(true);
    rt.players.addGroup(UUID_C, 'Top', {}, 'Carol', ADMIN);
    expect(isAdmin(UUID_C)).toBe(true);
    for (const node of ADMIN_EQUIVALENT) rt.groups.addPermission('VIP', node, {}, ADMIN);
    rt.groups.update('Mod', { parents: ['Top'] }, ADMIN);
    rt.tracks.promote('staff', UUID_B, ADMIN);
    expect(isAdmin(UUID_B)).toBe(true); // VIP now holds *
    expect(rt.bulk.addGroup([UUID_B], 'Admin', {}, ADMIN).success).toBe(true);
    expect(rt.bulk.addPermission(['Default'], 'svc.*', {}, ADMIN).success).toBe(true);
    rt.groups.update('Admin', { default: true }, ADMIN);
    rt.groups.create('Muted', false, ADMIN);
    rt.groups.update('Muted', { weight: 500, permissions: ['-svc.dashboard.admin'] }, ADMIN);
    rt.players.addGroup(UUID_A, 'Muted', {}, undefined, ADMIN);
    expect(isAdmin(UUID_A)).toBe(false);
    rt.groups.update('Muted', { weight: 0 }, ADMIN);
    expect(isAdmin(UUID_A)).toBe(true);
    expect(rt.store.auditPage({ actor: 'api:admin' }, 100, 0).total).toBeGreaterThan(10);
  });

  test('the expiry sweep, the module’s own, deletes a negation that held an admin back', () => {
    rt.groups.create('Muted', false, ADMIN);
    rt.groups.update('Muted', { weight: 500, permissions: ['-svc.dashboard.admin'] }, ADMIN);
    rt.players.addGroup(UUID_A, 'Admin', {}, undefined, ADMIN);
    rt.players.addGroup(UUID_A, 'Muted', { expiresAt: T0 + HOUR }, undefined, ADMIN);
    expect(isAdmin(UUID_A)).toBe(false);
    clock = T0 + HOUR;
    const sweeper = new ExpirySweeper(rt.changes, log);
    try {
      sweeper.sweep();
    } finally {
      sweeper.stop();
    }
    expect(rt.state.player(UUID_A)!.memberships.map((m) => m.group)).toEqual(['default', 'admin']);
    expect(isAdmin(UUID_A)).toBe(true);
  });
});
