/**
 * Minting login codes and magic links (generate-code, request-magic-link: machine-only, for
 * online players, limited per player) and the dashboard-initiated deliver-magic-link, which
 * answers the same whether or not the name is online and hands the link only to the proxy's
 * master-token event stream (its own budget and timing: routes-deliver.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SAFE_ALPHABET } from '../../../src/modules/auth/secrets';
import { waitFor, type TestController } from '../../support/controller';
import { bringOnline, loginAs, testPlayer, type Player } from '../../support/dashboard-login';
import { auditOf, consume, eventsOf, expectError, expectJson, startAuth, type AuthTest } from './harness';

const PUBLIC_URL = 'https://dash.example.test/panel';
const generate = (c: TestController, json: unknown, token: string | null = c.service) => c.api('/api/auth/generate-code', { method: 'POST', token, json });
const requestLink = (c: TestController, json: unknown, token: string | null = c.service) => c.api('/api/auth/request-magic-link', { method: 'POST', token, json });
const deliver = (c: TestController, name: string) => c.api('/api/auth/deliver-magic-link', { method: 'POST', token: null, json: { name } });

let t: AuthTest;
let c: TestController;
beforeAll(async () => {
  // A trailing slash on the configured URL must not double up in the link.
  t = await startAuth({ toml: `[dashboard]\npublic_url = "${PUBLIC_URL}/"` });
  c = t.c;
});
afterAll(() => t.stop());

describe('generate-code', () => {
  test('an online player gets a 6-digit code valid 60 s, and it logs them in', async () => {
    const alice = testPlayer(1, 'Alice');
    await bringOnline(c, alice);
    const before = Date.now();
    const body = await expectJson(await generate(c, alice));
    expect(Object.keys(body).sort()).toEqual(['code', 'expiresAt', 'ttlSeconds']);
    expect(body.code).toMatch(/^\d{6}$/);
    expect(body.ttlSeconds).toBe(60);
    expect(body.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(body.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    const session = await expectJson(await consume(c, body.code));
    expect(session.user).toMatchObject({ uuid: alice.uuid, name: 'Alice' });
  });

  test('the uuid may come undashed and upper case: it is the same player', async () => {
    const bob = testPlayer(2, 'Bob');
    await bringOnline(c, bob);
    const body = await expectJson(await generate(c, { uuid: bob.uuid.replace(/-/g, '').toUpperCase(), name: 'Bob' }));
    expect((await expectJson(await consume(c, body.code))).user.uuid).toBe(bob.uuid);
  });

  test('only an API token may mint: a dashboard session, even an admin one, gets 403; no token 401', async () => {
    const admin = testPlayer(3, 'Admin');
    const token = await loginAs(c, admin, ['svc.dashboard.admin']);
    expect((await expectJson(await c.api('/api/auth/me', { token }))).isAdmin).toBe(true);
    await expectError(await generate(c, admin, token), 403, 'FORBIDDEN', 'dashboard session');
    await expectError(await requestLink(c, admin, token), 403, 'FORBIDDEN');
    await expectError(await generate(c, admin, null), 401, 'UNAUTHORIZED');
    await expectError(await generate(c, admin, 'not-a-token'), 401, 'AUTH_FAILED');
    // The master token is an API token too.
    expect((await generate(c, admin, c.master)).status).toBe(200);
  });

  test('a malformed body is 400 VALIDATION_FAILED', async () => {
    await expectError(await generate(c, { uuid: 'nope', name: 'Alice' }), 400, 'VALIDATION_FAILED');
    await expectError(await generate(c, { uuid: testPlayer(1).uuid }), 400, 'VALIDATION_FAILED');
    await expectError(await generate(c, { uuid: testPlayer(1).uuid, name: 'no spaces allowed' }), 400, 'VALIDATION_FAILED');
  });

  test('a player who is not online gets 409 AUTH_PLAYER_OFFLINE (code and link)', async () => {
    const ghost = testPlayer(99, 'Ghost');
    await expectError(await generate(c, ghost), 409, 'AUTH_PLAYER_OFFLINE', 'not online');
    await expectError(await requestLink(c, ghost), 409, 'AUTH_PLAYER_OFFLINE');
  });

  test('five codes or links per player per minute: the sixth is 429 AUTH_RATE_LIMITED; other players are not affected', async () => {
    const carol = testPlayer(4, 'Carol');
    const dave = testPlayer(5, 'Dave');
    await bringOnline(c, carol);
    await bringOnline(c, dave);
    for (let i = 0; i < 3; i++) expect((await generate(c, carol)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await requestLink(c, carol)).status).toBe(202);
    const limited = await generate(c, carol);
    expect(limited.headers.get('retry-after')).toBe('60');
    await expectError(limited, 429, 'AUTH_RATE_LIMITED');
    await expectError(await requestLink(c, carol), 429, 'AUTH_RATE_LIMITED');
    expect((await generate(c, dave)).status).toBe(200);
  });
});

describe('request-magic-link', () => {
  test('202 with a link on [dashboard] public_url whose token logs the player in once', async () => {
    const erin = testPlayer(6, 'Erin');
    await bringOnline(c, erin);
    const response = await requestLink(c, erin);
    const body = await expectJson(response, 202);
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'token', 'ttlSeconds', 'url']);
    // 32 random bytes, base64url without padding.
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.url).toBe(`${PUBLIC_URL}/login?link=${body.token}`);
    expect(body.ttlSeconds).toBe(60);
    const link = new URL(body.url).searchParams.get('link')!;
    const session = await expectJson(await consume(c, link));
    expect(session.user.uuid).toBe(erin.uuid);
    await expectError(await consume(c, link), 401, 'AUTH_CHALLENGE_INVALID');
  });

  test('a malformed body is 400', async () => {
    await expectError(await requestLink(c, { name: 'Erin' }), 400, 'VALIDATION_FAILED');
  });
});

describe('deliver-magic-link', () => {
  let master: WebSocket;
  let service: WebSocket;
  const masterFrames: { type: string; data: Record<string, string> }[] = [];
  const serviceFrames: { type: string; data: Record<string, string> }[] = [];

  beforeAll(async () => {
    const ws = (token: string, into: typeof masterFrames) => {
      const socket = new WebSocket(`${c.url.replace('http', 'ws')}/api/events?token=${token}`);
      socket.addEventListener('message', (e) => void into.push(JSON.parse(String(e.data))));
      return socket;
    };
    master = ws(c.master, masterFrames);
    service = ws(c.service, serviceFrames);
    await waitFor(() => c.controller.eventSubscribers === 2, { what: 'both event sockets to subscribe' });
  });
  afterAll(() => {
    master.close();
    service.close();
  });

  const deliveries = () => masterFrames.filter((f) => f.type === 'AUTH_MAGIC_LINK_DELIVERY');

  test('an online player: 202 delivered, and the master-token stream gets a link that logs them in', async () => {
    const frank = testPlayer(7, 'Frank');
    await bringOnline(c, frank);
    const before = deliveries().length;
    // The name as typed, in any case.
    const body = await expectJson(await deliver(c, 'frank'), 202);
    expect(body).toEqual({ status: 'delivered', ttlSeconds: 60 });
    const frame = await waitFor(() => deliveries()[before], { what: 'the delivery frame' });
    expect(frame.data).toEqual({ uuid: frank.uuid, name: 'Frank', url: expect.stringMatching(/^https:\/\/dash\.example\.test\/panel\/login\?link=/), ttl: '60', expiresAt: expect.stringMatching(/^\d+$/), moduleId: 'auth' });
    const token = new URL(frame.data.url!).searchParams.get('link')!;
    const session = await expectJson(await c.api('/api/auth/consume-magic-link', { method: 'POST', token: null, json: { token } }));
    expect(session.user.uuid).toBe(frank.uuid);
    const mine = await expectJson(await c.api('/api/auth/my-sessions', { token: session.token }));
    expect(mine.sessions[0].loginMethod).toBe('magic_link');
  });

  test('an unknown or offline name gets the very same 202 and no event; a player whose in-game limit is spent still gets a link', async () => {
    const gina = testPlayer(8, 'Gina');
    await bringOnline(c, gina);
    for (let i = 0; i < 5; i++) expect((await generate(c, gina)).status).toBe(200);
    const before = t.events.length;
    const unknown = await deliver(c, 'NobodyHere');
    const spent = await deliver(c, 'Gina');
    expect([unknown.status, spent.status]).toEqual([202, 202]);
    expect(await unknown.text()).toBe(await spent.clone().text());
    expect(await spent.json()).toEqual({ status: 'delivered', ttlSeconds: 60 });
    // Public delivery has its own budget: the in-game codes spent do not stop it, nor does it spend them.
    await waitFor(() => t.events.slice(before).some((e) => e.type === 'AUTH_MAGIC_LINK_DELIVERY' && e.data.uuid === gina.uuid), { what: 'Gina’s delivery' });
    expect(t.events.slice(before).filter((e) => e.type === 'AUTH_MAGIC_LINK_DELIVERY').map((e) => e.data.name)).toEqual(['Gina']);
  });

  test('the delivery is heard only on the master-token stream and is never audited', async () => {
    const hank = testPlayer(9, 'Hank');
    await bringOnline(c, hank);
    expect((await deliver(c, 'Hank')).status).toBe(202);
    await waitFor(() => deliveries().some((f) => f.data.uuid === hank.uuid), { what: 'Hank’s delivery' });
    // A later event both streams hear proves the service stream has caught up.
    expect((await c.api('/api/permissions/groups', { method: 'POST', json: { name: 'sentinel' } })).status).toBe(201);
    await waitFor(() => serviceFrames.some((f) => f.type === 'PERMISSION_GROUP_CREATED' && f.data.group === 'sentinel'), { what: 'the sentinel on the service stream' });
    expect(serviceFrames.filter((f) => f.type === 'AUTH_MAGIC_LINK_DELIVERY')).toEqual([]);
    expect(eventsOf(t, 'AUTH_MAGIC_LINK_DELIVERY').length).toBeGreaterThanOrEqual(2);
    expect(await auditOf(c, 'AUTH_MAGIC_LINK_DELIVERY')).toEqual([]);
  });

  test('a malformed name is 400', async () => {
    await expectError(await deliver(c, 'bad name!'), 400, 'VALIDATION_FAILED');
  });
});

describe('auth.toml settings', () => {
  let alt: AuthTest;
  beforeAll(async () => {
    alt = await startAuth({
      auth: '[login_challenge]\ncode_alphabet = "alphanumeric"\n[dashboard]\npublic_url = "https://from-auth-toml.example"\n',
    });
  });
  afterAll(() => alt.stop());

  test('code_alphabet = "alphanumeric": 6 characters, upper case, without 0, O, 1 and I; typed lower case with a dash it still works', async () => {
    const players: Player[] = [testPlayer(11), testPlayer(12), testPlayer(13)];
    const codes: string[] = [];
    for (const p of players) {
      await bringOnline(alt.c, p);
      for (let i = 0; i < 5; i++) codes.push((await expectJson(await generate(alt.c, p))).code);
    }
    for (const code of codes) {
      expect(code).toMatch(/^[A-Z2-9]{6}$/);
      expect(code).not.toMatch(/[01OI]/);
      for (const ch of code) expect(SAFE_ALPHABET).toContain(ch);
    }
    const typed = `${codes[0]!.slice(0, 3)}-${codes[0]!.slice(3)}`.toLowerCase();
    expect((await expectJson(await consume(alt.c, typed))).user.uuid).toBe(players[0]!.uuid);
  });

  test('[dashboard] public_url of auth.toml is used when svc.toml sets none', async () => {
    const p = testPlayer(14);
    await bringOnline(alt.c, p);
    const body = await expectJson(await requestLink(alt.c, p), 202);
    expect(body.url).toBe(`https://from-auth-toml.example/login?link=${body.token}`);
  });

  test('deliver-magic-link allows 10 calls a minute per address; the 11th is 429', async () => {
    for (let i = 0; i < 10; i++) expect((await deliver(alt.c, `Nobody${i}`)).status).toBe(202);
    await expectError(await deliver(alt.c, 'Nobody10'), 429, 'RATE_LIMITED');
  });
});

describe('magic_link_enabled = false', () => {
  let off: AuthTest;
  beforeAll(async () => {
    off = await startAuth({ auth: '[login_challenge]\nmagic_link_enabled = false\n' });
  });
  afterAll(() => off.stop());

  test('request-magic-link and deliver-magic-link answer AUTH_DISABLED; codes still work', async () => {
    const p = testPlayer(21, 'Ivy');
    await bringOnline(off.c, p);
    await expectError(await requestLink(off.c, p), 403, 'AUTH_DISABLED', 'magic');
    await expectError(await deliver(off.c, 'Ivy'), 403, 'AUTH_DISABLED', 'magic');
    expect(eventsOf(off, 'AUTH_MAGIC_LINK_DELIVERY')).toEqual([]);
    const code = (await expectJson(await generate(off.c, p))).code;
    expect((await expectJson(await consume(off.c, code))).user.uuid).toBe(p.uuid);
  });
});
