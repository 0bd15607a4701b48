/**
 * POST /api/punishments through a real controller: every type's record, the refusals (each
 * with its code, and nothing stored after any of them), the order the checks run in, what a
 * new punishment supersedes, who the issuer is (from the credential, never a body a caller
 * may not vouch for), the event and its audit entry, and a KICK carried out by a READY proxy.
 * The name lookup is off (`name_lookup_url = ""`), so an unknown name is a 404 without any
 * network call.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcEvent } from '../../../src/events/catalogue';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import type { PunishmentView } from '../../../src/modules/punishments/model';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../../support/controller';
import { bringOnline, loginAs, testPlayer } from '../../support/dashboard-login';

const RECORDER = join(import.meta.dir, '../../fixtures/console-recorder.ts');
const DAY = 86_400_000;

let c: TestController;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES, toml: '[punishments]\nname_lookup_url = ""\nexpiry_check_interval = 3600', timing: { stopTimeoutMs: 5000 } });
  c.controller.kernel.bus.subscribe((e) => events.push(e));
});
afterAll(() => c.stop());

let next = 0;
/** A fresh target per test, so no test's records supersede or hide another's. */
function target(name?: string): { targetUuid: string; targetName: string } {
  next += 1;
  return { targetUuid: `aaaaaaaa-0000-4000-8000-${next.toString(16).padStart(12, '0')}`, targetName: name ?? `Target${next}` };
}

const issue = (json: unknown, token?: string | null) => c.api('/api/punishments', { method: 'POST', json, token });

async function issued(json: Record<string, unknown>, token?: string | null): Promise<PunishmentView> {
  const res = await issue(json, token);
  const body = await readJson(res);
  expect({ status: res.status, body }).toEqual({ status: 201, body: expect.objectContaining({ type: expect.any(String) }) });
  return body as PunishmentView;
}

async function get(id: number): Promise<PunishmentView> {
  const res = await c.api(`/api/punishments/${id}`);
  expect(res.status).toBe(200);
  return (await readJson(res)) as PunishmentView;
}

/** Every record stored, in force or not. */
async function storedCount(): Promise<number> {
  return (await readJson(await c.api('/api/punishments?active=false&limit=1'))).total;
}

const issuedEvents = () => events.filter((e) => e.type === 'PUNISHMENT_ISSUED');

/** Asserts the refusal's status and code, that nothing was stored and no event went out; the error body. */
async function refused(label: string, json: unknown, status: number, error: string, token?: string | null): Promise<{ message: string }> {
  const before = await storedCount();
  const eventsBefore = issuedEvents().length;
  const res = await issue(json, token);
  const body = await expectErrorBody(res);
  expect({ label, status: res.status, error: body.error }).toEqual({ label, status, error });
  expect({ label, stored: await storedCount(), issuedEvents: issuedEvents().length }).toEqual({ label, stored: before, issuedEvents: eventsBefore });
  return body;
}

describe('issuing each type', () => {
  test('a permanent BAN answers 201 with every field of the record, and GET /{id} reads the same', async () => {
    const who = target('Griefer');
    const before = Date.now();
    const ban = await issued({ type: 'BAN', ...who, reason: '  griefing spawn  ' });
    const after = Date.now();
    expect(ban).toEqual({
      id: expect.any(Number),
      type: 'BAN',
      targetUuid: who.targetUuid,
      targetName: 'Griefer',
      targetIp: null,
      reason: 'griefing spawn',
      issuer: 'api:admin',
      issuerName: 'API',
      issuedAt: expect.any(String),
      expiresAt: null,
      active: true,
      revokedBy: null,
      revokedAt: null,
      revokeReason: null,
      scope: 'NETWORK',
      scopeTarget: null,
    });
    const at = Date.parse(ban.issuedAt);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    expect(await get(ban.id)).toEqual(ban);
  });

  test('TEMPBAN, TEMPMUTE, and BAN or MUTE with a duration end that long after they are issued; the type is kept', async () => {
    for (const [type, duration, ms] of [
      ['TEMPBAN', '1d', DAY],
      ['TEMPMUTE', '30m', 30 * 60_000],
      ['BAN', '2w', 14 * DAY],
      ['MUTE', '1d12h', 36 * 3_600_000],
      ['TEMPBAN', '1 D 2 H', DAY + 2 * 3_600_000],
      ['TEMPMUTE', '2mo', 60 * DAY],
      ['TEMPBAN', '1y', 365 * DAY],
    ] as const) {
      const p = await issued({ type, ...target(), duration });
      expect({ type, duration, kept: p.type, active: p.active, lasts: Date.parse(p.expiresAt!) - Date.parse(p.issuedAt) }).toEqual({ type, duration, kept: type, active: true, lasts: ms });
    }
  });

  test('a permanent MUTE, and a duration of perm or 0 on a BAN, have no end', async () => {
    for (const [type, duration] of [['MUTE', undefined], ['BAN', 'perm'], ['BAN', 'permanent'], ['MUTE', '0'], ['BAN', '']] as const) {
      const p = await issued({ type, ...target(), ...(duration !== undefined ? { duration } : {}) });
      expect({ type, duration, expiresAt: p.expiresAt, active: p.active }).toEqual({ type, duration, expiresAt: null, active: true });
    }
  });

  test('an IPBAN stores its address in one spelling (IPv4-mapped IPv6 as IPv4, IPv6 compressed lower case)', async () => {
    for (const [given, stored] of [
      ['203.0.113.9', '203.0.113.9'],
      [' ::ffff:203.0.113.10 ', '203.0.113.10'],
      ['[2001:DB8:0:0::1]', '2001:db8::1'],
    ] as const) {
      const p = await issued({ type: 'IPBAN', ...target(), targetIp: given });
      expect({ given, type: p.type, targetIp: p.targetIp, expiresAt: p.expiresAt, active: p.active }).toEqual({ given, type: 'IPBAN', targetIp: stored, expiresAt: null, active: true });
    }
  });

  test('a WARN is stored inactive with no end, even when a duration (valid or not) is sent', async () => {
    for (const duration of [undefined, '1d', 'perm', 'nonsense']) {
      const p = await issued({ type: 'WARN', ...target(), reason: 'language', ...(duration !== undefined ? { duration } : {}) });
      expect({ duration, type: p.type, active: p.active, expiresAt: p.expiresAt, revokedAt: p.revokedAt }).toEqual({ duration, type: 'WARN', active: false, expiresAt: null, revokedAt: null });
      expect((await get(p.id)).active).toBe(false);
    }
  });

  test('type and scope are read in any case and stored upper case; scopeTarget is kept as written', async () => {
    const a = await issued({ type: 'tempBan', ...target(), duration: '1h', scope: 'group', scopeTarget: 'BedWars' });
    expect([a.type, a.scope, a.scopeTarget]).toEqual(['TEMPBAN', 'GROUP', 'BedWars']);
    const b = await issued({ type: ' mute ', ...target(), scope: 'Service', scopeTarget: ' Lobby-1 ' });
    expect([b.type, b.scope, b.scopeTarget]).toEqual(['MUTE', 'SERVICE', 'Lobby-1']);
    const d = await issued({ type: 'ban', ...target(), scope: 'network', scopeTarget: 'ignored' });
    expect([d.type, d.scope, d.scopeTarget]).toEqual(['BAN', 'NETWORK', null]);
  });

  test('the target: an undashed targetUuid is stored dashed; a uuid-shaped targetName is the uuid; a name the players module saw resolves offline', async () => {
    const undashed = await issued({ type: 'WARN', targetName: 'Undashed', targetUuid: 'AAAAAAAA00004000800000000000ABCD' });
    expect(undashed.targetUuid).toBe('aaaaaaaa-0000-4000-8000-00000000abcd');
    const byUuidName = await issued({ type: 'WARN', targetName: 'aaaaaaaa-0000-4000-8000-00000000abce' });
    expect(byUuidName.targetUuid).toBe('aaaaaaaa-0000-4000-8000-00000000abce');
    const seen = testPlayer(900, 'SeenBefore');
    await bringOnline(c, seen);
    const bySeenName = await issued({ type: 'WARN', targetName: 'SeenBefore' });
    expect([bySeenName.targetUuid, bySeenName.targetName]).toEqual([seen.uuid, 'SeenBefore']);
    // Given only the uuid of a player the players module knows, the record carries their name.
    const byUuidOnly = await issued({ type: 'WARN', targetName: '', targetUuid: seen.uuid });
    expect(byUuidOnly.targetName).toBe('SeenBefore');
  });
});

describe('refusals store nothing', () => {
  test('unknown type or scope, an unknown body key, a missing or mistyped field: 400 VALIDATION_FAILED', async () => {
    const who = target();
    const cases: [string, unknown][] = [
      ['unknown type', { type: 'JAIL', ...who }],
      ['empty type', { type: '', ...who }],
      ['missing type', { ...who }],
      ['numeric type', { type: 1, ...who }],
      ['unknown scope (not silently NETWORK)', { type: 'BAN', ...who, scope: 'PLANET' }],
      ['empty scope', { type: 'BAN', ...who, scope: '' }],
      ['unknown body key', { type: 'BAN', ...who, silent: true }],
      ['missing targetName', { type: 'BAN', targetUuid: who.targetUuid }],
      ['numeric reason', { type: 'BAN', ...who, reason: 5 }],
      ['newline in reason', { type: 'BAN', ...who, reason: 'line one\nline two' }],
      ['carriage return in reason', { type: 'BAN', ...who, reason: 'a\rb' }],
      ['newline in targetName', { type: 'BAN', ...who, targetName: 'a\nb' }],
      ['lone surrogate in reason', { type: 'BAN', ...who, reason: 'bad \ud800 text' }],
      ['reason over 1024 characters', { type: 'BAN', ...who, reason: 'x'.repeat(1025) }],
      ['GROUP without scopeTarget', { type: 'BAN', ...who, scope: 'GROUP' }],
      ['GROUP with a null scopeTarget', { type: 'BAN', ...who, scope: 'GROUP', scopeTarget: null }],
      ['SERVICE with a blank scopeTarget', { type: 'MUTE', ...who, scope: 'SERVICE', scopeTarget: '   ' }],
      ['a body that is no object', ['BAN']],
    ];
    for (const [label, json] of cases) await refused(label, json, 400, 'VALIDATION_FAILED');
    const unknownScope = await refused('unknown scope names the field', { type: 'BAN', ...who, scope: 'PLANET' }, 400, 'VALIDATION_FAILED');
    expect(unknownScope.message).toContain('scope');
  });

  test('a target that cannot be named: 400 PUNISHMENT_TARGET_INVALID', async () => {
    const cases: [string, unknown][] = [
      ['blank targetName, no targetUuid', { type: 'BAN', targetName: '   ' }],
      ['empty targetName, null targetUuid', { type: 'BAN', targetName: '', targetUuid: null }],
      ['malformed targetUuid', { type: 'BAN', targetName: 'Someone', targetUuid: 'not-a-uuid' }],
      ['targetUuid one digit short', { type: 'BAN', targetName: 'Someone', targetUuid: 'aaaaaaaa-0000-4000-8000-00000000000' }],
      ['a name no player can have', { type: 'BAN', targetName: 'two words' }],
      ['IPBAN without targetIp', { type: 'IPBAN', ...target() }],
      ['IPBAN with a blank targetIp', { type: 'IPBAN', ...target(), targetIp: '  ' }],
      ['IPBAN with a null targetIp', { type: 'IPBAN', ...target(), targetIp: null }],
      ['IPBAN with an octet over 255', { type: 'IPBAN', ...target(), targetIp: '256.1.1.1' }],
      ['IPBAN with a host name', { type: 'IPBAN', ...target(), targetIp: 'example.com' }],
      ['IPBAN with an address and port', { type: 'IPBAN', ...target(), targetIp: '1.2.3.4:25565' }],
    ];
    for (const [label, json] of cases) await refused(label, json, 400, 'PUNISHMENT_TARGET_INVALID');
  });

  test('a name neither the players module nor the (disabled) lookup knows: 404 PUNISHMENT_TARGET_INVALID', async () => {
    const body = await refused('unknown name', { type: 'BAN', targetName: 'NobodyKnowsMe' }, 404, 'PUNISHMENT_TARGET_INVALID');
    expect(body.message).toContain('NobodyKnowsMe');
  });

  test('a duration that is missing, permanent where it may not be, garbage, zero or too long: 400 PUNISHMENT_DURATION_INVALID', async () => {
    const cases: [string, string | null | undefined][] = [
      ['TEMPBAN', undefined],
      ['TEMPBAN', null],
      ['TEMPBAN', '  '],
      ['TEMPBAN', 'perm'],
      ['TEMPMUTE', 'PERMANENT'],
      ['TEMPMUTE', '0'],
      ['TEMPBAN', 'abc5m'],
      ['TEMPBAN', '5m abc'],
      ['BAN', '5x'],
      ['MUTE', '1.5h'],
      ['TEMPBAN', '-5m'],
      ['TEMPBAN', '5m5m'],
      ['TEMPBAN', 'm'],
      ['TEMPBAN', '0m'],
      ['TEMPMUTE', '0d0h'],
      ['TEMPBAN', '101y'],
      ['BAN', '999999y'],
      ['TEMPBAN', '1234567m'],
      ['IPBAN', 'soon'],
    ];
    for (const [type, duration] of cases) {
      const body = { type, ...target(), ...(type === 'IPBAN' ? { targetIp: '192.0.2.1' } : {}), ...(duration !== undefined ? { duration } : {}) };
      await refused(`${type} ${JSON.stringify(duration)}`, body, 400, 'PUNISHMENT_DURATION_INVALID');
    }
  });
});

describe('the order of the checks', () => {
  test('type first, then the IP, the scope target, the duration, and the name resolution last', async () => {
    // An unknown type wins over every other fault in the body.
    const typeFirst = await refused('type first', { type: 'JAIL', targetName: '', scope: 'PLANET', duration: 'x' }, 400, 'VALIDATION_FAILED');
    expect(typeFirst.message).toContain('type');
    await refused('IP before scope target', { type: 'IPBAN', targetName: 'NobodyKnowsMe', scope: 'GROUP', duration: 'x' }, 400, 'PUNISHMENT_TARGET_INVALID');
    await refused('scope target before duration', { type: 'TEMPBAN', targetName: 'NobodyKnowsMe', scope: 'GROUP', duration: 'x' }, 400, 'VALIDATION_FAILED');
    // Every local fault is found before the name is looked up (no network call for a body that is wrong anyway).
    await refused('duration before name lookup', { type: 'TEMPBAN', targetName: 'NobodyKnowsMe', duration: 'x' }, 400, 'PUNISHMENT_DURATION_INVALID');
    await refused('name lookup last', { type: 'TEMPBAN', targetName: 'NobodyKnowsMe', duration: '1h' }, 404, 'PUNISHMENT_TARGET_INVALID');
  });
});

describe('supersede', () => {
  test('a second BAN at the same scope revokes the first: revokedBy is the new issuer, the reason names the new id, PUNISHMENT_REVOKED goes out', async () => {
    const who = target();
    const first = await issued({ type: 'BAN', ...who, reason: 'first' });
    const before = events.length;
    const second = await issued({ type: 'BAN', ...who, reason: 'second', issuerName: 'ModMary' });
    const old = await get(first.id);
    expect(old).toMatchObject({ active: false, revokedBy: 'ModMary', revokedAt: second.issuedAt });
    expect(old.revokeReason).toContain(String(second.id));
    expect((await get(second.id)).active).toBe(true);
    const revoked = events.slice(before).filter((e) => e.type === 'PUNISHMENT_REVOKED');
    expect(revoked.map((e) => e.data)).toEqual([
      { id: String(first.id), type: 'BAN', target: who.targetName, revokedBy: 'ModMary', reason: old.revokeReason!, moduleId: 'punishments' },
    ]);
    expect(revoked[0]!.actor).toBe('api:admin');
    const active = await readJson(await c.api('/api/punishments?type=BAN&limit=500'));
    expect(active.punishments.filter((p: PunishmentView) => p.targetUuid === who.targetUuid).map((p: PunishmentView) => p.id)).toEqual([second.id]);
  });

  test('TEMPBAN supersedes BAN (one kind); a GROUP ban leaves the NETWORK ban; a MUTE leaves both bans', async () => {
    const who = target();
    const network = await issued({ type: 'BAN', ...who });
    const grouped = await issued({ type: 'BAN', ...who, scope: 'GROUP', scopeTarget: 'BedWars' });
    expect((await get(network.id)).active).toBe(true);
    const mute = await issued({ type: 'MUTE', ...who });
    expect([(await get(network.id)).active, (await get(grouped.id)).active]).toEqual([true, true]);
    const temp = await issued({ type: 'TEMPBAN', ...who, duration: '1d' });
    const after = await get(network.id);
    expect([after.active, after.revokeReason]).toEqual([false, `Superseded by punishment ${temp.id}`]);
    // Only the ban at the new one's scope went; the group ban and the mute stay.
    expect([(await get(grouped.id)).active, (await get(mute.id)).active, (await get(temp.id)).active]).toEqual([true, true, true]);
  });

  test('the scope target matches in any case; an IPBAN and a WARN supersede nothing of another kind', async () => {
    const who = target();
    const lower = await issued({ type: 'MUTE', ...who, scope: 'GROUP', scopeTarget: 'lobby' });
    const upper = await issued({ type: 'TEMPMUTE', ...who, scope: 'group', scopeTarget: 'LOBBY', duration: '1h' });
    expect((await get(lower.id)).revokeReason).toBe(`Superseded by punishment ${upper.id}`);
    const ban = await issued({ type: 'BAN', ...who });
    const ipban = await issued({ type: 'IPBAN', ...who, targetIp: '198.51.100.7' });
    await issued({ type: 'WARN', ...who });
    expect([(await get(ban.id)).active, (await get(ipban.id)).active, (await get(upper.id)).active]).toEqual([true, true, true]);
    const ipban2 = await issued({ type: 'IPBAN', ...who, targetIp: '198.51.100.8' });
    expect((await get(ipban.id)).revokeReason).toBe(`Superseded by punishment ${ipban2.id}`);
    expect((await get(ban.id)).active).toBe(true);
  });
});

describe('the issuer comes from the caller', () => {
  test('the master and service tokens may name issuer and issuerName; without them the issuer is the token and the name API', async () => {
    const cases: [string, string, Record<string, string>, string, string][] = [
      ['master, nothing named', c.master, {}, 'api:admin', 'API'],
      ['service, nothing named', c.service, {}, 'api:service', 'API'],
      ['master, both named', c.master, { issuer: '11111111-2222-4333-8444-555555555555', issuerName: 'StaffSam' }, '11111111-2222-4333-8444-555555555555', 'StaffSam'],
      ['service, both named', c.service, { issuer: 'proxy-staff', issuerName: 'StaffPat' }, 'proxy-staff', 'StaffPat'],
      ['service, only issuerName', c.service, { issuerName: 'StaffKim' }, 'api:service', 'StaffKim'],
      ['master, only issuer', c.master, { issuer: 'console-bot' }, 'console-bot', 'console-bot'],
      ['master, blank names', c.master, { issuer: '  ', issuerName: '' }, 'api:admin', 'API'],
    ];
    for (const [label, token, named, issuer, issuerName] of cases) {
      const p = await issued({ type: 'WARN', ...target(), ...named }, token);
      expect({ label, issuer: p.issuer, issuerName: p.issuerName }).toEqual({ label, issuer, issuerName });
    }
  });

  test('no token, or a wrong one: 401 and nothing stored', async () => {
    await refused('no token', { type: 'BAN', ...target() }, 401, 'UNAUTHORIZED', null);
    await refused('a wrong token', { type: 'BAN', ...target() }, 401, 'AUTH_FAILED', 'not-the-token');
  });
});

describe('a dashboard session', () => {
  test('issues as its player whatever the body names, and the event and audit entry carry the session as actor', async () => {
    const staff = testPlayer(1, 'StaffAlice');
    const token = await loginAs(c, staff, ['svc.dashboard.punishments.view', 'svc.dashboard.punishments.ban']);
    const before = events.length;
    const p = await issued({ type: 'BAN', ...target(), issuer: 'dashboard', issuerName: 'Dashboard', reason: 'from the web' }, token);
    expect([p.issuer, p.issuerName]).toEqual([staff.uuid, 'StaffAlice']);
    const event = events.slice(before).find((e) => e.type === 'PUNISHMENT_ISSUED')!;
    expect([event.data.issuer, event.actor]).toEqual(['StaffAlice', 'dashboard:StaffAlice']);
    const audit = await readJson(await c.api('/api/audit?action=PUNISHMENT_ISSUED&limit=500'));
    const entry = audit.entries.find((e: { details: string }) => e.details.startsWith(`id=${p.id},`));
    expect(entry.actor).toBe('dashboard:StaffAlice');
  });

  test('needs svc.dashboard.punishments.view for the route and svc.dashboard.punishments.<type> for the type; .* grants every type', async () => {
    const viewOnly = await loginAs(c, testPlayer(2, 'ViewOnly'), ['svc.dashboard.punishments.view']);
    for (const type of ['BAN', 'tempban', 'IPBAN', 'MUTE', 'TEMPMUTE', 'KICK', 'WARN']) {
      const body = await refused(`view only, ${type}`, { type, ...target(), duration: '1h', targetIp: '192.0.2.5' }, 403, 'FORBIDDEN', viewOnly);
      expect(body.message).toStartWith(`Missing permission: svc.dashboard.punishments.${type.toLowerCase()}`);
    }
    // The type node is checked before the body's other faults: a refused session learns nothing from validation.
    const early = await refused('view only, bad duration', { type: 'TEMPBAN', ...target(), duration: 'garbage' }, 403, 'FORBIDDEN', viewOnly);
    expect(early.message).toStartWith('Missing permission: svc.dashboard.punishments.tempban');

    const banOnly = await loginAs(c, testPlayer(3, 'BanOnly'), ['svc.dashboard.punishments.ban']);
    const noView = await refused('ban without view', { type: 'BAN', ...target() }, 403, 'FORBIDDEN', banOnly);
    expect(noView.message).toStartWith('Missing permission: svc.dashboard.punishments.view');

    const muter = await loginAs(c, testPlayer(4, 'Muter'), ['svc.dashboard.punishments.view', 'svc.dashboard.punishments.mute']);
    expect((await issued({ type: 'MUTE', ...target() }, muter)).issuerName).toBe('Muter');
    await refused('mute node is not tempmute', { type: 'TEMPMUTE', ...target(), duration: '1h' }, 403, 'FORBIDDEN', muter);

    const all = await loginAs(c, testPlayer(5, 'AllTypes'), ['svc.dashboard.punishments.*']);
    for (const [type, extra] of [['BAN', {}], ['TEMPBAN', { duration: '1h' }], ['IPBAN', { targetIp: '192.0.2.6' }], ['TEMPMUTE', { duration: '1h' }], ['WARN', {}]] as const) {
      expect((await issued({ type, ...target(), ...extra }, all)).issuer).toBe(testPlayer(5).uuid);
    }
  });
});

describe('PUNISHMENT_ISSUED', () => {
  test('carries exactly the spec keys: expiresAt empty when permanent, scopeTarget only when scoped, kickMessage rendered', async () => {
    const who = target('EventTarget');
    const before = events.length;
    const ban = await issued({ type: 'BAN', ...who, reason: 'x-ray' });
    const scoped = await issued({ type: 'TEMPMUTE', ...who, duration: '1h', scope: 'SERVICE', scopeTarget: 'Lobby-1', reason: 'spam' }, c.service);
    const got = events.slice(before).filter((e) => e.type === 'PUNISHMENT_ISSUED');
    expect(got.map((e) => e.data)).toEqual([
      {
        id: String(ban.id),
        type: 'BAN',
        target: 'EventTarget',
        targetUuid: who.targetUuid,
        issuer: 'API',
        reason: 'x-ray',
        expiresAt: '',
        scope: 'NETWORK',
        kickMessage: '§c§lYou are banned from the network\n§7Reason: §fx-ray\n§7Banned by: §fAPI\n§7Appeal at our support portal.',
        moduleId: 'punishments',
      },
      {
        id: String(scoped.id),
        type: 'TEMPMUTE',
        target: 'EventTarget',
        targetUuid: who.targetUuid,
        issuer: 'API',
        reason: 'spam',
        expiresAt: scoped.expiresAt!,
        scope: 'SERVICE',
        scopeTarget: 'Lobby-1',
        kickMessage: '§cYou are muted for §f1h§c: §fspam',
        moduleId: 'punishments',
      },
    ]);
    expect(got.map((e) => e.actor)).toEqual(['api:admin', 'api:service']);
  });

  test('a BAN with a duration reads as temporary in its message; a blank reason reads "No reason given"', async () => {
    const before = events.length;
    await issued({ type: 'BAN', ...target(), duration: '2h', issuerName: 'Mod' });
    const event = events.slice(before).find((e) => e.type === 'PUNISHMENT_ISSUED')!;
    expect(event.data.kickMessage).toBe('§c§lYou are temporarily banned\n§7Reason: §fNo reason given\n§7Banned by: §fMod\n§7Expires in: §f2h');
  });

  test('reaches the audit log with the caller as actor', async () => {
    const byMaster = await issued({ type: 'WARN', ...target() });
    const byService = await issued({ type: 'WARN', ...target() }, c.service);
    const audit = await readJson(await c.api('/api/audit?action=PUNISHMENT_ISSUED&limit=500'));
    const actorOf = (id: number) => audit.entries.find((e: { details: string }) => e.details.startsWith(`id=${id},`))?.actor;
    expect([actorOf(byMaster.id), actorOf(byService.id)]).toEqual(['api:admin', 'api:service']);
    // The target column names the punished player, not the scope or the module.
    const entry = audit.entries.find((e: { details: string }) => e.details.startsWith(`id=${byMaster.id},`));
    expect(entry.target).toBe(byMaster.targetName);
  });
});

describe('KICK', () => {
  const consoleOf = (name: string): string[] => {
    const file = join(c.controller.kernel.services.get(name)!.workDir, 'console-input.txt');
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  };

  test('without a READY proxy: 503 PROXY_NOT_AVAILABLE and nothing stored', async () => {
    await refused('kick, no proxy', { type: 'KICK', ...target(), reason: 'bye' }, 503, 'PROXY_NOT_AVAILABLE');
  });

  test('with a READY proxy: the proxy console gets `velocity kick <name> <message on one line>` and the KICK is recorded', async () => {
    const proxy = { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: [process.execPath, RECORDER], minInstances: 0 };
    expect((await c.api('/api/groups', { method: 'POST', json: proxy })).status).toBe(201);
    expect((await c.api('/api/services/Proxy/start', { method: 'POST' })).status).toBe(201);
    await waitFor(async () => (await readJson(await c.api('/api/services/Proxy-1'))).state === 'READY', { timeoutMs: 20_000, what: 'Proxy-1 READY', intervalMs: 50 });

    const kicked = await issued({ type: 'KICK', ...target('Kicky'), reason: 'be nice', duration: '1d' });
    expect([kicked.type, kicked.active, kicked.expiresAt]).toEqual(['KICK', false, null]);
    await waitFor(() => consoleOf('Proxy-1').includes('velocity kick Kicky §cKicked: §fbe nice'), { what: 'the kick on the proxy console' });

    // A template of several lines reaches the console as one line: a newline would be a second command.
    expect((await c.api('/api/punishments/messages', { method: 'PUT', json: { kick: '&cKicked\n&7{reason}\nstop' } })).status).toBe(200);
    await issued({ type: 'KICK', ...target('Kicky2'), reason: 'again' });
    await waitFor(() => consoleOf('Proxy-1').includes('velocity kick Kicky2 §cKicked §7again stop'), { what: 'the one-line kick' });
    expect(consoleOf('Proxy-1')).not.toContain('stop');
    expect(c.controller.kernel.services.get('Proxy-1')!.state).toBe('READY');

    // A player the proxy reported leaving is not kicked, and nothing is recorded.
    const gone = testPlayer(950, 'GonePlayer');
    await bringOnline(c, gone);
    expect((await c.api('/api/proxy/events', { method: 'POST', token: c.service, json: { type: 'PLAYER_DISCONNECTED', player: gone.name, uuid: gone.uuid, service: 'Lobby-1' } })).status).toBe(200);
    await refused('kick of an offline player', { type: 'KICK', targetName: gone.name, targetUuid: gone.uuid }, 404, 'PLAYER_NOT_ONLINE');
  }, 30_000);
});
