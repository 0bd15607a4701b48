/**
 * Issue 36, items 5-7 (dashboard login and backups), each as the attack it was, through the
 * compiled binary: a regression suite any later change must keep green.
 *   5. a session with only backups.view fetched the config and database archives (session.key
 *      plus the sealed TOTP secrets: every player's TOTP seed);
 *   6. six anonymous deliver-magic-link calls a minute locked a named online admin out of code
 *      and link login;
 *   7. one caller filled the global cap of open passkey ceremonies; one's own successful login
 *      reset the consume-failure cap; TOTP disable and confirm took unlimited guesses.
 * Client addresses come from X-Forwarded-For ([api] trust_forwarded_for = true), so each test
 * speaks from addresses of its own. Players are brought online and log in the way the proxy
 * bridge does it (events, and the in-game `dashboard login` command run for them).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSync } from 'otplib';
import { startBinaryController, svcBinary } from '../support/binary';
import { tempDir, waitFor } from '../support/controller';

const TOKEN = 'tenancy-auth-e2e-token-0123456789abcdef';
const VIEW = 'svc.dashboard.backups.view';
const MANAGE = 'svc.dashboard.backups.manage';

type Binary = Awaited<ReturnType<typeof startBinaryController>>;
type Json = ReturnType<typeof JSON.parse>;
interface Player {
  uuid: string;
  name: string;
}

let dir: string;
let removeDir: () => void;
let current: Binary;
const cleanups: (() => void)[] = [];
let groups = 0;

const player = (n: number, name: string): Player => ({ uuid: `7e2a0000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`, name });

async function call(method: string, path: string, options: { token?: string | null; body?: unknown; ip?: string } = {}): Promise<{ status: number; body: Json; headers: Headers }> {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.ip) headers['x-forwarded-for'] = options.ip;
  const res = await fetch(current.url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let body: Json = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

async function ok(method: string, path: string, options: { token?: string | null; body?: unknown; ip?: string } = {}): Promise<Json> {
  const res = await call(method, path, options);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A refusal in the spec's error body. */
function refused(res: { status: number; body: Json }, status: number, error: string): string {
  expect({ status: res.status, success: res.body?.success, error: res.body?.error }).toEqual({ status, success: false, error });
  expect(res.body.message).toEqual(expect.any(String));
  return res.body.message;
}

/** The proxy reports the player online (master token: the operator's credential keeps this everywhere). */
const bringOnline = (p: Player) => ok('POST', '/api/proxy/events', { body: { type: 'PLAYER_CONNECTED', player: p.name, uuid: p.uuid, service: 'Lobby-1' } });

/** The player runs the in-game `dashboard login`; the bridge runs it for them. The code, or null with the lines. */
async function inGameCode(p: Player): Promise<{ code: string | null; text: string }> {
  const res = await ok('POST', '/api/commands/dashboard/execute', { body: { args: ['login'], caller: p } });
  const text = (res.lines as { text: string }[]).map((l) => l.text).join('\n');
  return { code: /login code: (\d{6})\b/.exec(text)?.[1] ?? null, text };
}

async function grant(p: Player, nodes: readonly string[]): Promise<void> {
  const group = `tenancy${++groups}`;
  expect((await call('POST', '/api/permissions/groups', { body: { name: group } })).status).toBe(201);
  for (const permission of nodes) await ok('POST', `/api/permissions/groups/${group}/permissions`, { body: { permission } });
  await ok('POST', `/api/permissions/players/${p.uuid}/groups`, { body: { group } });
}

/** Online, the nodes granted, logged in from `ip` with an in-game code: the session token. */
async function login(p: Player, nodes: readonly string[], ip: string): Promise<string> {
  await bringOnline(p);
  if (nodes.length > 0) await grant(p, nodes);
  const { code, text } = await inGameCode(p);
  if (!code) throw new Error(`no login code for ${p.name}: ${text}`);
  const res = await ok('POST', '/api/auth/consume-challenge', { token: null, body: { challenge: code }, ip });
  return res.token;
}

beforeAll(async () => {
  const svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-tenancy-auth-e2e-'));
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\ntrust_forwarded_for = true\n');
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
}, 180_000);

afterAll(() => {
  for (const cleanup of cleanups) cleanup();
  removeDir();
});

describe('item 5: archives that hold credentials', () => {
  test('a backups.view session is refused the config and database archives (download and manifest); backups.manage and the master token get them', async () => {
    // The key is under data/auth/, owner-only, and nowhere under config/.
    const key = join(dir, 'data', 'auth', 'session.key');
    expect(readFileSync(key).length).toBe(32);
    if (process.platform !== 'win32') expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, 'config', 'modules', 'auth', 'session.key'))).toBe(false);

    const viewer = await login(player(1, 'Viewer'), [VIEW], '198.51.100.1');
    const manager = await login(player(2, 'Keeper'), [VIEW, MANAGE], '198.51.100.2');
    const started = await ok('POST', '/api/backups/trigger', { body: { targets: ['config', 'database'] } });
    const records: { id: number; targetType: string }[] = started.backups;
    for (const r of records) await waitFor(async () => (await ok('GET', `/api/backups/${r.id}`)).status === 'SUCCESS', { what: `backup ${r.id}`, timeoutMs: 30_000, intervalMs: 100 });

    for (const r of records) {
      for (const path of ['download', 'manifest']) {
        const message = refused(await call('GET', `/api/backups/${r.id}/${path}`, { token: viewer }), 403, 'FORBIDDEN');
        expect(message).toContain(MANAGE);
      }
      expect((await call('GET', `/api/backups/${r.id}/download`, { token: manager })).status).toBe(200);
      expect((await call('GET', `/api/backups/${r.id}/download`)).status).toBe(200);
    }
    const config = records.find((r) => r.targetType === 'CONFIG')!;
    const manifest = String((await call('GET', `/api/backups/${config.id}/manifest`)).body);
    expect(manifest).toContain('modules/auth/auth.toml');
    expect(manifest).not.toContain('session.key');
    const database = records.find((r) => r.targetType === 'DATABASE')!;
    expect(String((await call('GET', `/api/backups/${database.id}/manifest`)).body)).not.toContain('session.key');
  }, 60_000);
});

describe('item 6: public magic-link delivery has its own budget', () => {
  test('six anonymous deliveries naming an online admin leave the admin all five in-game codes', async () => {
    const admin = player(10, 'TheAdmin');
    await bringOnline(admin);
    for (let i = 0; i < 6; i++) {
      const res = await call('POST', '/api/auth/deliver-magic-link', { token: null, body: { name: admin.name }, ip: `203.0.113.${i + 1}` });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ status: 'delivered', ttlSeconds: 60 });
    }
    for (let i = 0; i < 5; i++) {
      const { code, text } = await inGameCode(admin);
      expect({ i, code, text }).toEqual({ i, code: expect.stringMatching(/^\d{6}$/), text });
    }
  });

  test('an unknown name gets the same answer as an online one', async () => {
    const online = await call('POST', '/api/auth/deliver-magic-link', { token: null, body: { name: 'TheAdmin' }, ip: '203.0.113.50' });
    const unknown = await call('POST', '/api/auth/deliver-magic-link', { token: null, body: { name: 'NoSuchPlayer' }, ip: '203.0.113.51' });
    expect([online.status, online.body]).toEqual([unknown.status, unknown.body]);
  });
});

describe('item 7: passkey ceremonies, consume failures, TOTP guesses', () => {
  test('one address cannot fill the open passkey ceremonies: it is stopped at its own cap with 429 RATE_LIMITED; others still log in', async () => {
    let opened = 0;
    let last: { status: number; body: Json; headers: Headers } | undefined;
    while (opened < 200) {
      last = await call('POST', '/api/auth/passkey/login/start', { token: null, body: {}, ip: '192.0.2.66' });
      if (last.status !== 200) break;
      opened++;
    }
    expect(opened).toBeLessThanOrEqual(50);
    refused(last!, 429, 'RATE_LIMITED');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('POST', '/api/auth/passkey/login/start', { token: null, body: {}, ip: '192.0.2.67' })).status).toBe(200);
  });

  test('one session cannot either (registrations), from however many addresses', async () => {
    const session = await login(player(20, 'Mallet'), [], '192.0.2.80');
    let opened = 0;
    let last: { status: number; body: Json } | undefined;
    while (opened < 200) {
      last = await call('POST', '/api/auth/passkey/register/start', { token: session, body: {}, ip: `192.0.2.${100 + (opened % 100)}` });
      if (last.status !== 200) break;
      opened++;
    }
    expect(opened).toBeLessThanOrEqual(10);
    refused(last!, 429, 'RATE_LIMITED');
  });

  test('one’s own successful login does not reset the consume-failure cap (10 a minute per address)', async () => {
    const ip = '198.51.100.77';
    const alt = player(30, 'AltAccount');
    for (let i = 0; i < 9; i++) refused(await call('POST', '/api/auth/consume-challenge', { token: null, body: { challenge: '000000' }, ip }), 401, 'AUTH_CHALLENGE_INVALID');
    // The guesser logs in with an alt: before, this wiped the address's failures.
    await login(alt, [], ip);
    refused(await call('POST', '/api/auth/consume-challenge', { token: null, body: { challenge: '000000' }, ip }), 401, 'AUTH_CHALLENGE_INVALID');
    const blocked = await call('POST', '/api/auth/consume-challenge', { token: null, body: { challenge: '000000' }, ip });
    refused(blocked, 429, 'AUTH_RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('TOTP disable takes five wrong codes from a session, then 429 even for a right one; TOTP stays on', async () => {
    const victim = player(40, 'Victim');
    const stolen = await login(victim, [], '198.51.100.90');
    const enrolment = await ok('POST', '/api/profile/totp/enroll', { token: stolen });
    const live = generateSync({ secret: enrolment.secret, epoch: Math.floor(Date.now() / 1000) });
    await ok('POST', '/api/profile/totp/confirm', { token: stolen, body: { code: live } });
    const valid = new Set([-2, -1, 0, 1, 2].map((o) => generateSync({ secret: enrolment.secret, epoch: Math.floor(Date.now() / 1000) + o * 30 })));
    const wrong = ['000000', '111111', '222222', '333333', '444444', '555555'].find((c) => !valid.has(c))!;
    for (let i = 0; i < 5; i++) refused(await call('POST', '/api/profile/totp/disable', { token: stolen, body: { code: wrong }, ip: `198.51.101.${i + 1}` }), 401, 'AUTH_TOTP_INVALID');
    const blocked = await call('POST', '/api/profile/totp/disable', { token: stolen, body: { code: enrolment.recoveryCodes[0] }, ip: '198.51.101.99' });
    refused(blocked, 429, 'AUTH_RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await ok('GET', '/api/profile/totp/status', { token: stolen })).toEqual({ enabled: true, pendingEnrollment: false, recoveryCodesRemaining: 10 });
  });
});
