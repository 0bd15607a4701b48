/**
 * The punishments module in the compiled binary, driven exactly the way its clients drive it
 * (REFERENCE-MODULES §5 "Plugin clients" and "Dashboard reads"):
 *   - the dashboard (master token) issues with {type, targetName, reason, issuer:"dashboard",
 *     issuerName:"Dashboard", scope, targetUuid?, duration?, targetIp?, scopeTarget?}, revokes
 *     with {revokedBy:"dashboard", reason:"Revoked via dashboard"}, lists ?active=true&limit=500
 *     and ?active=false&limit=500, and reads a player's sheet with /player/{uuid}?limit=50;
 *   - the Velocity plugin (service token) asks check/{uuid}?ip= at login and
 *     check/{uuid}?ip=&group=&service= before a server switch (the group is the server name
 *     without its trailing -digits), reads `punished` and `kickMessage`, and listens on
 *     /api/events for PUNISHMENT_ISSUED (WARN: chat the kickMessage; BAN: disconnect) and, as
 *     we push them, PUNISHMENT_REVOKED;
 *   - the backend plugin asks mute/{uuid}?group=&service= for every chat line.
 * Names are resolved through a local fake of Mojang's profile API (`GET <base>/<name>` → 200
 * {id, name}, unknown → 404). Last, kill -9 and a restart: every ban and revoke is still there.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveServiceToken } from '../../src/core/auth';
import { startBinaryController, svcBinary } from '../support/binary';
import { expectErrorBody, readJson, tempDir, waitFor } from '../support/controller';
import { offlineUuid } from '../support/minecraft-client';
import { openEventSocket } from '../support/events-socket';
import { expectExactShape } from './contract/expect-shape';

const TOKEN = 'punishments-e2e-token-0123456789abcdef';
const SERVICE_TOKEN = deriveServiceToken(TOKEN);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LOOKUP_PATH = '/users/profiles/minecraft/';

/** Profiles the fake lookup service knows, as Mojang spells them (ids undashed). */
const PROFILES: Record<string, { id: string; name: string }> = {
  notch: { id: '069a79f444e94726a5befca90e38aaf5', name: 'Notch' },
  jeb_: { id: '853c80ef3c3749fdaa49938b674adae6', name: 'jeb_' },
  griefer42: { id: '0f1e2d3c4b5a69788796a5b4c3d2e1f0', name: 'Griefer42' },
};
const dashed = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
const NOTCH = dashed(PROFILES.notch!.id);
const JEB = dashed(PROFILES.jeb_!.id);
const GRIEFER = dashed(PROFILES.griefer42!.id);
/** Players the lookup service does not know (offline-mode uuids). */
const STEVE = offlineUuid('Steve');
const ALEX = offlineUuid('Alex');

/** R of §5, the record the dashboard reads. */
interface Punishment {
  id: number;
  type: string;
  targetUuid: string;
  targetName: string;
  targetIp: string | null;
  reason: string;
  issuer: string;
  issuerName: string;
  issuedAt: string;
  expiresAt: string | null;
  active: boolean;
  revokedBy: string | null;
  revokedAt: string | null;
  revokeReason: string | null;
  scope: string;
  scopeTarget: string | null;
}
/** C of §5 (and the id of the deciding record), what both plugins read. */
interface CheckAnswer {
  punished: boolean;
  id: number | null;
  type: string | null;
  reason: string | null;
  issuerName: string | null;
  issuedAt: string | null;
  expiresAt: string | null;
  remainingSeconds: number | null;
  scope: string | null;
  scopeTarget: string | null;
  kickMessage: string | null;
}
interface Frame {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}

const R_TYPES: Record<keyof Punishment, string> = {
  id: 'number',
  type: 'string',
  targetUuid: 'string',
  targetName: 'string',
  targetIp: 'string|null',
  reason: 'string',
  issuer: 'string',
  issuerName: 'string',
  issuedAt: 'string',
  expiresAt: 'string|null',
  active: 'boolean',
  revokedBy: 'string|null',
  revokedAt: 'string|null',
  revokeReason: 'string|null',
  scope: 'string',
  scopeTarget: 'string|null',
};
const C_TYPES: Record<keyof CheckAnswer, string> = {
  punished: 'boolean',
  id: 'number|null',
  type: 'string|null',
  reason: 'string|null',
  issuerName: 'string|null',
  issuedAt: 'string|null',
  expiresAt: 'string|null',
  remainingSeconds: 'number|null',
  scope: 'string|null',
  scopeTarget: 'string|null',
  kickMessage: 'string|null',
};

function expectRecord(value: unknown): Punishment {
  expectExactShape(value, R_TYPES, 'R');
  const r = value as Punishment;
  expect(Number.isInteger(r.id)).toBe(true);
  expect(r.issuedAt).toMatch(ISO);
  for (const time of [r.expiresAt, r.revokedAt]) if (time !== null) expect(time).toMatch(ISO);
  return r;
}
function expectAnswer(value: unknown): CheckAnswer {
  expectExactShape(value, C_TYPES, 'C');
  const c = value as CheckAnswer;
  if (!c.punished) expect(Object.values(c).filter((v) => v !== null)).toEqual([false]);
  else {
    expect(typeof c.kickMessage).toBe('string');
    expect(c.issuedAt).toMatch(ISO);
    if (c.remainingSeconds !== null) expect(Number.isInteger(c.remainingSeconds)).toBe(true);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// The fake name lookup service (Mojang's profile API format) and the binary

const lookups: string[] = [];
const profiles = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (!path.startsWith(LOOKUP_PATH)) return new Response('not found', { status: 404 });
    const name = decodeURIComponent(path.slice(LOOKUP_PATH.length));
    lookups.push(name);
    const profile = PROFILES[name.toLowerCase()];
    if (!profile) return Response.json({ path, errorMessage: `Couldn't find any profile with name ${name}` }, { status: 404 });
    return Response.json(profile);
  },
});

type Binary = Awaited<ReturnType<typeof startBinaryController>>;
let svc: string;
let dir: string;
let removeDir: () => void;
let current: Binary;
const cleanups: (() => void)[] = [];
const frames: Frame[] = [];
let socket: WebSocket | undefined;

const request = (method: string, path: string, body: unknown, token: string) =>
  fetch(current.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
async function ok<T>(method: string, path: string, body?: unknown, token = TOKEN, status = 200): Promise<T> {
  const res = await request(method, path, body, token);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} (expected ${status}) ${await res.text()}`);
  return (await readJson(res)) as T;
}
async function refused(method: string, path: string, body: unknown, status: number, code: string): Promise<string> {
  const res = await request(method, path, body, TOKEN);
  expect(res.status).toBe(status);
  const error = await expectErrorBody(res);
  expect(error.error).toBe(code);
  return error.message;
}

/** What the dashboard's issue form sends; the optional fields only when filled in. */
interface DashboardIssue {
  type: string;
  targetName: string;
  reason: string;
  scope?: string;
  targetUuid?: string;
  duration?: string;
  targetIp?: string;
  scopeTarget?: string;
}
const dashboardIssue = async (form: DashboardIssue) =>
  expectRecord(await ok('POST', '/api/punishments', { scope: 'NETWORK', ...form, issuer: 'dashboard', issuerName: 'Dashboard' }, TOKEN, 201));
const dashboardRevoke = (id: number) => ok<{ success: boolean; message: string }>('DELETE', `/api/punishments/${id}`, { revokedBy: 'dashboard', reason: 'Revoked via dashboard' });
const dashboardList = async (active: boolean) => {
  const list = await ok<{ punishments: unknown[]; total: number }>('GET', `/api/punishments?active=${active}&limit=500`);
  return { punishments: list.punishments.map(expectRecord), total: list.total };
};
const playerSheet = async (uuid: string) => {
  const list = await ok<{ punishments: unknown[]; total: number }>('GET', `/api/punishments/player/${uuid}?limit=50`);
  return { punishments: list.punishments.map(expectRecord), total: list.total };
};

/** Velocity's LoginEvent check. */
const loginCheck = async (uuid: string, ip: string) => expectAnswer(await ok('GET', `/api/punishments/check/${uuid}?ip=${encodeURIComponent(ip)}`, undefined, SERVICE_TOKEN));
/** Velocity's ServerPreConnectEvent check: the group is the server name without a trailing -<digits>. */
const preConnectCheck = async (uuid: string, ip: string, server: string) =>
  expectAnswer(
    await ok('GET', `/api/punishments/check/${uuid}?ip=${encodeURIComponent(ip)}&group=${encodeURIComponent(server.replace(/-\d+$/, ''))}&service=${encodeURIComponent(server)}`, undefined, SERVICE_TOKEN),
  );
/** The backend plugin's check before every chat line, with its own group and service name. */
const chatCheck = async (uuid: string, group: string, service: string) =>
  expectAnswer(await ok('GET', `/api/punishments/mute/${uuid}?group=${encodeURIComponent(group)}&service=${encodeURIComponent(service)}`, undefined, SERVICE_TOKEN));

/** The event socket the Velocity plugin keeps open (service token in the Authorization header). */
async function listen(): Promise<void> {
  socket?.close();
  socket = await openEventSocket<Frame>(current.url, SERVICE_TOKEN, (f) => frames.push(f));
}
const frame = (type: string, id: number) =>
  waitFor(() => frames.find((f) => f.type === type && f.data.id === String(id)), { what: `a ${type} frame for punishment ${id}`, timeoutMs: 5000 });
/** Every frame is {type, timestamp, data} with string values, as the plugins' parsers expect; module events name their module. */
function expectFrame(f: Frame, keys: string[]): void {
  expect(Object.keys(f).sort()).toEqual(['data', 'timestamp', 'type']);
  expect(f.timestamp).toMatch(ISO);
  expect(Object.keys(f.data).sort()).toEqual([...keys, 'moduleId'].sort());
  expect(f.data.moduleId).toBe('punishments');
  for (const value of Object.values(f.data)) expect(typeof value).toBe('string');
}
const ISSUED_KEYS = ['id', 'type', 'target', 'targetUuid', 'issuer', 'reason', 'expiresAt', 'scope', 'kickMessage'];
const REVOKED_KEYS = ['id', 'type', 'target', 'revokedBy', 'reason'];

async function restart(): Promise<void> {
  current.child.kill('SIGKILL');
  await current.child.exited;
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
  await listen();
}

beforeAll(async () => {
  svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-punishments-e2e-'));
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\n\n[punishments]\nexpiry_check_interval = 5\nname_lookup_url = "http://127.0.0.1:${profiles.port}${LOOKUP_PATH.slice(0, -1)}"\n`);
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
  await listen();
}, 120_000);

afterAll(() => {
  socket?.close();
  for (const cleanup of cleanups) cleanup();
  void profiles.stop(true);
  removeDir();
});

// Ids the later tests refer to.
const ids = { notchBan: 0, notchBan2: 0, jebWarn: 0, jebMute: 0, steveGroupBan: 0, steveServiceBan: 0, grieferIpBan: 0, alexMute: 0 };

describe('the punishments plugins and the dashboard against the compiled binary', () => {
  test('the dashboard bans a name resolved by the lookup service; the proxy hears it and refuses the login with the kick message', async () => {
    const ban = await dashboardIssue({ type: 'BAN', targetName: 'notch', reason: 'Griefing spawn' });
    ids.notchBan = ban.id;
    expect(lookups).toContain('notch');
    expect(ban).toMatchObject({ type: 'BAN', targetUuid: NOTCH, targetName: 'Notch', targetIp: null, reason: 'Griefing spawn', issuer: 'dashboard', issuerName: 'Dashboard' });
    expect(ban).toMatchObject({ expiresAt: null, active: true, revokedBy: null, revokedAt: null, revokeReason: null, scope: 'NETWORK', scopeTarget: null });

    // The proxy disconnects a NETWORK BAN's player on the event, with its kickMessage.
    const issued = await frame('PUNISHMENT_ISSUED', ban.id);
    expectFrame(issued, ISSUED_KEYS);
    expect(issued.data).toMatchObject({ type: 'BAN', target: 'Notch', targetUuid: NOTCH, issuer: 'Dashboard', reason: 'Griefing spawn', expiresAt: '', scope: 'NETWORK' });
    expect(issued.data.kickMessage).toBe('§c§lYou are banned from the network\n§7Reason: §fGriefing spawn\n§7Banned by: §fDashboard\n§7Appeal at our support portal.');

    const login = await loginCheck(NOTCH, '198.51.100.20');
    expect(login).toMatchObject({ punished: true, id: ban.id, type: 'BAN', reason: 'Griefing spawn', issuerName: 'Dashboard', expiresAt: null, remainingSeconds: null, scope: 'NETWORK', scopeTarget: null });
    expect(login.kickMessage).toBe(issued.data.kickMessage!);
    // A player with nothing against them: every field present, null but `punished`.
    expect(await loginCheck(ALEX, '198.51.100.21')).toMatchObject({ punished: false });
  });

  test('a WARN reaches the proxy as a chat message and blocks nothing (stored inactive, its duration ignored)', async () => {
    const warn = await dashboardIssue({ type: 'WARN', targetName: 'jeb_', reason: 'Spam in chat', duration: '1d' });
    ids.jebWarn = warn.id;
    expect(warn).toMatchObject({ type: 'WARN', targetUuid: JEB, targetName: 'jeb_', active: false, expiresAt: null });
    const issued = await frame('PUNISHMENT_ISSUED', warn.id);
    expectFrame(issued, ISSUED_KEYS);
    expect(issued.data).toMatchObject({ type: 'WARN', target: 'jeb_', targetUuid: JEB, expiresAt: '' });
    expect(issued.data.kickMessage).toBe('§e§l⚠ Warning §7from §fDashboard\n§7Reason: §fSpam in chat');
    expect((await loginCheck(JEB, '198.51.100.22')).punished).toBe(false);
    expect((await chatCheck(JEB, 'Lobby', 'Lobby-1')).punished).toBe(false);
  });

  test('server switch: a GROUP ban holds on that group’s servers and a SERVICE ban on that server only; neither blocks the login', async () => {
    const groupBan = await dashboardIssue({ type: 'BAN', targetName: 'Steve', targetUuid: STEVE, reason: 'Teaming', scope: 'GROUP', scopeTarget: 'BedWars', duration: '2h' });
    ids.steveGroupBan = groupBan.id;
    expect(lookups).not.toContain('Steve');
    expect(groupBan).toMatchObject({ type: 'BAN', targetUuid: STEVE, targetName: 'Steve', scope: 'GROUP', scopeTarget: 'BedWars', active: true });
    expect(Date.parse(groupBan.expiresAt!) - Date.parse(groupBan.issuedAt)).toBe(2 * 3600_000);
    const issued = await frame('PUNISHMENT_ISSUED', groupBan.id);
    expectFrame(issued, [...ISSUED_KEYS, 'scopeTarget']);
    expect(issued.data).toMatchObject({ scope: 'GROUP', scopeTarget: 'BedWars', expiresAt: groupBan.expiresAt! });

    expect((await loginCheck(STEVE, '198.51.100.30')).punished).toBe(false);
    const onBedWars = await preConnectCheck(STEVE, '198.51.100.30', 'BedWars-3');
    expect(onBedWars).toMatchObject({ punished: true, id: groupBan.id, type: 'BAN', scope: 'GROUP', scopeTarget: 'BedWars', expiresAt: groupBan.expiresAt });
    expect(onBedWars.remainingSeconds).toBeGreaterThan(7000);
    expect(onBedWars.remainingSeconds).toBeLessThanOrEqual(7200);
    // A BAN with a duration reads like a TEMPBAN.
    expect(onBedWars.kickMessage).toBe('§c§lYou are temporarily banned\n§7Reason: §fTeaming\n§7Banned by: §fDashboard\n§7Expires in: §f2h');
    expect((await preConnectCheck(STEVE, '198.51.100.30', 'Lobby-1')).punished).toBe(false);

    const serviceBan = await dashboardIssue({ type: 'TEMPBAN', targetName: 'Steve', targetUuid: STEVE, reason: 'Lag machine', scope: 'SERVICE', scopeTarget: 'SkyWars-2', duration: '30m' });
    ids.steveServiceBan = serviceBan.id;
    const onSkyWars2 = await preConnectCheck(STEVE, '198.51.100.30', 'SkyWars-2');
    expect(onSkyWars2).toMatchObject({ punished: true, id: serviceBan.id, type: 'TEMPBAN', scope: 'SERVICE', scopeTarget: 'SkyWars-2' });
    expect(onSkyWars2.remainingSeconds).toBeLessThanOrEqual(1800);
    expect((await preConnectCheck(STEVE, '198.51.100.30', 'SkyWars-1')).punished).toBe(false);
    // Both scopes stand side by side: the group ban was not superseded by the service one.
    expect((await preConnectCheck(STEVE, '198.51.100.30', 'BedWars-1')).id).toBe(groupBan.id);
  });

  test('an IPBAN keeps every account on that address out, and its own account on any address', async () => {
    const ipBan = await dashboardIssue({ type: 'IPBAN', targetName: 'Griefer42', reason: 'Ban evasion', targetIp: '203.0.113.9' });
    ids.grieferIpBan = ipBan.id;
    expect(ipBan).toMatchObject({ type: 'IPBAN', targetUuid: GRIEFER, targetName: 'Griefer42', targetIp: '203.0.113.9', active: true });
    const issued = await frame('PUNISHMENT_ISSUED', ipBan.id);
    expect(issued.data.kickMessage).toBe('§c§lYour IP is banned from the network\n§7Reason: §fBan evasion');

    const alt = await loginCheck(ALEX, '203.0.113.9');
    expect(alt).toMatchObject({ punished: true, id: ipBan.id, type: 'IPBAN', kickMessage: issued.data.kickMessage });
    // Velocity may report an IPv4 client on a dual-stack socket as IPv4-mapped IPv6.
    expect((await loginCheck(ALEX, '::ffff:203.0.113.9')).id).toBe(ipBan.id);
    expect((await preConnectCheck(ALEX, '203.0.113.9', 'Lobby-2')).id).toBe(ipBan.id);
    expect((await loginCheck(ALEX, '203.0.113.10')).punished).toBe(false);
    expect((await loginCheck(GRIEFER, '192.0.2.200')).id).toBe(ipBan.id);
  });

  test('chat: the backend’s mute check per line holds network mutes everywhere and scoped ones where they apply; a player the network has seen is resolved without the lookup service', async () => {
    // The bridge reported Alex joining, so the players module knows the name.
    await ok('POST', '/api/proxy/events', { type: 'PLAYER_CONNECTED', player: 'Alex', uuid: ALEX, service: 'Lobby-1' });
    const lookedUp = lookups.length;
    const groupMute = await dashboardIssue({ type: 'TEMPMUTE', targetName: 'Alex', reason: 'Caps', scope: 'GROUP', scopeTarget: 'Lobby', duration: '10m' });
    ids.alexMute = groupMute.id;
    expect(groupMute).toMatchObject({ targetUuid: ALEX, targetName: 'Alex', type: 'TEMPMUTE' });
    expect(lookups.length).toBe(lookedUp);
    const inLobby = await chatCheck(ALEX, 'Lobby', 'Lobby-1');
    expect(inLobby).toMatchObject({ punished: true, id: groupMute.id, type: 'TEMPMUTE', reason: 'Caps', scope: 'GROUP', scopeTarget: 'Lobby' });
    expect(inLobby.kickMessage).toBe('§cYou are muted for §f10m§c: §fCaps');
    expect(inLobby.remainingSeconds).toBeLessThanOrEqual(600);
    expect((await chatCheck(ALEX, 'BedWars', 'BedWars-1')).punished).toBe(false);

    const mute = await dashboardIssue({ type: 'MUTE', targetName: 'jeb_', reason: 'Spam in chat' });
    ids.jebMute = mute.id;
    for (const [group, service] of [['Lobby', 'Lobby-1'], ['BedWars', 'BedWars-4']] as const) {
      expect(await chatCheck(JEB, group, service)).toMatchObject({ punished: true, id: mute.id, type: 'MUTE', remainingSeconds: null, kickMessage: '§cYou are muted: §fSpam in chat' });
    }
    // A mute is no ban.
    expect((await loginCheck(JEB, '198.51.100.22')).punished).toBe(false);
  });

  test('a name the lookup service does not know is a 404 error body, and nothing is stored', async () => {
    const before = (await dashboardList(false)).total;
    const message = await refused('POST', '/api/punishments', { type: 'BAN', targetName: 'NobodyByThatName', reason: 'x', issuer: 'dashboard', issuerName: 'Dashboard', scope: 'NETWORK' }, 404, 'PUNISHMENT_TARGET_INVALID');
    expect(message).toContain('NobodyByThatName');
    expect(lookups).toContain('NobodyByThatName');
    expect((await dashboardList(false)).total).toBe(before);
  });

  test('a dashboard revoke is pushed as PUNISHMENT_REVOKED and the checks answer at once; a second revoke is 409', async () => {
    // The backend asked moments ago (a cached answer); the revoke must not wait for the cache.
    expect((await chatCheck(JEB, 'Lobby', 'Lobby-1')).punished).toBe(true);
    expect(await dashboardRevoke(ids.jebMute)).toEqual({ success: true, message: `Punishment ${ids.jebMute} revoked` });
    const revoked = await frame('PUNISHMENT_REVOKED', ids.jebMute);
    expectFrame(revoked, REVOKED_KEYS);
    expect(revoked.data).toMatchObject({ id: String(ids.jebMute), type: 'MUTE', target: 'jeb_', revokedBy: 'dashboard', reason: 'Revoked via dashboard' });
    expect((await chatCheck(JEB, 'Lobby', 'Lobby-1')).punished).toBe(false);

    const body = { revokedBy: 'dashboard', reason: 'Revoked via dashboard' };
    await refused('DELETE', `/api/punishments/${ids.jebMute}`, body, 409, 'PUNISHMENT_ALREADY_REVOKED');
    await refused('DELETE', `/api/punishments/${ids.jebWarn}`, body, 409, 'PUNISHMENT_ALREADY_REVOKED');
    await refused('DELETE', '/api/punishments/999999', body, 404, 'PUNISHMENT_NOT_FOUND');
  });

  test('a new ban supersedes the one in force at the same scope, and the proxy hears that one revoked', async () => {
    const again = await dashboardIssue({ type: 'BAN', targetName: 'Notch', reason: 'Second offence' });
    ids.notchBan2 = again.id;
    const superseded = await frame('PUNISHMENT_REVOKED', ids.notchBan);
    expectFrame(superseded, REVOKED_KEYS);
    expect(superseded.data).toMatchObject({ type: 'BAN', target: 'Notch', reason: `Superseded by punishment ${again.id}` });
    expect((await loginCheck(NOTCH, '198.51.100.20')).id).toBe(again.id);
  });

  test('the dashboard lists: in force (active=true) and everything (active=false), newest first, total counting all; the player sheet', async () => {
    const inForce = [ids.alexMute, ids.grieferIpBan, ids.steveServiceBan, ids.steveGroupBan, ids.notchBan2];
    const active = await dashboardList(true);
    expect(active.punishments.map((p) => p.id).sort((a, b) => a - b)).toEqual([...inForce].sort((a, b) => a - b));
    expect(active.total).toBe(inForce.length);
    expect(active.punishments.every((p) => p.active)).toBe(true);

    const all = await dashboardList(false);
    const everyId = Object.values(ids);
    expect(all.punishments.map((p) => p.id).sort((a, b) => a - b)).toEqual([...everyId].sort((a, b) => a - b));
    expect(all.total).toBe(everyId.length);
    const issuedAt = all.punishments.map((p) => Date.parse(p.issuedAt));
    expect(issuedAt).toEqual([...issuedAt].sort((a, b) => b - a));

    const jeb = await playerSheet(JEB);
    expect(jeb.total).toBe(2);
    expect(jeb.punishments.map((p) => p.id)).toEqual([ids.jebMute, ids.jebWarn]);
    expect(jeb.punishments[0]).toMatchObject({ type: 'MUTE', active: false, revokedBy: 'dashboard', revokeReason: 'Revoked via dashboard' });
    expect(jeb.punishments[0]!.revokedAt).toMatch(ISO);
    const notch = await playerSheet(NOTCH);
    expect(notch.punishments.map((p) => p.id)).toEqual([ids.notchBan2, ids.notchBan]);
    expect(notch.punishments[1]).toMatchObject({ active: false, revokedBy: 'Dashboard', revokeReason: `Superseded by punishment ${ids.notchBan2}` });
  });

  test('kill -9 and a restart: the bans, mutes and revokes are all still there', async () => {
    const before = await dashboardList(false);
    await restart();
    expect(await dashboardList(false)).toEqual(before);
    expect(await loginCheck(NOTCH, '198.51.100.20')).toMatchObject({ punished: true, id: ids.notchBan2, type: 'BAN' });
    expect(await loginCheck(ALEX, '203.0.113.9')).toMatchObject({ punished: true, id: ids.grieferIpBan, type: 'IPBAN' });
    expect(await preConnectCheck(STEVE, '198.51.100.30', 'BedWars-2')).toMatchObject({ punished: true, id: ids.steveGroupBan });
    expect(await preConnectCheck(STEVE, '198.51.100.30', 'SkyWars-2')).toMatchObject({ punished: true, id: ids.steveServiceBan });
    expect(await chatCheck(ALEX, 'Lobby', 'Lobby-3')).toMatchObject({ punished: true, id: ids.alexMute });
    expect((await chatCheck(JEB, 'Lobby', 'Lobby-1')).punished).toBe(false);

    // The restarted controller pushes to the plugin's new socket too.
    const warn = await dashboardIssue({ type: 'WARN', targetName: 'Steve', targetUuid: STEVE, reason: 'Language' });
    expect((await frame('PUNISHMENT_ISSUED', warn.id)).data.kickMessage).toContain('§fLanguage');
  }, 30_000);
});

describe('templates, the console command and expiry against the compiled binary', () => {
  const DRAGON = offlineUuid('Dragon');

  test('a template changed through the API renders in the next chat check; the other eight stay', async () => {
    const before = await ok<Record<string, string>>('GET', '/api/punishments/messages');
    expect(Object.keys(before).sort()).toEqual(['ban', 'broadcast_issued', 'broadcast_revoked', 'ipban', 'kick', 'mute', 'tempban', 'tempmute', 'warn']);
    const after = await ok<Record<string, string>>('PUT', '/api/punishments/messages', { mute: '&6Quiet please: {reason} ({issuer})' });
    expect(after).toEqual({ ...before, mute: '&6Quiet please: {reason} ({issuer})' });
    const mute = await dashboardIssue({ type: 'MUTE', targetName: 'Dragon', targetUuid: DRAGON, reason: 'Caps' });
    expect((await chatCheck(DRAGON, 'Lobby', 'Lobby-1')).kickMessage).toBe('§6Quiet please: Caps (Dashboard)');
    await dashboardRevoke(mute.id);
  });

  test('in game, `punish tempmute` through the bridge issues as the staff member who typed it; the mute ends by itself and the proxy hears it expire', async () => {
    const staff = { uuid: offlineUuid('Moderator'), name: 'Moderator' };
    // The bridge reported Dragon joining: the command names them as staff type names.
    await ok('POST', '/api/proxy/events', { type: 'PLAYER_CONNECTED', player: 'Dragon', uuid: DRAGON, service: 'Lobby-1' });
    const run = await ok<{ success: boolean; lines: { type: string; text: string }[] }>('POST', '/api/commands/punish/execute', { args: ['tempmute', 'Dragon', '2s', 'Spam', 'in', 'chat'], caller: staff });
    expect(run.success).toBe(true);
    const record = (await playerSheet(DRAGON)).punishments[0]!;
    expect(record).toMatchObject({ type: 'TEMPMUTE', issuer: staff.uuid, issuerName: 'Moderator', reason: 'Spam in chat', active: true });
    expect(run.lines.some((l) => l.text.startsWith(`#${record.id} TEMPMUTE Dragon`))).toBe(true);
    expect((await chatCheck(DRAGON, 'Lobby', 'Lobby-1')).punished).toBe(true);
    // The checks stop holding it at its end; the expiry loop (every 5 s at the least) then ends the record and says so.
    await waitFor(async () => !(await chatCheck(DRAGON, 'Lobby', 'Lobby-1')).punished, { what: 'the mute check to clear at the end', timeoutMs: 5000 });
    const expired = await waitFor(() => frames.find((f) => f.type === 'PUNISHMENT_EXPIRED' && f.data.id === String(record.id)), { what: 'PUNISHMENT_EXPIRED', timeoutMs: 12_000 });
    expectFrame(expired, ['id', 'type', 'target']);
    expect(expired.data).toMatchObject({ type: 'TEMPMUTE', target: 'Dragon' });
    expect((await playerSheet(DRAGON)).punishments[0]).toMatchObject({ id: record.id, active: false, revokedBy: null });
  }, 20_000);
});
