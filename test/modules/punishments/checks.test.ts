import { describe, expect, test } from 'bun:test';
import { ActiveIndex } from '../../../src/modules/punishments/active-index';
import { CheckAnswers, NOT_PUNISHED, templateKeyOf } from '../../../src/modules/punishments/checks';
import { MESSAGE_DEFAULTS, type MessageKey, type MessageTemplates } from '../../../src/modules/punishments/messages';
import type { CheckAnswer, Punishment, PunishmentType } from '../../../src/modules/punishments/model';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const SECOND = 1000;
const HOUR = 3_600_000;

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const IP_X = '203.0.113.7';
const IP_Y = '198.51.100.9';

/** An active, permanent, network BAN of player A unless told otherwise. */
function record(id: number, over: Partial<Omit<Punishment, 'id'>> = {}): Punishment {
  return {
    id,
    type: 'BAN',
    targetUuid: A,
    targetName: 'Alice',
    targetIp: null,
    reason: 'griefing',
    issuer: 'console',
    issuerName: 'Console',
    issuedAt: T0 - HOUR,
    expiresAt: null,
    active: true,
    revokedBy: null,
    revokedAt: null,
    revokeReason: null,
    scope: 'NETWORK',
    scopeTarget: null,
    ...over,
  };
}

const ids = (list: readonly Punishment[]) => list.map((p) => p.id).sort((a, b) => a - b);

/** Templates that say which one was used, so a test can tell them apart. */
const TAGGED: MessageTemplates = {
  ...MESSAGE_DEFAULTS,
  ban: 'BAN {reason} {remaining}',
  tempban: 'TEMPBAN {reason} {remaining} {expires}',
  ipban: 'IPBAN {reason}',
  mute: 'MUTE {reason}',
  tempmute: 'TEMPMUTE {remaining}',
};

/** An index that counts the lookups made of it: each one is an answer worked out, not taken from the cache. */
class CountingIndex extends ActiveIndex {
  lookups = 0;
  override loginCandidates(uuid: string, ip: string | undefined): readonly Punishment[] {
    this.lookups++;
    return super.loginCandidates(uuid, ip);
  }
  override muteCandidates(uuid: string): readonly Punishment[] {
    this.lookups++;
    return super.muteCandidates(uuid);
  }
}

/** CheckAnswers over `records` with a clock the test moves and a count of answers worked out. */
function harness(records: Punishment[], ttlMs: number, templates: MessageTemplates = TAGGED) {
  const index = new CountingIndex();
  index.load(records);
  const clock = { now: T0 };
  const checks = new CheckAnswers(index, () => templates, ttlMs, () => clock.now);
  const login = (uuid: string, ip?: string, where: { group?: string; service?: string } = {}): CheckAnswer => JSON.parse(checks.loginJson(uuid, ip, where)) as CheckAnswer;
  const mute = (uuid: string, where: { group?: string; service?: string } = {}): CheckAnswer => JSON.parse(checks.muteJson(uuid, where)) as CheckAnswer;
  return { index, clock, checks, login, mute, computed: () => index.lookups };
}

describe('ActiveIndex', () => {
  const ipban = record(1, { type: 'IPBAN', targetIp: IP_X });

  test('an IP ban blocks its address for any account and its account on any address', () => {
    const index = new ActiveIndex();
    index.load([ipban]);
    expect(ids(index.loginCandidates(B, IP_X))).toEqual([1]);
    expect(ids(index.loginCandidates(C, IP_X))).toEqual([1]);
    expect(ids(index.loginCandidates(A, IP_Y))).toEqual([1]);
    expect(ids(index.loginCandidates(A, undefined))).toEqual([1]);
    expect(index.loginCandidates(B, IP_Y)).toEqual([]);
    expect(index.loginCandidates(B, undefined)).toEqual([]);
  });

  test('an IP ban matching both by account and by address appears once', () => {
    const index = new ActiveIndex();
    index.load([ipban, record(2)]);
    expect(ids(index.loginCandidates(A, IP_X))).toEqual([1, 2]);
  });

  test('the account’s own bans and another account’s IP ban on its address both count', () => {
    const index = new ActiveIndex();
    index.load([record(1, { type: 'IPBAN', targetUuid: C, targetIp: IP_X }), record(2)]);
    expect(ids(index.loginCandidates(A, IP_X))).toEqual([1, 2]);
    expect(ids(index.loginCandidates(A, IP_Y))).toEqual([2]);
  });

  test('an account BAN that stored an address does not block that address', () => {
    const index = new ActiveIndex();
    index.load([record(1, { targetIp: IP_X }), record(2, { type: 'TEMPBAN', targetIp: IP_X, expiresAt: T0 + HOUR })]);
    expect(index.loginCandidates(B, IP_X)).toEqual([]);
    expect(ids(index.loginCandidates(A, IP_Y))).toEqual([1, 2]);
  });

  test('mutes are kept apart from bans', () => {
    const index = new ActiveIndex();
    index.load([record(1, { type: 'MUTE' }), record(2, { type: 'TEMPMUTE', expiresAt: T0 + HOUR }), record(3)]);
    expect(ids(index.muteCandidates(A))).toEqual([1, 2]);
    expect(ids(index.loginCandidates(A, undefined))).toEqual([3]);
    expect(ids(index.ofPlayer(A))).toEqual([1, 2, 3]);
    expect(index.muteCandidates(B)).toEqual([]);
  });

  test.each<[string, Punishment]>([
    ['an inactive BAN', record(1, { active: false })],
    ['an inactive IPBAN', record(1, { type: 'IPBAN', targetIp: IP_X, active: false })],
    ['an inactive MUTE', record(1, { type: 'MUTE', active: false })],
    ['a KICK, even marked active', record(1, { type: 'KICK', active: true })],
    ['a WARN, even marked active', record(1, { type: 'WARN', active: true })],
  ])('%s is not added', (_name, p) => {
    const index = new ActiveIndex();
    index.add(p);
    expect(index.size).toBe(0);
    expect(index.loginCandidates(A, IP_X)).toEqual([]);
    expect(index.loginCandidates(B, IP_X)).toEqual([]);
    expect(index.muteCandidates(A)).toEqual([]);
    expect(index.ofPlayer(A)).toEqual([]);
  });

  test('adding the same id twice keeps one', () => {
    const index = new ActiveIndex();
    index.add(ipban);
    index.add({ ...ipban });
    expect(index.size).toBe(1);
    expect(ids(index.loginCandidates(B, IP_X))).toEqual([1]);
    expect(ids(index.loginCandidates(A, undefined))).toEqual([1]);
  });

  test('remove() takes a record out of every map, and leaves the others', () => {
    const index = new ActiveIndex();
    index.load([ipban, record(2, { type: 'IPBAN', targetUuid: B, targetIp: IP_X }), record(3, { type: 'MUTE' }), record(4)]);
    expect(index.size).toBe(4);

    index.remove(1);
    expect(index.size).toBe(3);
    expect(ids(index.loginCandidates(A, undefined))).toEqual([4]);
    expect(ids(index.loginCandidates(C, IP_X))).toEqual([2]);
    expect(ids(index.ofPlayer(A))).toEqual([3, 4]);

    index.remove(3);
    expect(index.muteCandidates(A)).toEqual([]);
    index.remove(2);
    expect(index.loginCandidates(C, IP_X)).toEqual([]);
    index.remove(4);
    expect(index.size).toBe(0);
    expect(index.ofPlayer(A)).toEqual([]);
    expect(index.loginCandidates(A, IP_X)).toEqual([]);

    index.remove(99);
    expect(index.size).toBe(0);
  });

  test('a list handed out earlier is not changed by a later remove', () => {
    const index = new ActiveIndex();
    index.load([record(1), record(2)]);
    const before = index.loginCandidates(A, undefined);
    index.remove(1);
    expect(ids(before)).toEqual([1, 2]);
    expect(ids(index.loginCandidates(A, undefined))).toEqual([2]);
  });

  test('load() replaces what was there', () => {
    const index = new ActiveIndex();
    index.load([ipban, record(2, { type: 'MUTE' })]);
    index.load([record(3, { targetUuid: B })]);
    expect(index.size).toBe(1);
    expect(index.loginCandidates(A, IP_X)).toEqual([]);
    expect(index.muteCandidates(A)).toEqual([]);
    expect(ids(index.loginCandidates(B, undefined))).toEqual([3]);
  });
});

describe('CheckAnswers: the answers', () => {
  test('the not-punished answer has every key, all null but punished:false', () => {
    const { login, mute } = harness([], 5000);
    const expected = {
      punished: false,
      id: null,
      type: null,
      reason: null,
      issuerName: null,
      issuedAt: null,
      expiresAt: null,
      remainingSeconds: null,
      scope: null,
      scopeTarget: null,
      kickMessage: null,
    };
    expect(login(A, IP_X)).toStrictEqual(expected);
    expect(mute(A)).toStrictEqual(expected);
    expect(NOT_PUNISHED).toStrictEqual(expected);
  });

  test('a punished answer: every key filled from the winning record', () => {
    const end = T0 + 90 * SECOND + 1;
    const { login } = harness([record(7, { type: 'TEMPBAN', expiresAt: end, scope: 'GROUP', scopeTarget: 'Lobby', issuerName: 'Mod' })], 5000);
    expect(login(A, undefined, { group: 'lobby' })).toStrictEqual({
      punished: true,
      id: 7,
      type: 'TEMPBAN',
      reason: 'griefing',
      issuerName: 'Mod',
      issuedAt: new Date(T0 - HOUR).toISOString(),
      expiresAt: new Date(end).toISOString(),
      // 90.001 s left reads as 91 whole seconds (rounded up, never shows 0 while in force).
      remainingSeconds: 91,
      scope: 'GROUP',
      scopeTarget: 'Lobby',
      kickMessage: `TEMPBAN griefing 2m ${new Date(end).toISOString()}`,
    });
    expect(Object.keys(login(A, undefined, { group: 'lobby' }))).toEqual(Object.keys(NOT_PUNISHED));
  });

  test('an IP ban keeps out another account on its address, and its own account anywhere', () => {
    const { login } = harness([record(1, { type: 'IPBAN', targetIp: IP_X })], 0);
    expect(login(B, IP_X)).toMatchObject({ punished: true, id: 1, type: 'IPBAN', kickMessage: 'IPBAN griefing' });
    expect(login(A, IP_Y)).toMatchObject({ punished: true, id: 1 });
    expect(login(B, IP_Y).punished).toBe(false);
    expect(login(B, undefined).punished).toBe(false);
  });

  test('the IP ban outranks the account’s own permanent ban', () => {
    const { login } = harness([record(1), record(2, { type: 'IPBAN', targetUuid: C, targetIp: IP_X, expiresAt: T0 + HOUR })], 0);
    expect(login(A, IP_X).id).toBe(2);
    expect(login(A, IP_Y).id).toBe(1);
  });

  test('mutes and bans answer separately', () => {
    const { login, mute } = harness([record(1, { type: 'MUTE' }), record(2, { targetUuid: B })], 0);
    expect(login(A).punished).toBe(false);
    expect(mute(A)).toMatchObject({ punished: true, id: 1, type: 'MUTE', kickMessage: 'MUTE griefing' });
    expect(mute(B).punished).toBe(false);
    expect(login(B)).toMatchObject({ punished: true, id: 2 });
  });

  test('a scoped ban counts only where the check says the player is', () => {
    const { login, mute } = harness([record(1, { scope: 'SERVICE', scopeTarget: 'Lobby-1' }), record(2, { type: 'MUTE', scope: 'GROUP', scopeTarget: 'Lobby' })], 5000);
    expect(login(A).punished).toBe(false);
    expect(login(A, undefined, { group: 'Lobby', service: 'Lobby-1' }).id).toBe(1);
    expect(login(A, undefined, { group: 'Lobby', service: 'Lobby-2' }).punished).toBe(false);
    expect(mute(A).punished).toBe(false);
    expect(mute(A, { group: 'LOBBY' }).id).toBe(2);
  });

  test('a record past its end that the expiry loop has not removed yet no longer counts', () => {
    const { login, index } = harness([record(1, { type: 'TEMPBAN', expiresAt: T0 })], 5000);
    expect(index.size).toBe(1);
    expect(login(A).punished).toBe(false);
  });

  const keys: [string, PunishmentType, number | null, MessageKey][] = [
    ['BAN with an end', 'BAN', T0 + HOUR, 'tempban'],
    ['permanent BAN', 'BAN', null, 'ban'],
    ['TEMPBAN', 'TEMPBAN', T0 + HOUR, 'tempban'],
    ['IPBAN with an end', 'IPBAN', T0 + HOUR, 'ipban'],
    ['permanent IPBAN', 'IPBAN', null, 'ipban'],
    ['MUTE with an end', 'MUTE', T0 + HOUR, 'tempmute'],
    ['permanent MUTE', 'MUTE', null, 'mute'],
    ['TEMPMUTE', 'TEMPMUTE', T0 + HOUR, 'tempmute'],
    ['KICK', 'KICK', null, 'kick'],
    ['WARN', 'WARN', null, 'warn'],
  ];
  test.each(keys)('%s is shown with the %s template', (_name, type, expiresAt, key) => {
    expect(templateKeyOf({ type, expiresAt })).toBe(key);
  });

  test('kickMessage: a BAN with an end uses the tempban template, a permanent one the ban template', () => {
    const end = T0 + 2 * HOUR;
    const timed = harness([record(1, { expiresAt: end })], 0);
    expect(timed.login(A).kickMessage).toBe(`TEMPBAN griefing 2h ${new Date(end).toISOString()}`);
    const permanent = harness([record(1)], 0);
    expect(permanent.login(A).kickMessage).toBe('BAN griefing permanent');
  });

  test('kickMessage with the default templates: § codes and the values filled in', () => {
    const { login } = harness([record(1, { reason: '', issuerName: 'Mod' })], 0, { ...MESSAGE_DEFAULTS });
    expect(login(A).kickMessage).toBe('§c§lYou are banned from the network\n§7Reason: §fNo reason given\n§7Banned by: §fMod\n§7Appeal at our support portal.');
  });
});

describe('CheckAnswers: the TTL cache', () => {
  test('within the ttl the same JSON is answered, even as the clock moves; after it, recomputed', () => {
    const { checks, clock, computed } = harness([record(1, { type: 'TEMPBAN', expiresAt: T0 + HOUR })], 5000);
    const first = checks.loginJson(A, undefined, {});
    expect((JSON.parse(first) as CheckAnswer).remainingSeconds).toBe(3600);
    clock.now = T0 + 2 * SECOND;
    expect(checks.loginJson(A, undefined, {})).toBe(first);
    clock.now = T0 + 5 * SECOND - 1;
    expect(checks.loginJson(A, undefined, {})).toBe(first);
    expect(computed()).toBe(1);

    clock.now = T0 + 5 * SECOND;
    const later = JSON.parse(checks.loginJson(A, undefined, {})) as CheckAnswer;
    expect(later.remainingSeconds).toBe(3595);
    expect(computed()).toBe(2);
  });

  test('a kept answer does not see a change until invalidate()', () => {
    const { checks, index, login } = harness([record(1, { type: 'TEMPBAN', expiresAt: T0 + HOUR })], 60_000);
    expect(login(A).id).toBe(1);
    index.add(record(2));
    expect(login(A).id).toBe(1);
    checks.invalidate();
    expect(login(A).id).toBe(2);

    index.remove(1);
    index.remove(2);
    expect(login(A).id).toBe(2);
    checks.invalidate();
    expect(login(A).punished).toBe(false);
  });

  test('a kept not-punished answer is dropped by invalidate() too', () => {
    const { checks, index, mute } = harness([], 60_000);
    expect(mute(A).punished).toBe(false);
    index.add(record(1, { type: 'MUTE' }));
    expect(mute(A).punished).toBe(false);
    checks.invalidate();
    expect(mute(A).id).toBe(1);
  });

  test('a kept answer never outlives the winning record’s end', () => {
    const end = T0 + 2 * SECOND;
    const { checks, clock } = harness([record(1, { type: 'TEMPBAN', expiresAt: end })], 60_000);
    const first = checks.loginJson(A, undefined, {});
    expect((JSON.parse(first) as CheckAnswer).punished).toBe(true);
    clock.now = end - 1;
    expect(checks.loginJson(A, undefined, {})).toBe(first);
    clock.now = end;
    expect(JSON.parse(checks.loginJson(A, undefined, {}))).toEqual(NOT_PUNISHED);
  });

  test('when the winner ends inside the ttl, the next record in force decides', () => {
    const end = T0 + 2 * SECOND;
    const { login, clock } = harness([record(1), record(2, { type: 'IPBAN', targetIp: IP_X, expiresAt: end })], 60_000);
    expect(login(A, IP_X).id).toBe(2);
    clock.now = end;
    expect(login(A, IP_X)).toMatchObject({ punished: true, id: 1, remainingSeconds: null });
  });

  test('answers are kept per question: account, address, place and kind', () => {
    const { login, mute, computed } = harness([record(1, { scope: 'GROUP', scopeTarget: 'Lobby' }), record(2, { type: 'MUTE' })], 60_000);
    expect(login(A).punished).toBe(false);
    expect(login(A, undefined, { group: 'Lobby' }).id).toBe(1);
    expect(login(A, IP_X, { group: 'Lobby' }).id).toBe(1);
    expect(login(B, undefined, { group: 'Lobby' }).punished).toBe(false);
    expect(mute(A).id).toBe(2);
    expect(mute(A, { group: 'Lobby' }).id).toBe(2);
    expect(computed()).toBe(6);
    // The same questions again are answered from the cache.
    expect(login(A).punished).toBe(false);
    expect(login(A, undefined, { group: 'Lobby' }).id).toBe(1);
    expect(mute(A).id).toBe(2);
    expect(computed()).toBe(6);
  });

  test('ttl 0 never keeps an answer', () => {
    const { clock, index, login, computed } = harness([record(1, { type: 'TEMPBAN', expiresAt: T0 + HOUR })], 0);
    expect(login(A).remainingSeconds).toBe(3600);
    clock.now = T0 + SECOND;
    expect(login(A).remainingSeconds).toBe(3599);
    index.add(record(2));
    expect(login(A).id).toBe(2);
    expect(computed()).toBe(3);
  });
});

describe('CheckAnswers: the TTL cache across wall-clock steps', () => {
  test('an answer is kept check_cache_ttl of monotonic time: a step back of an hour does not keep it an hour longer', () => {
    const index = new CountingIndex();
    index.load([record(1, { type: 'TEMPBAN', expiresAt: T0 + 2 * HOUR })]);
    const clock = { wall: T0, mono: 1_000 };
    const checks = new CheckAnswers(index, () => TAGGED, 5000, () => clock.wall, () => clock.mono);
    const first = checks.loginJson(A, undefined, {});
    clock.wall -= HOUR;
    clock.mono += 5000 - 1;
    expect(checks.loginJson(A, undefined, {})).toBe(first);
    expect(index.lookups).toBe(1);
    clock.mono += 1;
    checks.loginJson(A, undefined, {});
    expect(index.lookups).toBe(2);
  });

  test('a step forward past the record\'s end drops the kept answer at once: the record ends by the wall clock', () => {
    const index = new CountingIndex();
    index.load([record(1, { type: 'TEMPBAN', expiresAt: T0 + HOUR })]);
    const clock = { wall: T0, mono: 1_000 };
    const checks = new CheckAnswers(index, () => TAGGED, 5000, () => clock.wall, () => clock.mono);
    expect((JSON.parse(checks.loginJson(A, undefined, {})) as CheckAnswer).id).toBe(1);
    clock.wall += HOUR;
    expect((JSON.parse(checks.loginJson(A, undefined, {})) as CheckAnswer).id).not.toBe(1);
  });
});
