/**
 * Which changes hand out admin (escalation.ts), on hand-built models: the admin-equivalent
 * nodes checked against the resolver itself, and each way a change can hand out admin or
 * leave it alone.
 */
import { describe, expect, test } from 'bun:test';
import { ADMIN_EQUIVALENT, escalation, isAdminEquivalent } from '../../../src/modules/perms/escalation';
import { decide, resolve } from '../../../src/modules/perms/resolve';
import type { Group, Membership, PermPlayer, PermSnapshot } from '../../../src/modules/perms/types';
import { grant, group, member, player, snapshot, UUID_B, type GroupSpec } from './builders';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const HOUR = 3_600_000;

/** The model with one group replaced (or added); every other group object is kept. */
function edit(model: PermSnapshot, name: string, spec: GroupSpec, isDefault?: boolean): PermSnapshot {
  const key = name.toLowerCase();
  const groups = new Map(model.groups);
  groups.set(key, group(model.groups.get(key)?.name ?? name, spec, isDefault ?? model.defaultGroup === key));
  return { groups, defaultGroup: model.defaultGroup };
}

function without(model: PermSnapshot, name: string): PermSnapshot {
  const groups = new Map(model.groups);
  groups.delete(name.toLowerCase());
  return { groups, defaultGroup: model.defaultGroup };
}

/** The same groups, another default. */
const withDefault = (model: PermSnapshot, name: string): PermSnapshot => {
  const groups = new Map<string, Group>();
  for (const [key, g] of model.groups) groups.set(key, key === name.toLowerCase() || g.isDefault ? { ...g, isDefault: key === name.toLowerCase() } : g);
  return { groups, defaultGroup: name.toLowerCase() };
};

/** A group change: every stored player as before, none rewritten. */
const groupChange = (before: PermSnapshot, after: PermSnapshot, players: PermPlayer[] = []) => escalation({ before, after, players, changed: [], now: NOW });

/** A player change: `was` becomes `is` (same id), in an unchanged model. */
function playerChange(model: PermSnapshot, was: (string | Membership)[] | undefined, is: (string | Membership)[]): string | undefined {
  const after = player(is);
  const before = was === undefined ? undefined : { ...player(was), id: after.id };
  return escalation({ before: model, after: model, players: before ? [before] : [], changed: [{ before, after }], now: NOW });
}

const base = () =>
  snapshot(
    {
      Default: { grants: ['chat'] },
      VIP: { grants: ['essentials.fly'] },
      Admin: { grants: ['*'], weight: 100 },
      Mid: { parents: ['Admin'] },
      Top: { parents: ['Mid'] },
    },
    'Default',
  );

describe('admin-equivalent nodes: what makes a session pass svc.dashboard.admin', () => {
  test('exactly the node, svc.dashboard.*, svc.* and *', () => {
    expect([...ADMIN_EQUIVALENT].sort()).toEqual(['*', 'svc.*', 'svc.dashboard.*', 'svc.dashboard.admin']);
  });

  test.each([
    ['*', true],
    ['svc.*', true],
    ['svc.dashboard.*', true],
    ['svc.dashboard.admin', true],
    ['-*', false],
    ['-svc.dashboard.admin', false],
    ['svc.dashboard.admin.*', false],
    ['svc.dashboard.perms.*', false],
    ['svc.dashboard.perms.manage', false],
    ['svc.dashboard', false],
    ['svc', false],
    ['svc.dashboard.adminx', false],
    ['essentials.*', false],
  ])('%s: %p, as the resolver decides for a player holding only it', (node, equivalent) => {
    expect(isAdminEquivalent(node)).toBe(equivalent);
    const model = snapshot({ Holder: { grants: [node] } });
    const shared = resolve(model, player(['Holder']), {}, NOW).shared;
    expect(decide(shared, 'svc.dashboard.admin').allowed).toBe(equivalent);
  });
});

describe('1. a group gains an admin-equivalent node', () => {
  test.each(ADMIN_EQUIVALENT.map((n) => [n]))('granting %s to VIP is refused, naming the node and the group', (node) => {
    const before = base();
    expect(groupChange(before, edit(before, 'VIP', { grants: ['essentials.fly', node] }))).toBe(
      `granting "${node}" (admin-equivalent) to group "VIP" needs an admin token or an admin dashboard session`,
    );
  });

  test('scoped to a server or a time, it is still the node', () => {
    const before = base();
    expect(groupChange(before, edit(before, 'VIP', { grants: [grant('*', { server: 'Lobby-1' })] }))).toContain('granting "*" (admin-equivalent) to group "VIP" (server=Lobby-1)');
    expect(groupChange(before, edit(before, 'VIP', { grants: [grant('svc.*', { expiresAt: NOW + HOUR })] }))).toContain('granting "svc.*" (admin-equivalent) to group "VIP" (until 2026-06-01T13:00:00.000Z)');
  });

  test('ordinary nodes and negations pass; so does a new group holding them', () => {
    const before = base();
    expect(groupChange(before, edit(before, 'VIP', { grants: ['essentials.fly', 'essentials.*', '-*', '-svc.dashboard.admin', 'svc.dashboard.perms.*'] }))).toBeUndefined();
    expect(groupChange(before, edit(before, 'Builder', { grants: ['worldedit.*'] }))).toBeUndefined();
  });

  test('a new group holding one is refused', () => {
    const before = base();
    expect(groupChange(before, edit(before, 'Owner', { grants: ['*'] }))).toContain('granting "*" (admin-equivalent) to group "Owner"');
  });

  test('rows the group already held (same node, as wide, as long) pass: an unchanged re-save, a narrower copy', () => {
    const before = edit(base(), 'Admin', { grants: ['*', grant('svc.*', { expiresAt: NOW + 2 * HOUR })], weight: 100 });
    expect(groupChange(before, edit(before, 'Admin', { grants: ['*', grant('svc.*', { expiresAt: NOW + 2 * HOUR })], weight: 100 }))).toBeUndefined();
    expect(groupChange(before, edit(before, 'Admin', { grants: ['*', grant('*', { server: 'Lobby-1', expiresAt: NOW + HOUR }), grant('svc.*', { expiresAt: NOW + HOUR })], weight: 100 }))).toBeUndefined();
  });

  test('a wider or longer row than the one held is a new grant', () => {
    const before = edit(base(), 'Staff', { grants: [grant('svc.*', { server: 'Lobby-1', expiresAt: NOW + HOUR })] });
    expect(groupChange(before, edit(before, 'Staff', { grants: [grant('svc.*', { expiresAt: NOW + HOUR })] }))).toContain('granting "svc.*"');
    expect(groupChange(before, edit(before, 'Staff', { grants: [grant('svc.*', { server: 'lobby-1', expiresAt: NOW + 2 * HOUR })] }))).toContain('granting "svc.*"');
    expect(groupChange(before, edit(before, 'Staff', { grants: [grant('svc.*', { server: 'LOBBY-1', expiresAt: NOW + HOUR })] }))).toBeUndefined();
    // Another admin-equivalent node is another grant, even beside *.
    const admin = base();
    expect(groupChange(admin, edit(admin, 'Admin', { grants: ['*', 'svc.dashboard.admin'], weight: 100 }))).toContain('granting "svc.dashboard.admin" (admin-equivalent) to group "Admin"');
  });
});

describe('2. a group gains a parent that carries admin', () => {
  test('directly, and through a chain of parents', () => {
    const before = base();
    expect(groupChange(before, edit(before, 'VIP', { grants: ['essentials.fly'], parents: ['Admin'] }))).toBe(
      'making "VIP" inherit from "Admin" (admin-equivalent: it holds "*") needs an admin token or an admin dashboard session',
    );
    expect(groupChange(before, edit(before, 'VIP', { grants: ['essentials.fly'], parents: ['Top'] }))).toBe(
      'making "VIP" inherit from "Top" (admin-equivalent: it inherits "*" from "Admin") needs an admin token or an admin dashboard session',
    );
  });

  test('a parent already held, or one without admin, passes', () => {
    const before = base();
    expect(groupChange(before, edit(before, 'Top', { parents: ['Mid'] }))).toBeUndefined();
    expect(groupChange(before, edit(before, 'Top', { parents: ['VIP', 'Mid'] }))).toBeUndefined();
    expect(groupChange(before, edit(before, 'Builder', { parents: ['VIP', 'Default'] }))).toBeUndefined();
  });
});

describe('3. a player gains a membership in a group that carries admin', () => {
  test('the group itself, one inheriting it, for a while, on one server: refused, naming player and group', () => {
    const model = base();
    expect(playerChange(model, ['Default'], ['Default', 'Admin'])).toBe(
      'putting Alice (aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa) in group "Admin" (admin-equivalent: it holds "*") needs an admin token or an admin dashboard session',
    );
    expect(playerChange(model, ['Default'], ['Top'])).toContain('in group "Top" (admin-equivalent: it inherits "*" from "Admin")');
    expect(playerChange(model, ['Default'], [member('Admin', { expiresAt: NOW + HOUR })])).toContain('in group "Admin" (until 2026-06-01T13:00:00.000Z)');
    expect(playerChange(model, ['Default'], [member('Admin', { server: 'Lobby-1' })])).toContain('in group "Admin" (server=Lobby-1)');
    expect(playerChange(model, undefined, ['Admin'])).toContain('putting Alice');
  });

  test('a membership already held passes: again, narrower, shorter', () => {
    const model = base();
    expect(playerChange(model, ['Admin'], ['Admin'])).toBeUndefined();
    expect(playerChange(model, ['Admin'], ['Admin', member('Admin', { server: 'Lobby-1', expiresAt: NOW + HOUR })])).toBeUndefined();
    expect(playerChange(model, [member('Admin', { expiresAt: NOW + 2 * HOUR })], [member('Admin', { expiresAt: NOW + HOUR })])).toBeUndefined();
    expect(playerChange(model, [member('Admin', { expiresAt: NOW + HOUR })], [member('Admin', { expiresAt: NOW + 2 * HOUR })])).toContain('putting Alice');
  });

  test('groups without admin pass; the default group is held by everyone already', () => {
    expect(playerChange(base(), ['Default'], ['Default', 'VIP'])).toBeUndefined();
    const everyoneAdmin = withDefault(base(), 'Admin');
    expect(playerChange(everyoneAdmin, undefined, ['Admin'])).toBeUndefined();
  });
});

describe('4. a group that carries admin becomes the default', () => {
  test('refused for Admin and for a group inheriting it; fine for VIP', () => {
    const before = base();
    expect(groupChange(before, withDefault(before, 'Admin'))).toBe(
      'making "Admin" the default group, which every player holds (admin-equivalent: it holds "*"), needs an admin token or an admin dashboard session',
    );
    expect(groupChange(before, withDefault(before, 'Mid'))).toContain('making "Mid" the default group');
    expect(groupChange(before, withDefault(before, 'VIP'))).toBeUndefined();
  });
});

describe('5. someone passes svc.dashboard.admin who did not', () => {
  // Alice is in Admin, held back by Muted (a heavier negation); Bob only in Muted.
  const held = () => edit(edit(base(), 'Admin', { grants: ['*'], weight: 10 }), 'Muted', { grants: ['-svc.dashboard.admin'], weight: 50 });
  const alice = () => player(['Admin', 'Muted']);
  const bob = () => player(['Muted'], UUID_B);

  test('re-weighting the negation below the grant, or the grant above it', () => {
    const before = held();
    const players = [alice(), bob()];
    expect(groupChange(before, edit(before, 'Muted', { grants: ['-svc.dashboard.admin'], weight: 5 }), players)).toBe(
      'this would make Alice (aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa) a dashboard admin (svc.dashboard.admin granted by "*" in group "Admin"), which needs an admin token or an admin dashboard session',
    );
    expect(groupChange(before, edit(before, 'Admin', { grants: ['*'], weight: 60 }), players)).toContain('would make Alice');
    // Equal weights: the negation still wins.
    expect(groupChange(before, edit(before, 'Admin', { grants: ['*'], weight: 50 }), players)).toBeUndefined();
    // Nobody held back: the same re-weight hands nothing out.
    expect(groupChange(before, edit(before, 'Muted', { grants: ['-svc.dashboard.admin'], weight: 5 }), [bob()])).toBeUndefined();
  });

  test('lifting the negation: removing the node, deleting the group, taking Alice out of it', () => {
    const before = held();
    expect(groupChange(before, edit(before, 'Muted', { grants: [], weight: 50 }), [alice()])).toContain('would make Alice');
    expect(groupChange(before, without(before, 'Muted'), [alice()])).toContain('would make Alice');
    expect(playerChange(before, ['Admin', 'Muted'], ['Admin'])).toContain('would make Alice');
    // Bob holds no grant the negation hid: leaving it hands him nothing.
    expect(escalation({ before, after: before, players: [], changed: [{ before: bob(), after: { ...bob(), memberships: [] } }], now: NOW })).toBeUndefined();
  });

  test('an answer that changes later: a negation made to expire, or to expire sooner', () => {
    const before = held();
    expect(groupChange(before, edit(before, 'Muted', { grants: [grant('-svc.dashboard.admin', { expiresAt: NOW + HOUR })], weight: 50 }), [alice()])).toBe(
      'this would make Alice (aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa) a dashboard admin from 2026-06-01T13:00:00.000Z on (svc.dashboard.admin granted by "*" in group "Admin"), which needs an admin token or an admin dashboard session',
    );
    const muted = (until: number) => ['Admin', member('Muted', { expiresAt: until })];
    expect(playerChange(before, muted(NOW + 2 * HOUR), muted(NOW + HOUR))).toContain('a dashboard admin from 2026-06-01T13:00:00.000Z on');
    expect(playerChange(before, muted(NOW + HOUR), muted(NOW + 2 * HOUR))).toBeUndefined();
  });

  test('a group on its own: lifting the negation beside its own *', () => {
    const before = edit(base(), 'Locked', { grants: ['*', '-*'] });
    expect(groupChange(before, edit(before, 'Locked', { grants: ['*'] }))).toBe(
      'this would make group "Locked" admin-equivalent (svc.dashboard.admin granted by "*" in group "Locked"), which needs an admin token or an admin dashboard session',
    );
  });

  test('the default group lifted for every player', () => {
    const before = edit(base(), 'Default', { grants: ['chat', '*', '-*'] });
    expect(groupChange(before, edit(before, 'Default', { grants: ['chat', '*'] }))).toContain('would make every player (through the default group) a dashboard admin');
  });
});

describe('what is never an escalation', () => {
  test('the same model again', () => {
    const before = base();
    expect(groupChange(before, before, [player(['Admin']), player(['Top'], UUID_B)])).toBeUndefined();
    expect(groupChange(before, edit(before, 'Admin', { grants: ['*'], weight: 100 }), [player(['Admin'])])).toBeUndefined();
  });

  test('taking admin away: the node, the group, the membership, the parent', () => {
    const before = base();
    const players = [player(['Admin']), player(['Top'], UUID_B)];
    expect(groupChange(before, edit(before, 'Admin', { grants: [], weight: 100 }), players)).toBeUndefined();
    expect(groupChange(before, without(before, 'Admin'), players)).toBeUndefined();
    expect(groupChange(before, edit(before, 'Mid', {}), players)).toBeUndefined();
    expect(playerChange(before, ['Admin', 'VIP'], ['VIP'])).toBeUndefined();
  });

  test('ordinary edits of a group players are in', () => {
    const before = base();
    const players = [player(['VIP']), player(['Admin'], UUID_B)];
    expect(groupChange(before, edit(before, 'VIP', { grants: ['essentials.fly', 'essentials.home'], weight: 7, priority: 3, parents: ['Default'] }), players)).toBeUndefined();
  });
});
