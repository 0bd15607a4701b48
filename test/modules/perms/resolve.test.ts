import { describe, expect, test } from 'bun:test';
import { ResolutionCache } from '../../../src/modules/perms/cache';
import { allows, decide, effectivePermissions, explain, resolve, type SharedResolution } from '../../../src/modules/perms/resolve';
import type { Membership, PermPlayer, PermSnapshot, Where } from '../../../src/modules/perms/types';
import { grant, member, player, snapshot, UUID_A, UUID_B, type GroupSpec } from './builders';

const NOW = 1_000_000_000;
const at = (snap: PermSnapshot, who: PermPlayer | undefined, where: Where = {}, now = NOW) => resolve(snap, who, where, now).shared;

describe('counting groups', () => {
  interface Case {
    name: string;
    groups: Record<string, GroupSpec>;
    fallback?: string;
    who: (string | Membership)[] | undefined;
    where?: Where;
    /** Group names in visiting order, with the group each was reached through. */
    expected: [string, string | undefined][];
  }
  const cases: Case[] = [
    { name: 'an unknown player has the default group', groups: { Default: {} }, fallback: 'Default', who: undefined, expected: [['Default', undefined]] },
    { name: 'an unknown player without a default group has none', groups: { Default: {} }, who: undefined, expected: [] },
    { name: 'a player without memberships still has the default group', groups: { Default: {}, VIP: {} }, fallback: 'Default', who: [], expected: [['Default', undefined]] },
    {
      name: 'the default group comes first, then memberships in order, each with its parents',
      groups: { Default: {}, VIP: { parents: ['Member'] }, Member: {}, Builder: {} },
      fallback: 'Default',
      who: ['Builder', 'VIP'],
      expected: [
        ['Default', undefined],
        ['Builder', undefined],
        ['VIP', undefined],
        ['Member', 'VIP'],
      ],
    },
    { name: 'a membership in the default group does not count it twice', groups: { Default: {}, VIP: {} }, fallback: 'Default', who: ['VIP', 'Default'], expected: [['Default', undefined], ['VIP', undefined]] },
    { name: 'a membership naming no group is skipped', groups: { Default: {} }, fallback: 'Default', who: ['gone'], expected: [['Default', undefined]] },
    {
      name: 'parents depth-first, a grandparent reached through the direct group',
      groups: { A: { parents: ['B', 'C'] }, B: { parents: ['D'] }, C: { parents: ['E'] }, D: {}, E: {} },
      who: ['A'],
      expected: [
        ['A', undefined],
        ['B', 'A'],
        ['D', 'A'],
        ['C', 'A'],
        ['E', 'A'],
      ],
    },
    {
      name: 'a diamond visits the shared parent once',
      groups: { A: { parents: ['B', 'C'] }, B: { parents: ['D'] }, C: { parents: ['D'] }, D: {} },
      who: ['A'],
      expected: [
        ['A', undefined],
        ['B', 'A'],
        ['D', 'A'],
        ['C', 'A'],
      ],
    },
    { name: 'a cycle A→B→A ends where it closes', groups: { A: { parents: ['B'] }, B: { parents: ['A'] } }, who: ['A'], expected: [['A', undefined], ['B', 'A']] },
    { name: 'a self-cycle ends at once', groups: { A: { parents: ['A'] } }, who: ['A'], expected: [['A', undefined]] },
    {
      name: 'a cycle through the default group terminates; the first path to a group names it',
      groups: { Default: { parents: ['VIP'] }, VIP: { parents: ['Default'] } },
      fallback: 'Default',
      who: ['VIP'],
      expected: [['Default', undefined], ['VIP', 'Default']],
    },
    { name: 'a parent naming no group is skipped', groups: { A: { parents: ['missing', 'B'] }, B: {} }, who: ['A'], expected: [['A', undefined], ['B', 'A']] },
    {
      name: 'a membership scoped to another server does not count',
      groups: { Default: {}, VIP: {} },
      fallback: 'Default',
      who: [member('VIP', { server: 'Lobby-1' })],
      where: { server: 'Lobby-2' },
      expected: [['Default', undefined]],
    },
    {
      name: 'a membership scoped to this server counts (any case)',
      groups: { Default: {}, VIP: {} },
      fallback: 'Default',
      who: [member('VIP', { server: 'Lobby-1' })],
      where: { server: 'LOBBY-1' },
      expected: [['Default', undefined], ['VIP', undefined]],
    },
  ];
  test.each(cases)('$name', ({ groups, fallback, who, where, expected }) => {
    const shared = at(snapshot(groups, fallback), who === undefined ? undefined : player(who), where);
    expect(shared.layers.map((l) => [l.group.name, l.via])).toEqual(expected);
  });
});

describe('wildcards and negations in one group', () => {
  const cases: [string[], string, boolean][] = [
    [['*'], 'anything.at.all', true],
    [['*'], 'x', true],
    [['a.*'], 'a.b', true],
    [['a.*'], 'a.b.c', true],
    [['a.*'], 'a', false],
    [['a.*'], 'b.a', false],
    [['a.b.c.*'], 'a.b.c', false],
    [['a.b.c.*'], 'a.b.c.d', true],
    [['a.b.*'], 'a.bc', false],
    [['a.b.*'], 'a.bc.d', false],
    [['a.b.*'], 'a.b', false],
    [['a.b'], 'a.b', true],
    [['a.b'], 'a.b.c', false],
    [['a.b'], 'a', false],
    [[], 'a.b', false],
    [['a.*', '-a.b'], 'a.b', false],
    [['a.*', '-a.b'], 'a.c', true],
    [['a.*', '-a.b'], 'a.b.c', true],
    [['-a.*', 'a.b'], 'a.b', false],
    [['*', '-*'], 'a', false],
    [['*', '-a.b.*'], 'a.b.c', false],
    [['*', '-a.b.*'], 'a.b', true],
    [['-a.b'], 'a.b', false],
  ];
  test.each(cases)('%p answers %p: %p', (grants, node, expected) => {
    const shared = at(snapshot({ Default: { grants } }, 'Default'), undefined);
    expect(allows(shared, node)).toBe(expected);
    expect(decide(shared, node).allowed).toBe(expected);
  });
});

describe('weight decides between groups; ties go to the negation', () => {
  // The default group holds `low`, the player's group X holds `high`.
  const cases: { name: string; low: [number, string[]]; high: [number, string[]]; node: string; expected: boolean; by: string }[] = [
    { name: 'a heavier negation beats a lighter grant', low: [0, ['a.b']], high: [10, ['-a.b']], node: 'a.b', expected: false, by: 'X' },
    { name: 'a heavier grant beats a lighter negation', low: [0, ['-a.b']], high: [10, ['a.b']], node: 'a.b', expected: true, by: 'X' },
    { name: 'a heavier grant beats a lighter negation, default group heavier', low: [10, ['a.b']], high: [0, ['-a.b']], node: 'a.b', expected: true, by: 'Default' },
    { name: 'a heavier wildcard negation beats an exact grant', low: [10, ['-a.*']], high: [0, ['a.b']], node: 'a.b', expected: false, by: 'Default' },
    { name: 'a heavier exact grant beats a wildcard negation', low: [0, ['-a.*']], high: [10, ['a.b']], node: 'a.b', expected: true, by: 'X' },
    { name: 'a heavier * beats a lighter exact negation', low: [0, ['-a.b']], high: [10, ['*']], node: 'a.b', expected: true, by: 'X' },
    { name: 'equal weight: the negation wins (grant first)', low: [5, ['a.b']], high: [5, ['-a.b']], node: 'a.b', expected: false, by: 'X' },
    { name: 'equal weight: the negation wins (negation first)', low: [5, ['-a.b']], high: [5, ['a.b']], node: 'a.b', expected: false, by: 'Default' },
    { name: 'equal weight: an exact negation beats a wildcard grant', low: [0, ['a.*']], high: [0, ['-a.b']], node: 'a.b', expected: false, by: 'X' },
    { name: 'negative weights still decide', low: [-5, ['a.b']], high: [-10, ['-a.b']], node: 'a.b', expected: true, by: 'Default' },
  ];
  test.each(cases)('$name', ({ low, high, node, expected, by }) => {
    const snap = snapshot({ Default: { weight: low[0], grants: low[1] }, X: { weight: high[0], grants: high[1] } }, 'Default');
    const decision = decide(at(snap, player(['X'])), node);
    expect(decision.allowed).toBe(expected);
    expect(decision.by?.layer.group.name).toBe(by);
  });

  test("a parent's own weight counts, not the weight of the group it is reached through", () => {
    const snap = snapshot({ Default: {}, VIP: { weight: 1, grants: ['fly'], parents: ['Staff'] }, Staff: { weight: 50, grants: ['-fly'] } }, 'Default');
    const decision = decide(at(snap, player(['VIP'])), 'fly');
    expect(decision.allowed).toBe(false);
    expect(decision.by?.layer.group.name).toBe('Staff');
    expect(decision.by?.layer.via).toBe('VIP');
  });
});

describe('scopes', () => {
  const cases: { name: string; scoped: Parameters<typeof grant>[1]; where: Where; expected: boolean }[] = [
    { name: 'server-scoped, asked without a server', scoped: { server: 'Lobby-1' }, where: {}, expected: false },
    { name: 'server-scoped, asked with only a world', scoped: { server: 'Lobby-1' }, where: { world: 'world' }, expected: false },
    { name: 'server-scoped, asked on that server', scoped: { server: 'Lobby-1' }, where: { server: 'Lobby-1' }, expected: true },
    { name: 'server-scoped, asked on that server in another case', scoped: { server: 'Lobby-1' }, where: { server: 'lObBy-1' }, expected: true },
    { name: 'server-scoped, asked on another server', scoped: { server: 'Lobby-1' }, where: { server: 'Lobby-2' }, expected: false },
    { name: 'server-scoped, asked with an empty server', scoped: { server: 'Lobby-1' }, where: { server: '' }, expected: false },
    { name: 'world-scoped, asked without a world', scoped: { world: 'nether' }, where: { server: 'Lobby-1' }, expected: false },
    { name: 'world-scoped, asked in that world (any case), any server', scoped: { world: 'nether' }, where: { server: 'Lobby-1', world: 'NETHER' }, expected: true },
    { name: 'world-scoped, asked in that world without a server', scoped: { world: 'nether' }, where: { world: 'nether' }, expected: true },
    { name: 'server and world, only the server matches', scoped: { server: 'Lobby-1', world: 'nether' }, where: { server: 'Lobby-1', world: 'end' }, expected: false },
    { name: 'server and world, only the world matches', scoped: { server: 'Lobby-1', world: 'nether' }, where: { server: 'Lobby-2', world: 'nether' }, expected: false },
    { name: 'server and world, both match', scoped: { server: 'Lobby-1', world: 'nether' }, where: { server: 'LOBBY-1', world: 'Nether' }, expected: true },
  ];
  test.each(cases)('grant $name: $expected', ({ scoped, where, expected }) => {
    const snap = snapshot({ Default: { grants: [grant('fly', scoped)] } }, 'Default');
    expect(allows(at(snap, undefined, where), 'fly')).toBe(expected);
  });

  test.each(cases)('membership $name: $expected', ({ scoped, where, expected }) => {
    const snap = snapshot({ Default: {}, VIP: { grants: ['fly'] } }, 'Default');
    expect(allows(at(snap, player([member('VIP', scoped)]), where), 'fly')).toBe(expected);
  });

  test('a scoped negation applies only where it is scoped', () => {
    const snap = snapshot({ Default: { grants: ['build', grant('-build', { server: 'Lobby-1' })] } }, 'Default');
    expect(allows(at(snap, undefined, {}), 'build')).toBe(true);
    expect(allows(at(snap, undefined, { server: 'Lobby-2' }), 'build')).toBe(true);
    expect(allows(at(snap, undefined, { server: 'lobby-1' }), 'build')).toBe(false);
  });
});

describe('expiry', () => {
  const T = NOW + 60_000;
  const boundary: [string, number, boolean][] = [
    ['one ms before', T - 1, true],
    ['at the expiry', T, false],
    ['after the expiry', T + 1, false],
  ];
  test.each(boundary)('a grant %s: applied %p', (_label, now, expected) => {
    const snap = snapshot({ Default: { grants: [grant('fly', { expiresAt: T })] } }, 'Default');
    expect(allows(at(snap, undefined, {}, now), 'fly')).toBe(expected);
  });
  test.each(boundary)('a membership %s: applied %p', (_label, now, expected) => {
    const snap = snapshot({ Default: {}, VIP: { grants: ['fly'] } }, 'Default');
    const shared = at(snap, player([member('VIP', { expiresAt: T })]), {}, now);
    expect(allows(shared, 'fly')).toBe(expected);
    expect(shared.layers.some((l) => l.group.name === 'VIP')).toBe(expected);
  });

  const cases: { name: string; groups: Record<string, GroupSpec>; who: (string | Membership)[]; where?: Where; now?: number; expected: number }[] = [
    { name: 'nothing expires', groups: { Default: { grants: ['a', grant('b', { server: 'Lobby-1' })] } }, who: [], where: { server: 'Lobby-1' }, expected: Infinity },
    { name: 'one expiring grant', groups: { Default: { grants: [grant('a', { expiresAt: T })] } }, who: [], expected: T },
    { name: 'the earliest of two grants', groups: { Default: { grants: [grant('a', { expiresAt: T + 5 }), grant('b', { expiresAt: T + 3 })] } }, who: [], expected: T + 3 },
    {
      name: 'a membership expiring before a grant',
      groups: { Default: { grants: [grant('a', { expiresAt: T + 5 })] }, VIP: {} },
      who: [member('VIP', { expiresAt: T + 2 })],
      expected: T + 2,
    },
    { name: "an inherited group's grant", groups: { Default: {}, VIP: { parents: ['Member'] }, Member: { grants: [grant('a', { expiresAt: T + 7 })] } }, who: ['VIP'], expected: T + 7 },
    {
      name: 'a grant not applied here does not count',
      groups: { Default: { grants: [grant('a', { server: 'Lobby-1', expiresAt: T + 1 }), grant('b', { expiresAt: T + 9 })] } },
      who: [],
      where: { server: 'Lobby-2' },
      expected: T + 9,
    },
    { name: 'an already expired grant does not count', groups: { Default: { grants: [grant('a', { expiresAt: T }), grant('b', { expiresAt: T + 9 })] } }, who: [], now: T, expected: T + 9 },
    { name: 'a membership not applied here does not count', groups: { Default: {}, VIP: {} }, who: [member('VIP', { server: 'Lobby-1', expiresAt: T + 1 })], expected: Infinity },
    {
      name: "the grants of a group counted through a membership not applied here do not count",
      groups: { Default: {}, VIP: { grants: [grant('a', { expiresAt: T + 1 })] } },
      who: [member('VIP', { server: 'Lobby-1' })],
      expected: Infinity,
    },
  ];
  test.each(cases)('validUntil: $name', ({ groups, who, where, now, expected }) => {
    expect(resolve(snapshot(groups, 'Default'), player(who), where ?? {}, now ?? NOW).validUntil).toBe(expected);
  });
});

describe('display group', () => {
  const cases: { name: string; groups: Record<string, GroupSpec>; fallback?: string; who: (string | Membership)[] | undefined; where?: Where; expected: string | undefined }[] = [
    { name: 'an unknown player shows the default group', groups: { Default: { priority: 0 } }, fallback: 'Default', who: undefined, expected: 'Default' },
    { name: 'no memberships and no default: none', groups: { VIP: {} }, who: [], expected: undefined },
    { name: 'the highest priority wins', groups: { Default: {}, VIP: { priority: 10 }, Staff: { priority: 20 } }, fallback: 'Default', who: ['VIP', 'Staff'], expected: 'Staff' },
    { name: 'the first of equal priorities wins', groups: { Default: {}, VIP: { priority: 10 }, Builder: { priority: 10 } }, fallback: 'Default', who: ['Builder', 'VIP'], expected: 'Builder' },
    {
      name: 'a membership not applied here does not show',
      groups: { Default: {}, VIP: { priority: 10 }, Staff: { priority: 20 } },
      fallback: 'Default',
      who: ['VIP', member('Staff', { server: 'Lobby-1' })],
      where: { server: 'Lobby-2' },
      expected: 'VIP',
    },
    { name: 'an expired membership does not show', groups: { Default: {}, Staff: { priority: 20 } }, fallback: 'Default', who: [member('Staff', { expiresAt: NOW })], expected: 'Default' },
    { name: "a parent's priority does not show", groups: { Default: {}, VIP: { priority: 10, parents: ['Staff'] }, Staff: { priority: 50 } }, fallback: 'Default', who: ['VIP'], expected: 'VIP' },
    { name: 'a membership naming no group falls back to the default', groups: { Default: {} }, fallback: 'Default', who: ['gone'], expected: 'Default' },
    { name: 'a negative priority still beats the default when applied', groups: { Default: { priority: 0 }, Guest: { priority: -5 } }, fallback: 'Default', who: ['Guest'], expected: 'Guest' },
  ];
  test.each(cases)('$name', ({ groups, fallback, who, where, expected }) => {
    expect(resolve(snapshot(groups, fallback), who === undefined ? undefined : player(who), where ?? {}, NOW).display?.name).toBe(expected);
  });
});

describe('effectivePermissions', () => {
  const cases: { name: string; low: [number, (string | ReturnType<typeof grant>)[]]; high?: [number, string[]]; where?: Where; expected: string[] }[] = [
    { name: 'nothing held', low: [0, []], expected: [] },
    { name: 'grants, sorted', low: [0, ['z.z', 'a.b', 'm']], expected: ['a.b', 'm', 'z.z'] },
    { name: 'a winning negation beside the wildcard it carves out', low: [0, ['a.*', '-a.b']], expected: ['-a.b', 'a.*'] },
    { name: 'a grant a heavier negation beats is left out', low: [0, ['x.y']], high: [10, ['-x.*']], expected: ['-x.*'] },
    { name: 'a negation a heavier grant beats is left out', low: [10, ['x.y']], high: [0, ['-x.y']], expected: ['x.y'] },
    { name: 'equal weight: the negation is listed, not the grant', low: [0, ['x.y']], high: [0, ['-x.y']], expected: ['-x.y'] },
    { name: 'a heavier exact grant beside a lighter wildcard negation', low: [0, ['-x.*']], high: [10, ['x.y']], expected: ['-x.*', 'x.y'] },
    { name: 'a node held by two groups is listed once', low: [0, ['fly']], high: [3, ['fly']], expected: ['fly'] },
    { name: 'a scoped grant, asked elsewhere', low: [0, ['chat', grant('fly', { server: 'Lobby-1' })]], where: { server: 'Lobby-2' }, expected: ['chat'] },
    { name: 'a scoped grant, asked there', low: [0, ['chat', grant('fly', { server: 'Lobby-1' })]], where: { server: 'lobby-1' }, expected: ['chat', 'fly'] },
  ];
  test.each(cases)('$name', ({ low, high, where, expected }) => {
    const snap = snapshot({ Default: { weight: low[0], grants: low[1] }, ...(high ? { X: { weight: high[0], grants: high[1] } } : {}) }, 'Default');
    const shared = at(snap, player(high ? ['X'] : []), where);
    expect(effectivePermissions(shared)).toEqual(expected);
    // Every listed node answers the same way as a check does.
    for (const node of effectivePermissions(shared)) expect(allows(shared, node.replace(/^-/, ''))).toBe(!node.startsWith('-'));
  });
});

describe('explain', () => {
  const snap = () =>
    snapshot(
      {
        Default: { weight: 0, grants: ['chat.*', '-chat.color', grant('fly', { server: 'Lobby-1' }), grant('kit.daily', { expiresAt: NOW })] },
        VIP: { weight: 10, priority: 10, grants: ['chat.color', 'kit.*'], parents: ['Member'] },
        Member: { weight: 5, grants: ['home.set', '-kit.vip'] },
        Staff: { weight: 10, grants: ['-kit.vip', '*'] },
      },
      'Default',
    );
  const nodes = ['chat.send', 'chat.color', 'fly', 'kit.daily', 'kit.vip', 'kit.weekly', 'home.set', 'home.delete', 'nothing', '*'];
  const whos: [string, string[]][] = [
    ['unknown', []],
    ['vip', ['VIP']],
    ['staff', ['Staff']],
    ['both', ['VIP', 'Staff']],
  ];
  const wheres: Where[] = [{}, { server: 'Lobby-1' }, { server: 'Lobby-2', world: 'nether' }];
  const combos = whos.flatMap(([label, groups]) => wheres.flatMap((where) => nodes.map((node) => [label, groups, where, node] as const)));

  test.each(combos)('%s at %o: %s — allowed equals allows, the reason names the deciding group', (_label, groups, where, node) => {
    const shared = at(snap(), player(groups), where);
    const decision = decide(shared, node);
    const explanation = explain(shared, node, where, NOW);
    expect(explanation.allowed).toBe(allows(shared, node));
    const decisive = explanation.chain.filter((s) => s.decisive);
    if (decision.by) {
      expect(explanation.reason).toContain(`group '${decision.by.layer.group.name}'`);
      expect(explanation.reason.startsWith(decision.allowed ? 'Granted' : 'Denied')).toBe(true);
      expect(decisive.length).toBeGreaterThan(0);
      for (const step of decisive) {
        expect(step.source).toBe(decision.by.layer.group.name);
        expect(step.permission).toBe(decision.by.node);
        expect(step.type).not.toBe('context-filtered');
      }
    } else {
      expect(explanation.allowed).toBe(false);
      expect(explanation.reason).toBe(`Denied — no permission node answers '${node}'`);
      expect(decisive).toEqual([]);
    }
  });

  test('the chain lists every answering row, typed, with context-filtered rows that do not apply', () => {
    const shared = at(snap(), player(['VIP']), { server: 'Lobby-2' });
    expect(explain(shared, 'fly', { server: 'Lobby-2' }, NOW)).toEqual({
      allowed: false,
      reason: "Denied — no permission node answers 'fly'",
      chain: [{ source: 'Default', permission: 'fly', type: 'context-filtered', granted: false, weight: 0, decisive: false, server: 'Lobby-1' }],
    });
    expect(explain(shared, 'kit.daily', { server: 'Lobby-2' }, NOW).chain).toEqual([
      { source: 'Default', permission: 'kit.daily', type: 'context-filtered', granted: false, weight: 0, decisive: false, expiresAt: NOW },
      { source: 'VIP', permission: 'kit.*', type: 'wildcard', granted: true, weight: 10, decisive: true },
    ]);
    const vip = explain(shared, 'kit.vip', { server: 'Lobby-2' }, NOW);
    expect(vip.allowed).toBe(true);
    expect(vip.reason).toBe("Granted by group 'VIP' (weight 10) via wildcard match on 'kit.*'");
    expect(vip.chain).toEqual([
      { source: 'VIP', permission: 'kit.*', type: 'wildcard', granted: true, weight: 10, decisive: true },
      { source: 'Member', permission: '-kit.vip', type: 'negated', granted: false, weight: 5, decisive: false, inheritedFrom: 'VIP' },
    ]);
    const home = explain(shared, 'home.set', {}, NOW);
    expect(home.reason).toBe("Granted by group 'Member' (weight 5, inherited through 'VIP') via exact match on 'home.set'");
    expect(home.chain).toEqual([{ source: 'Member', permission: 'home.set', type: 'inherited', granted: true, weight: 5, decisive: true, inheritedFrom: 'VIP' }]);
    const color = explain(shared, 'chat.color', {}, NOW);
    expect(color.chain.map((s) => [s.source, s.permission, s.type, s.decisive])).toEqual([
      ['Default', 'chat.*', 'wildcard', false],
      ['Default', '-chat.color', 'negated', false],
      ['VIP', 'chat.color', 'exact', true],
    ]);
  });

  test('the same row applies once the question is asked where it is scoped', () => {
    const shared = at(snap(), undefined, { server: 'LOBBY-1' });
    const fly = explain(shared, 'fly', { server: 'LOBBY-1' }, NOW - 1);
    expect(fly.allowed).toBe(true);
    expect(fly.chain).toEqual([{ source: 'Default', permission: 'fly', type: 'exact', granted: true, weight: 0, decisive: true, server: 'Lobby-1' }]);
    expect(explain(at(snap(), undefined, {}, NOW - 1), 'kit.daily', {}, NOW - 1).chain[0]).toMatchObject({ type: 'exact', decisive: true, expiresAt: NOW });
  });

  test('a negation decides with a reason naming its group', () => {
    const shared = at(snap(), player(['Staff']));
    expect(explain(shared, 'kit.vip', {}, NOW).reason).toBe("Denied — negated by '-kit.vip' in group 'Staff' (weight 10)");
  });
});

describe('shared resolutions', () => {
  const share = () => {
    const table = new Map<string, SharedResolution>();
    return (snap: PermSnapshot, who: PermPlayer | undefined, where: Where, now = NOW) => {
      const r = resolve(snap, who, where, now, (s) => table.get(s));
      table.set(r.shared.signature, r.shared);
      return r.shared;
    };
  };

  test('players with the same groups share one resolution; other groups get another', () => {
    const snap = snapshot({ Default: { grants: ['a'] }, VIP: { grants: ['b'] }, Staff: {} }, 'Default');
    const get = share();
    const first = get(snap, player(['VIP'], UUID_A), {});
    expect(get(snap, player(['VIP'], UUID_B), {})).toBe(first);
    expect(get(snap, player(['vip', 'Default'], UUID_B), {})).toBe(first);
    expect(get(snap, player(['Staff'], UUID_B), {})).not.toBe(first);
    expect(get(snap, undefined, {})).not.toBe(first);
    // Without place-scoped rows the place does not matter.
    expect(get(snap, player(['VIP'], UUID_B), { server: 'Lobby-1', world: 'w' })).toBe(first);
  });

  test('with place-scoped rows, places share a resolution only when the same rows apply (names without case)', () => {
    const snap = snapshot({ Default: { grants: [grant('fly', { server: 'Lobby-1' })] } }, 'Default');
    const get = share();
    const lobby = get(snap, undefined, { server: 'Lobby-1' });
    expect(allows(lobby, 'fly')).toBe(true);
    expect(get(snap, undefined, { server: 'LOBBY-1' })).toBe(lobby);
    const elsewhere = get(snap, undefined, { server: 'Lobby-2' });
    expect(elsewhere).not.toBe(lobby);
    expect(allows(elsewhere, 'fly')).toBe(false);
    expect(get(snap, undefined, {})).not.toBe(lobby);
  });

  test('an expired row changes the signature, so a decision made before is not reused', () => {
    const snap = snapshot({ Default: { grants: [grant('fly', { expiresAt: NOW })] } }, 'Default');
    const get = share();
    const before = get(snap, undefined, {}, NOW - 1);
    expect(allows(before, 'fly')).toBe(true);
    const after = get(snap, undefined, {}, NOW);
    expect(after.signature).not.toBe(before.signature);
    expect(after).not.toBe(before);
    expect(allows(after, 'fly')).toBe(false);
    expect(get(snap, undefined, {}, NOW + 10)).toBe(after);
  });
});

describe('ResolutionCache', () => {
  const T = NOW + 1000;
  const model = () => {
    let snap = snapshot({ Default: { grants: ['chat', grant('fly', { expiresAt: T })] }, VIP: { grants: ['kit'] } }, 'Default');
    const players = new Map<string, PermPlayer>([
      [UUID_A, player(['VIP'], UUID_A)],
      [UUID_B, player(['VIP'], UUID_B)],
    ]);
    const cache = new ResolutionCache(
      () => snap,
      (uuid) => players.get(uuid),
    );
    return { cache, players, replace: (next: PermSnapshot) => (snap = next) };
  };

  test('a hit returns the same object; places compare without case; equal groups share decisions', () => {
    const { cache } = model();
    const first = cache.get(UUID_A, { server: 'Lobby-1' }, NOW);
    expect(cache.get(UUID_A, { server: 'LOBBY-1' }, NOW + 5)).toBe(first);
    expect(cache.get(UUID_A, { server: 'Lobby-2' }, NOW)).not.toBe(first);
    const other = cache.get(UUID_B, { server: 'Lobby-1' }, NOW);
    expect(other).not.toBe(first);
    expect(other.shared).toBe(first.shared);
  });

  test('forget drops one player; clear drops everything', () => {
    const { cache, players } = model();
    const a = cache.get(UUID_A, {}, NOW);
    const b = cache.get(UUID_B, {}, NOW);
    expect(allows(a.shared, 'kit')).toBe(true);
    players.set(UUID_A, player([], UUID_A));
    expect(cache.get(UUID_A, {}, NOW)).toBe(a);
    cache.forget(UUID_A);
    const a2 = cache.get(UUID_A, {}, NOW);
    expect(a2).not.toBe(a);
    expect(allows(a2.shared, 'kit')).toBe(false);
    expect(cache.get(UUID_B, {}, NOW)).toBe(b);
    cache.forget('never-seen');
    cache.clear();
    expect(cache.get(UUID_B, {}, NOW)).not.toBe(b);
    expect(cache.get(UUID_A, {}, NOW)).not.toBe(a2);
  });

  test('a group change shows after clear, and only then', () => {
    const { cache, replace } = model();
    const before = cache.get(UUID_A, {}, NOW);
    replace(snapshot({ Default: {}, VIP: { grants: ['-kit'] } }, 'Default'));
    expect(cache.get(UUID_A, {}, NOW)).toBe(before);
    cache.clear();
    expect(allows(cache.get(UUID_A, {}, NOW).shared, 'kit')).toBe(false);
  });

  test('an entry is recomputed once a row it relied on expires', () => {
    const { cache } = model();
    const early = cache.get(UUID_A, {}, NOW);
    expect(early.validUntil).toBe(T);
    expect(allows(early.shared, 'fly')).toBe(true);
    expect(cache.get(UUID_A, {}, T - 1)).toBe(early);
    const late = cache.get(UUID_A, {}, T);
    expect(late).not.toBe(early);
    expect(late.validUntil).toBe(Infinity);
    expect(allows(late.shared, 'fly')).toBe(false);
    expect(cache.get(UUID_A, {}, T + 100_000)).toBe(late);
  });

  test('an unknown player resolves to the default group and is cached like anyone', () => {
    const { cache } = model();
    const unknown = cache.get('cccccccc-cccc-4ccc-8ccc-cccccccccccc', {}, NOW);
    expect(unknown.display?.name).toBe('Default');
    expect(effectivePermissions(unknown.shared)).toEqual(['chat', 'fly']);
    expect(cache.get('cccccccc-cccc-4ccc-8ccc-cccccccccccc', {}, NOW)).toBe(unknown);
  });
});
