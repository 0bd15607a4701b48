/**
 * GET /api/punishments/check/{uuid} and /mute/{uuid} over HTTP, as the proxy (login and
 * server switch) and backend (chat) plugins call them: the answer's shape, scopes, IP bans,
 * which record wins when several hold, that a change is visible to the very next check even
 * with answers kept for 60 s, the cache header, and that these routes are for tokens only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import type { CheckAnswer, PunishmentView } from '../../../src/modules/punishments/model';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';

const TTL = 60;

let c: TestController;

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES, toml: `[punishments]\ncheck_cache_ttl = ${TTL}\nname_lookup_url = ""\nexpiry_check_interval = 3600` });
});
afterAll(() => c.stop());

let next = 0;
/** A fresh player per use, so no test's records supersede or hide another's. */
function player(name?: string): { targetUuid: string; targetName: string } {
  next += 1;
  return { targetUuid: `cccccccc-0000-4000-8000-${next.toString(16).padStart(12, '0')}`, targetName: name ?? `Player${next}` };
}

const NOT_PUNISHED: CheckAnswer = {
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

async function issued(json: Record<string, unknown>): Promise<PunishmentView> {
  const res = await c.api('/api/punishments', { method: 'POST', json });
  const body = await readJson(res);
  expect({ status: res.status, body }).toEqual({ status: 201, body: expect.objectContaining({ id: expect.any(Number) }) });
  return body as PunishmentView;
}

async function answer(kind: 'check' | 'mute', uuid: string, query = '', token?: string): Promise<CheckAnswer> {
  const path = `/api/punishments/${kind}/${uuid}${query}`;
  const res = await c.api(path, { token: token ?? c.service });
  const body = await readJson(res);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return body as CheckAnswer;
}
const login = (uuid: string, query = '') => answer('check', uuid, query);
const chat = (uuid: string, query = '') => answer('mute', uuid, query);
/** The id of the record that decides the answer, or null when not punished. */
const loginId = async (uuid: string, query = '') => (await login(uuid, query)).id;
const chatId = async (uuid: string, query = '') => (await chat(uuid, query)).id;

describe('the answer', () => {
  test('not punished: every key present and null but punished:false; the cache header says how long it may be kept', async () => {
    const who = player();
    for (const kind of ['check', 'mute'] as const) {
      const res = await c.api(`/api/punishments/${kind}/${who.targetUuid}?group=Lobby&service=Lobby-1`, { token: c.service });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe(`private, max-age=${TTL}`);
      expect(res.headers.get('content-type')).toStartWith('application/json');
      expect(await readJson(res)).toEqual(NOT_PUNISHED);
    }
  });

  test('a NETWORK ban blocks at login and at every group and service, with every field and the rendered message', async () => {
    const who = player('Cheater');
    const ban = await issued({ type: 'BAN', ...who, reason: 'kill aura', issuerName: 'ModAnn' });
    const expected: CheckAnswer = {
      punished: true,
      id: ban.id,
      type: 'BAN',
      reason: 'kill aura',
      issuerName: 'ModAnn',
      issuedAt: ban.issuedAt,
      expiresAt: null,
      remainingSeconds: null,
      scope: 'NETWORK',
      scopeTarget: null,
      kickMessage: '§c§lYou are banned from the network\n§7Reason: §fkill aura\n§7Banned by: §fModAnn\n§7Appeal at our support portal.',
    };
    for (const query of ['', '?group=Lobby', '?service=Lobby-1', '?group=BedWars&service=BedWars-2&ip=192.0.2.1']) {
      expect({ query, answer: await login(who.targetUuid, query) }).toEqual({ query, answer: expected });
    }
    // An undashed uuid is the same player; a ban is no mute.
    expect(await login(who.targetUuid.replace(/-/g, '').toUpperCase())).toEqual(expected);
    expect(await chat(who.targetUuid)).toEqual(NOT_PUNISHED);
  });

  test('a temporary ban says when it ends and how many seconds are left', async () => {
    const who = player('Temp');
    const ban = await issued({ type: 'TEMPBAN', ...who, duration: '1h', reason: 'spam' });
    const got = await login(who.targetUuid);
    expect(got).toMatchObject({ punished: true, id: ban.id, type: 'TEMPBAN', expiresAt: ban.expiresAt });
    expect(got.remainingSeconds).toBeGreaterThan(3500);
    expect(got.remainingSeconds).toBeLessThanOrEqual(3600);
    expect(got.kickMessage).toBe('§c§lYou are temporarily banned\n§7Reason: §fspam\n§7Banned by: §fAPI\n§7Expires in: §f1h');
  });

  test('a malformed uuid or ip is a 400 VALIDATION_FAILED', async () => {
    for (const path of [
      '/check/not-a-uuid',
      '/mute/not-a-uuid',
      '/check/cccccccc-0000-4000-8000-00000000000',
      '/check/cccccccc-0000-4000-8000-000000000001?ip=999.1.1.1',
      '/check/cccccccc-0000-4000-8000-000000000001?ip=example.com',
      '/check/cccccccc-0000-4000-8000-000000000001?ip=1.2.3.4:25565',
    ]) {
      const res = await c.api(`/api/punishments${path}`, { token: c.service });
      const body = await expectErrorBody(res);
      expect({ path, status: res.status, error: body.error }).toEqual({ path, status: 400, error: 'VALIDATION_FAILED' });
    }
  });
});

describe('scopes', () => {
  test('a GROUP ban blocks only where the group is named (any case), never at the first login', async () => {
    const who = player();
    const ban = await issued({ type: 'BAN', ...who, scope: 'GROUP', scopeTarget: 'BedWars' });
    expect(await loginId(who.targetUuid)).toBeNull();
    expect(await loginId(who.targetUuid, '?group=SkyWars')).toBeNull();
    expect(await loginId(who.targetUuid, '?service=BedWars')).toBeNull();
    for (const query of ['?group=BedWars', '?group=bedwars', '?group=BEDWARS&service=BedWars-3']) {
      expect({ query, id: await loginId(who.targetUuid, query) }).toEqual({ query, id: ban.id });
    }
    expect(await login(who.targetUuid, '?group=bedwars')).toMatchObject({ scope: 'GROUP', scopeTarget: 'BedWars' });
  });

  test('a SERVICE ban blocks only where the service is named (any case)', async () => {
    const who = player();
    const ban = await issued({ type: 'TEMPBAN', ...who, duration: '1d', scope: 'SERVICE', scopeTarget: 'BedWars-2' });
    expect(await loginId(who.targetUuid)).toBeNull();
    expect(await loginId(who.targetUuid, '?group=BedWars-2')).toBeNull();
    expect(await loginId(who.targetUuid, '?group=BedWars&service=BedWars-1')).toBeNull();
    expect(await loginId(who.targetUuid, '?group=BedWars&service=bedwars-2')).toBe(ban.id);
    expect(await loginId(who.targetUuid, '?service=BEDWARS-2')).toBe(ban.id);
  });

  test('mutes: NETWORK everywhere, GROUP and SERVICE only where named; a mute never blocks login', async () => {
    const everywhere = player();
    const mute = await issued({ type: 'TEMPMUTE', ...everywhere, duration: '1h', reason: 'caps' });
    for (const query of ['', '?group=Lobby', '?service=Lobby-1']) expect({ query, id: await chatId(everywhere.targetUuid, query) }).toEqual({ query, id: mute.id });
    expect(await chat(everywhere.targetUuid)).toMatchObject({ type: 'TEMPMUTE', reason: 'caps', kickMessage: '§cYou are muted for §f1h§c: §fcaps' });
    expect(await login(everywhere.targetUuid)).toEqual(NOT_PUNISHED);

    const inGroup = player();
    const groupMute = await issued({ type: 'MUTE', ...inGroup, scope: 'GROUP', scopeTarget: 'Survival' });
    expect(await chatId(inGroup.targetUuid)).toBeNull();
    expect(await chatId(inGroup.targetUuid, '?group=Creative&service=Survival')).toBeNull();
    expect(await chatId(inGroup.targetUuid, '?group=survival&service=Survival-1')).toBe(groupMute.id);

    const onService = player();
    const serviceMute = await issued({ type: 'MUTE', ...onService, scope: 'SERVICE', scopeTarget: 'Survival-1' });
    expect(await chatId(onService.targetUuid, '?group=Survival')).toBeNull();
    expect(await chatId(onService.targetUuid, '?group=Survival&service=Survival-2')).toBeNull();
    expect(await chatId(onService.targetUuid, '?group=Survival&service=SURVIVAL-1')).toBe(serviceMute.id);
  });
});

describe('IP bans', () => {
  test('block any account connecting from the address, and the banned account from any address', async () => {
    const banned = player();
    const other = player();
    const ipban = await issued({ type: 'IPBAN', ...banned, targetIp: '198.51.100.20', reason: 'alts' });
    expect(await login(other.targetUuid, '?ip=198.51.100.20')).toMatchObject({ punished: true, id: ipban.id, type: 'IPBAN', kickMessage: '§c§lYour IP is banned from the network\n§7Reason: §falts' });
    expect(await loginId(other.targetUuid, '?ip=198.51.100.21')).toBeNull();
    expect(await loginId(other.targetUuid)).toBeNull();
    for (const query of ['', '?ip=203.0.113.1', '?ip=198.51.100.20', '?group=Lobby&ip=2001:db8::1']) {
      expect({ query, id: await loginId(banned.targetUuid, query) }).toEqual({ query, id: ipban.id });
    }
    // An IP ban keeps players out; it does not mute them.
    expect(await chatId(banned.targetUuid)).toBeNull();
  });

  test('an address is matched in any spelling: IPv4-mapped IPv6 as IPv4, IPv6 in any case or length, with brackets', async () => {
    const v4 = await issued({ type: 'IPBAN', ...player(), targetIp: '1.2.3.4' });
    const v6 = await issued({ type: 'IPBAN', ...player(), targetIp: '2001:db8::5' });
    const someone = player().targetUuid;
    expect(await loginId(someone, `?ip=${encodeURIComponent('::ffff:1.2.3.4')}`)).toBe(v4.id);
    expect(await loginId(someone, `?ip=${encodeURIComponent('::FFFF:0102:0304')}`)).toBe(v4.id);
    expect(await loginId(someone, `?ip=${encodeURIComponent('2001:DB8:0:0:0:0:0:5')}`)).toBe(v6.id);
    expect(await loginId(someone, `?ip=${encodeURIComponent('[2001:db8::5]')}`)).toBe(v6.id);
    expect(await loginId(someone, '?ip=')).toBeNull();
  });
});

describe('when several hold', () => {
  test('an IP ban outranks an account ban, whatever their ends', async () => {
    const account = player();
    const ban = await issued({ type: 'BAN', ...account });
    const ipban = await issued({ type: 'IPBAN', ...player(), targetIp: '192.0.2.77', duration: '1h' });
    expect(await loginId(account.targetUuid)).toBe(ban.id);
    expect(await loginId(account.targetUuid, '?ip=192.0.2.77')).toBe(ipban.id);
  });

  test('among bans of one rank the longest wins: permanent over any end, a later end over an earlier, whatever the scope', async () => {
    const a = player();
    const shortNetwork = await issued({ type: 'TEMPBAN', ...a, duration: '1h' });
    const longGroup = await issued({ type: 'TEMPBAN', ...a, duration: '2h', scope: 'GROUP', scopeTarget: 'Survival' });
    expect(await loginId(a.targetUuid)).toBe(shortNetwork.id);
    expect(await loginId(a.targetUuid, '?group=Survival')).toBe(longGroup.id);
    const permanentService = await issued({ type: 'BAN', ...a, scope: 'SERVICE', scopeTarget: 'Survival-1' });
    expect(await loginId(a.targetUuid, '?group=Survival&service=Survival-1')).toBe(permanentService.id);

    const b = player();
    const longNetwork = await issued({ type: 'TEMPBAN', ...b, duration: '1d' });
    await issued({ type: 'TEMPBAN', ...b, duration: '1h', scope: 'GROUP', scopeTarget: 'Survival' });
    expect(await loginId(b.targetUuid, '?group=Survival')).toBe(longNetwork.id);
  });

  test('mutes: the longest that holds where the player chats', async () => {
    const who = player();
    const network = await issued({ type: 'TEMPMUTE', ...who, duration: '10m' });
    const group = await issued({ type: 'MUTE', ...who, scope: 'GROUP', scopeTarget: 'Survival' });
    expect(await chatId(who.targetUuid)).toBe(network.id);
    expect(await chatId(who.targetUuid, '?group=Survival')).toBe(group.id);
  });
});

describe('answers kept for 60 s never delay a change', () => {
  test('an issue, a supersede and a revoke are each seen by the very next check', async () => {
    const who = player();
    expect(await login(who.targetUuid)).toEqual(NOT_PUNISHED);
    const ban = await issued({ type: 'BAN', ...who });
    expect(await loginId(who.targetUuid)).toBe(ban.id);
    const temp = await issued({ type: 'TEMPBAN', ...who, duration: '1d' });
    expect(await login(who.targetUuid)).toMatchObject({ id: temp.id, type: 'TEMPBAN' });
    expect((await c.api(`/api/punishments/${temp.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await login(who.targetUuid)).toEqual(NOT_PUNISHED);
  });

  test('a lifted IP ban frees the address at once; a lifted mute frees chat at once', async () => {
    const who = player();
    const ipban = await issued({ type: 'IPBAN', ...who, targetIp: '192.0.2.200' });
    const someone = player().targetUuid;
    expect(await loginId(someone, '?ip=192.0.2.200')).toBe(ipban.id);
    expect((await c.api(`/api/punishments/${ipban.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await loginId(someone, '?ip=192.0.2.200')).toBeNull();
    expect(await loginId(who.targetUuid)).toBeNull();

    const mute = await issued({ type: 'MUTE', ...who, scope: 'SERVICE', scopeTarget: 'Lobby-1' });
    expect(await chatId(who.targetUuid, '?service=Lobby-1')).toBe(mute.id);
    expect((await c.api(`/api/punishments/${mute.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await chatId(who.targetUuid, '?service=Lobby-1')).toBeNull();
  });
});

describe('who may ask', () => {
  test('the service and master tokens may; a dashboard session, even an admin one, gets 403; no token gets 401', async () => {
    const who = player();
    const ban = await issued({ type: 'BAN', ...who });
    const mute = await issued({ type: 'MUTE', ...who });
    expect((await answer('check', who.targetUuid, '', c.master)).id).toBe(ban.id);
    expect((await answer('mute', who.targetUuid, '', c.master)).id).toBe(mute.id);
    const admin = await loginAs(c, testPlayer(41, 'WebAdmin'), ['svc.dashboard.admin']);
    for (const kind of ['check', 'mute']) {
      const asSession = await c.api(`/api/punishments/${kind}/${who.targetUuid}`, { token: admin });
      expect({ kind, status: asSession.status, error: (await expectErrorBody(asSession)).error }).toEqual({ kind, status: 403, error: 'FORBIDDEN' });
      const anonymous = await c.api(`/api/punishments/${kind}/${who.targetUuid}`, { token: null });
      expect({ kind, status: anonymous.status, error: (await expectErrorBody(anonymous)).error }).toEqual({ kind, status: 401, error: 'UNAUTHORIZED' });
    }
    // The same session may read the records themselves.
    expect((await c.api(`/api/punishments/${ban.id}`, { token: admin })).status).toBe(200);
  });
});
