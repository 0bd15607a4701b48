import { describe, expect, test } from 'bun:test';
import type { Punishment } from '../../../src/modules/punishments/model';
import { appliesAt, compareSeverity, decide, inForce, type Where } from '../../../src/modules/punishments/precedence';

type Candidate = Pick<Punishment, 'id' | 'type' | 'expiresAt' | 'scope' | 'scopeTarget'>;

const NOW = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;

/** A permanent network BAN unless told otherwise. */
const rec = (id: number, over: Partial<Omit<Candidate, 'id'>> = {}): Candidate => ({ id, type: 'BAN', expiresAt: null, scope: 'NETWORK', scopeTarget: null, ...over });

/** Every ordering of a small list: decide must not depend on the order the index holds records in. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('inForce', () => {
  const end = NOW + HOUR;
  const table: [string, number | null, number, boolean][] = [
    ['permanent', null, NOW, true],
    ['permanent, far in the future', null, NOW + 1000 * 365 * 24 * HOUR, true],
    ['an hour before its end', end, end - HOUR, true],
    ['one ms before its end', end, end - 1, true],
    ['at its end exactly', end, end, false],
    ['one ms after its end', end, end + 1, false],
  ];
  test.each(table)('%s → %p', (_name, expiresAt, now, expected) => {
    expect(inForce(rec(1, { expiresAt }), now)).toBe(expected);
  });
});

describe('appliesAt', () => {
  const network = rec(1);
  const group = rec(2, { scope: 'GROUP', scopeTarget: 'Lobby' });
  const service = rec(3, { scope: 'SERVICE', scopeTarget: 'Lobby-1' });
  const table: [string, Candidate, Where, boolean][] = [
    ['network, check names nothing', network, {}, true],
    ['network, check names a group', network, { group: 'BedWars' }, true],
    ['network, check names a service', network, { service: 'BedWars-3' }, true],
    ['group, check names nothing (first login)', group, {}, false],
    ['group, check names that group', group, { group: 'Lobby' }, true],
    ['group, check names that group in upper case', group, { group: 'LOBBY' }, true],
    ['group, check names that group in lower case', group, { group: 'lobby' }, true],
    ['group stored in odd case, check in lower case', rec(4, { scope: 'GROUP', scopeTarget: 'LoBbY' }), { group: 'lobby' }, true],
    ['group, check names another group', group, { group: 'BedWars' }, false],
    ['group, check names a group sharing a prefix', group, { group: 'Lobby2' }, false],
    ['group, check names a service of that name only', group, { service: 'Lobby' }, false],
    ['group, check names another group and a service', group, { group: 'BedWars', service: 'Lobby-1' }, false],
    ['group, check names that group and a service', group, { group: 'lobby', service: 'Lobby-1' }, true],
    ['service, check names nothing', service, {}, false],
    ['service, check names that service', service, { service: 'Lobby-1' }, true],
    ['service, check names that service in other case', service, { service: 'LOBBY-1' }, true],
    ['service, check names another service', service, { service: 'Lobby-2' }, false],
    ['service, check names a group of that name only', service, { group: 'Lobby-1' }, false],
    ['service, check names its group and the service', service, { group: 'Lobby', service: 'lobby-1' }, true],
    ['group without a target holds nowhere', rec(5, { scope: 'GROUP', scopeTarget: null }), { group: 'Lobby' }, false],
    ['service without a target holds nowhere', rec(6, { scope: 'SERVICE', scopeTarget: null }), { service: 'Lobby-1' }, false],
  ];
  test.each(table)('%s → %p', (_name, p, where, expected) => {
    expect(appliesAt(p, where)).toBe(expected);
  });
});

describe('compareSeverity', () => {
  // [why the first wins, winner, loser]
  const table: [string, Candidate, Candidate][] = [
    ['IPBAN outranks a permanent BAN, even when temporary', rec(1, { type: 'IPBAN', expiresAt: NOW + HOUR }), rec(2)],
    ['IPBAN outranks TEMPBAN', rec(1, { type: 'IPBAN' }), rec(2, { type: 'TEMPBAN', expiresAt: NOW + HOUR })],
    ['IPBAN outranks BAN whatever the scope', rec(1, { type: 'IPBAN', scope: 'GROUP', scopeTarget: 'Lobby' }), rec(2)],
    ['IPBAN outranks a newer BAN', rec(1, { type: 'IPBAN' }), rec(9)],
    ['a longer TEMPBAN beats a shorter BAN', rec(1, { type: 'TEMPBAN', expiresAt: NOW + 2 * HOUR }), rec(2, { expiresAt: NOW + HOUR })],
    ['a longer BAN beats a shorter TEMPBAN', rec(1, { expiresAt: NOW + 2 * HOUR }), rec(2, { type: 'TEMPBAN', expiresAt: NOW + HOUR })],
    ['longest wins by one ms', rec(1, { expiresAt: NOW + HOUR + 1 }), rec(2, { expiresAt: NOW + HOUR })],
    ['permanent beats temporary', rec(1), rec(2, { type: 'TEMPBAN', expiresAt: NOW + 100 * 365 * 24 * HOUR })],
    ['permanent MUTE beats TEMPMUTE', rec(1, { type: 'MUTE' }), rec(2, { type: 'TEMPMUTE', expiresAt: NOW + HOUR })],
    ['a longer scoped ban beats a shorter network one', rec(1, { scope: 'SERVICE', scopeTarget: 'Lobby-1', expiresAt: NOW + 2 * HOUR }), rec(2, { expiresAt: NOW + HOUR })],
    ['network beats group on a tie', rec(1), rec(2, { scope: 'GROUP', scopeTarget: 'Lobby' })],
    ['network beats service on a tie', rec(1, { expiresAt: NOW + HOUR }), rec(2, { scope: 'SERVICE', scopeTarget: 'Lobby-1', expiresAt: NOW + HOUR })],
    ['newest on a full tie (network)', rec(2), rec(1)],
    ['newest on a full tie (group vs service)', rec(8, { scope: 'SERVICE', scopeTarget: 'Lobby-1' }), rec(7, { scope: 'GROUP', scopeTarget: 'Lobby' })],
    ['newest on a full tie (same end)', rec(5, { type: 'TEMPBAN', expiresAt: NOW + HOUR }), rec(4, { expiresAt: NOW + HOUR })],
  ];
  test.each(table)('%s', (_why, winner, loser) => {
    expect(compareSeverity(winner, loser)).toBeLessThan(0);
    expect(compareSeverity(loser, winner)).toBeGreaterThan(0);
  });

  test('a record compared with itself is a tie', () => {
    const p = rec(3, { type: 'TEMPBAN', expiresAt: NOW + HOUR });
    expect(compareSeverity(p, p)).toBe(0);
  });
});

describe('decide', () => {
  const netBan = rec(1);
  const groupBan = rec(2, { scope: 'GROUP', scopeTarget: 'Lobby' });
  const serviceTempban = rec(3, { type: 'TEMPBAN', scope: 'SERVICE', scopeTarget: 'Lobby-1', expiresAt: NOW + HOUR });
  const ipban = rec(4, { type: 'IPBAN', expiresAt: NOW + HOUR });
  const endedIpban = rec(5, { type: 'IPBAN', expiresAt: NOW });
  const shortNet = rec(6, { type: 'TEMPBAN', expiresAt: NOW + HOUR });
  const longNet = rec(7, { type: 'TEMPBAN', expiresAt: NOW + 2 * HOUR });
  const endsNowPlusOne = rec(8, { type: 'TEMPBAN', expiresAt: NOW + 1 });
  const scopedIpban = rec(9, { type: 'IPBAN', scope: 'GROUP', scopeTarget: 'BedWars' });

  // [case, candidates, where, winner id or undefined]
  const table: [string, Candidate[], Where, number | undefined][] = [
    ['no candidates', [], {}, undefined],
    ['no candidates, check names a place', [], { group: 'Lobby', service: 'Lobby-1' }, undefined],
    ['only a record that ended at now', [endedIpban], {}, undefined],
    ['a record ending one ms after now still holds', [endsNowPlusOne], {}, 8],
    ['only scoped records, check names no place', [groupBan, serviceTempban], {}, undefined],
    ['only scoped records, check names other places', [groupBan, serviceTempban], { group: 'BedWars', service: 'BedWars-1' }, undefined],
    ['group record when the check names its group', [groupBan, serviceTempban], { group: 'LOBBY' }, 2],
    ['service record when the check names its service only', [groupBan, serviceTempban], { service: 'lobby-1' }, 3],
    ['permanent group ban beats temporary service ban there', [groupBan, serviceTempban], { group: 'Lobby', service: 'Lobby-1' }, 2],
    ['network beats group on a tie', [groupBan, netBan], { group: 'Lobby' }, 1],
    ['IPBAN outranks a permanent network BAN', [netBan, ipban], {}, 4],
    ['an ended IPBAN does not outrank the BAN', [netBan, endedIpban], {}, 1],
    ['an IPBAN scoped elsewhere does not outrank the BAN', [netBan, scopedIpban], { group: 'Lobby' }, 1],
    ['a scoped IPBAN outranks the BAN where it holds', [netBan, scopedIpban], { group: 'bedwars' }, 9],
    ['longest among equal severity', [shortNet, longNet, endsNowPlusOne], {}, 7],
    ['permanent beats temporary', [shortNet, netBan, longNet], {}, 1],
    ['newest on a full tie', [rec(10), rec(12), rec(11)], {}, 12],
  ];
  test.each(table)('%s → %p', (_name, candidates, where, expected) => {
    for (const order of permutations(candidates)) {
      expect(decide(order, where, NOW)?.id).toBe(expected);
    }
  });

  test('answers the record itself, and takes any iterable', () => {
    const set = new Set([shortNet, longNet]);
    expect(decide(set, {}, NOW)).toBe(longNet);
  });

  test('moves with the clock: once the longest ends, the next one decides', () => {
    const candidates = [shortNet, longNet, endsNowPlusOne];
    expect(decide(candidates, {}, NOW + 2 * HOUR - 1)?.id).toBe(7);
    expect(decide(candidates, {}, NOW + 2 * HOUR)).toBeUndefined();
    expect(decide([shortNet, endsNowPlusOne], {}, NOW + 1)?.id).toBe(6);
  });
});
