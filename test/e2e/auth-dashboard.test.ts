/**
 * Dashboard login through the compiled binary, the way its real clients go through it:
 *   - the proxy bridge reports a player online (derived service token) and runs the in-game
 *     `dashboard login` command for them (master token, with `caller`); the dashboard turns the
 *     code into a session;
 *   - the session opens exactly the routes whose node the player holds (granted through the
 *     perms API), never a machine-only route, not even with svc.dashboard.admin;
 *   - a passkey (software authenticator, the controller's derived origin) and TOTP (live codes
 *     from the enrolled secret) are second ways in;
 *   - the browser's WebSocket credential is a single-use `wt_` ticket; the magic-link delivery
 *     event reaches the master token's subscribers only;
 *   - logout, the audit log, a graceful restart that keeps sessions, and the files on disk.
 * The tests share one controller and run in order: each builds on the state the one before left.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSync } from 'otplib';
import { parse } from 'smol-toml';
import { deriveServiceToken } from '../../src/core/auth';
import { startBinaryController, svcBinary } from '../support/binary';
import { tempDir, waitFor } from '../support/controller';
import { SoftAuthenticator } from '../support/soft-authenticator';

const TOKEN = 'auth-dashboard-e2e-token-0123456789abcdef';
const SERVICE_TOKEN = deriveServiceToken(TOKEN);
const PLAYER = { uuid: '5f0c1e2a-7b3d-4c8e-9a1f-2b3c4d5e6f70', name: 'Ann_E2E' };
/**
 * Neither svc.toml nor auth.toml names the dashboard, so the controller falls back to
 * http://localhost:3000 (auth runtime FALLBACK_PUBLIC_URL): passkeys are bound to the RP id
 * `localhost` and accept that origin only.
 */
const DASHBOARD_ORIGIN = 'http://localhost:3000';

type Binary = Awaited<ReturnType<typeof startBinaryController>>;
/** Parsed JSON answers: the tests assert their shape. */
type Json = ReturnType<typeof JSON.parse>;

let svc: string;
let dir: string;
let removeDir: () => void;
let current: Binary;
const cleanups: (() => void)[] = [];
const sockets: EventSocket[] = [];

/** Session tokens as the flow produces them. */
const tokens = { code: '', passkey: '', totp: '' };
let totpSecret = '';
let probeCounter = 0;

async function call(method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<{ status: number; body: Json }> {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(current.url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

async function ok(method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Json> {
  const res = await call(method, path, options);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** What the proxy bridge does when the player joins: PLAYER_CONNECTED with the derived token. */
const bringOnline = () => ok('POST', '/api/proxy/events', { token: SERVICE_TOKEN, body: { type: 'PLAYER_CONNECTED', player: PLAYER.name, uuid: PLAYER.uuid, service: 'Lobby-1' } });

/** The player types the dashboard login command; the bridge runs it for them with the master token. The code from the lines. */
async function inGameLoginCode(): Promise<string> {
  const res = await ok('POST', '/api/commands/dashboard/execute', { body: { args: ['login'], caller: PLAYER } });
  const lines = res.lines as { type: string; text: string }[];
  const code = lines.map((l) => /login code: (\d{6})\b/.exec(l.text)?.[1]).find((c) => c !== undefined);
  if (!code) throw new Error(`no login code in the command's lines: ${JSON.stringify(lines)}`);
  return code;
}

/** A perms group holding `nodes`, with the player in it (the dashboard's permission editor, master token). */
async function grant(group: string, nodes: readonly string[]): Promise<void> {
  expect((await call('POST', '/api/permissions/groups', { body: { name: group } })).status).toBe(201);
  for (const permission of nodes) await ok('POST', `/api/permissions/groups/${group}/permissions`, { body: { permission } });
  await ok('POST', `/api/permissions/players/${PLAYER.uuid}/groups`, { body: { group } });
}

/** A live code of the enrolled secret for `offsetSteps` 30-second steps from now (the server's window is ±1). */
const totpCode = (offsetSteps = 0) => generateSync({ secret: totpSecret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

/** A client of GET /api/events: every frame it received, and how it was closed. */
class EventSocket {
  readonly frames: { type: string; data: Record<string, unknown> }[] = [];
  closed: { code: number; reason: string } | null = null;
  private readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(token: string) {
    this.socket = new WebSocket(`${current.url.replace('http', 'ws')}/api/events?token=${encodeURIComponent(token)}`);
    this.socket.addEventListener('message', (m) => this.frames.push(JSON.parse(String(m.data))));
    this.socket.addEventListener('close', (e) => void (this.closed = { code: e.code, reason: e.reason }));
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener('open', () => resolve());
      this.socket.addEventListener('error', () => reject(new Error('the events socket failed to open')));
    });
    // A socket refused after the upgrade never errors; one that fails earlier is reported where awaited.
    this.opened.catch(() => undefined);
    sockets.push(this);
  }

  frame(type: string, match: (data: Record<string, unknown>) => boolean = () => true, timeoutMs = 5000) {
    return waitFor(() => this.frames.find((f) => f.type === type && match(f.data)), { what: `a ${type} frame`, timeoutMs });
  }

  async closedWith(timeoutMs = 5000) {
    return waitFor(() => this.closed, { what: 'the socket to close', timeoutMs });
  }

  close(): void {
    this.socket.close();
  }
}

/**
 * Resolves once every socket hears events: the server subscribes a socket after checking its
 * credential, which may end after the client saw `open`. Creates probe groups until each has
 * the frame of one (the frame proves the subscription); returns the last probe's group name.
 */
async function untilSubscribed(...listeners: EventSocket[]): Promise<string> {
  await Promise.all(listeners.map((l) => l.opened));
  const deadline = Date.now() + 5000;
  for (;;) {
    const group = `probe${++probeCounter}`;
    expect((await call('POST', '/api/permissions/groups', { body: { name: group } })).status).toBe(201);
    const heard = await Promise.all(listeners.map((l) => l.frame('PERMISSION_GROUP_CREATED', (d) => d.group === group, 300).then(() => true, () => false)));
    if (heard.every(Boolean)) return group;
    if (Date.now() > deadline) throw new Error('the sockets never heard a probe event');
  }
}

beforeAll(async () => {
  svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-auth-e2e-'));
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n');
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
}, 180_000);

afterAll(() => {
  for (const socket of sockets) socket.close();
  for (const cleanup of cleanups) cleanup();
  removeDir();
});

describe('dashboard login against the compiled binary', () => {
  test('in game: the bridge runs `dashboard login` for the player; the dashboard exchanges the code for a session', async () => {
    await bringOnline();
    const code = await inGameLoginCode();
    const login = await call('POST', '/api/auth/consume-challenge', { token: null, body: { challenge: code } });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ totpRequired: false, challengeId: null, user: { uuid: PLAYER.uuid, name: PLAYER.name, isAdmin: false, totpEnabled: false } });
    expect(Array.isArray(login.body.user.permissions)).toBe(true);
    expect(login.body.token).toEqual(expect.any(String));
    expect(login.body.expiresAt).toBeGreaterThan(Date.now());
    tokens.code = login.body.token;

    // A code works once.
    const again = await call('POST', '/api/auth/consume-challenge', { token: null, body: { challenge: code } });
    expect(again).toMatchObject({ status: 401, body: { success: false, error: 'AUTH_CHALLENGE_INVALID' } });
    expect(await ok('GET', '/api/auth/me', { token: tokens.code })).toEqual({ ...login.body.user });
  });

  test('the session opens a route once the player holds its node, and never a machine-only route', async () => {
    const refused = await call('GET', '/api/services', { token: tokens.code });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: 'FORBIDDEN' });
    expect(refused.body.message).toContain('Missing permission: svc.dashboard.services.view');

    await grant('viewers', ['svc.dashboard.services.view']);
    const allowed = await call('GET', '/api/services', { token: tokens.code });
    expect(allowed.status).toBe(200);
    expect((await ok('GET', '/api/auth/me', { token: tokens.code })).permissions).toContain('svc.dashboard.services.view');
    // Other nodes are still missing.
    expect((await call('GET', '/api/audit', { token: tokens.code })).body.message).toContain('Missing permission: svc.dashboard.audit.view');

    await grant('admins', ['svc.dashboard.admin']);
    expect((await ok('GET', '/api/auth/me', { token: tokens.code })).isAdmin).toBe(true);
    expect((await call('GET', '/api/audit', { token: tokens.code })).status).toBe(200);
    const machineOnly: [string, string, unknown][] = [
      ['POST', '/api/auth/generate-code', PLAYER],
      ['POST', '/api/proxy/events', { type: 'PLAYER_CONNECTED', player: PLAYER.name, uuid: PLAYER.uuid, service: 'Lobby-1' }],
      ['PUT', `/api/permissions/players/${PLAYER.uuid}`, { name: PLAYER.name }],
      ['POST', '/api/commands/version/execute', { args: [] }],
    ];
    for (const [method, path, body] of machineOnly) {
      const res = await call(method, path, { token: tokens.code, body });
      expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 403, error: 'FORBIDDEN' });
      expect(res.body.message).toContain('for API tokens');
      // The same requests are fine for the machines they are for (generate-code spends one of
      // the player's 5 codes a minute: the test mints 4 in all, the magic link included).
      const token = path === '/api/proxy/events' ? SERVICE_TOKEN : TOKEN;
      expect({ path, status: (await call(method, path, { token, body })).status }).toEqual({ path, status: 200 });
    }
  });

  test('the spec’s shared derived token may name a `caller` (svc hands it to no server; proxies hold their own credential)', async () => {
    // Another player, so the codes this file mints for PLAYER stay within their 5 a minute.
    const other = { uuid: '5f0c1e2a-7b3d-4c8e-9a1f-2b3c4d5e6f71', name: 'Bob_E2E' };
    await ok('POST', '/api/proxy/events', { token: SERVICE_TOKEN, body: { type: 'PLAYER_CONNECTED', player: other.name, uuid: other.uuid, service: 'Lobby-1' } });
    const res = await call('POST', '/api/commands/dashboard/execute', { token: SERVICE_TOKEN, body: { args: ['login'], caller: other } });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body.lines)).toMatch(/login code: \d{6}/);
    // Without a caller the command has nobody to mint a code for.
    const nobody = await call('POST', '/api/commands/dashboard/execute', { token: SERVICE_TOKEN, body: { args: ['login'] } });
    expect(nobody.status).toBe(422);
    expect(JSON.stringify(nobody.body.lines)).toContain('in game only');
  });

  test('a passkey registered from the dashboard origin logs the player in as a second session', async () => {
    const authenticator = new SoftAuthenticator();
    const start = await ok('POST', '/api/auth/passkey/register/start', { token: tokens.code, body: { label: 'Laptop' } });
    const options = start.publicKeyOptionsJson.publicKey;
    expect(options.rp.id).toBe('localhost');
    const created = await authenticator.createCredential(options, DASHBOARD_ORIGIN);
    const stored = await ok('POST', '/api/auth/passkey/register/finish', { token: tokens.code, body: { ceremonyId: start.ceremonyId, responseJson: JSON.stringify(created), label: 'Laptop' } });
    expect(stored).toMatchObject({ credentialId: created.id, label: 'Laptop' });
    expect((await ok('GET', '/api/auth/passkey/credentials', { token: tokens.code })).credentials).toHaveLength(1);

    // An assertion made for another origin is refused.
    const wrongStart = await ok('POST', '/api/auth/passkey/login/start', { token: null });
    const wrong = await authenticator.getAssertion(wrongStart.publicKeyOptionsJson.publicKey, 'http://localhost:3001');
    const refused = await call('POST', '/api/auth/passkey/login/finish', { token: null, body: { ceremonyId: wrongStart.ceremonyId, responseJson: wrong } });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('PASSKEY_LOGIN_FAILED');

    const loginStart = await ok('POST', '/api/auth/passkey/login/start', { token: null });
    const assertion = await authenticator.getAssertion(loginStart.publicKeyOptionsJson.publicKey, DASHBOARD_ORIGIN);
    const login = await ok('POST', '/api/auth/passkey/login/finish', { token: null, body: { ceremonyId: loginStart.ceremonyId, responseJson: assertion } });
    expect(login).toMatchObject({ totpRequired: false, user: { uuid: PLAYER.uuid, isAdmin: true } });
    tokens.passkey = login.token;
    expect(tokens.passkey).not.toBe(tokens.code);

    const mine = await ok('GET', '/api/auth/my-sessions', { token: tokens.passkey });
    const current = mine.sessions.find((s: { sessionId: string }) => s.sessionId === mine.currentSessionId);
    expect(current).toMatchObject({ uuid: PLAYER.uuid, loginMethod: 'passkey' });
    expect(mine.sessions.map((s: { loginMethod: string }) => s.loginMethod).sort()).toEqual(['code', 'passkey']);
  });

  test('TOTP: enrolled and confirmed with a live code, the next login by code needs the TOTP step', async () => {
    const enrolled = await ok('POST', '/api/profile/totp/enroll', { token: tokens.code });
    expect(enrolled.otpauthUri).toStartWith('otpauth://totp/');
    expect(enrolled.recoveryCodes).toHaveLength(10);
    totpSecret = enrolled.secret;
    expect(await ok('GET', '/api/profile/totp/status', { token: tokens.code })).toEqual({ enabled: false, pendingEnrollment: true, recoveryCodesRemaining: 10 });
    expect((await call('POST', '/api/profile/totp/confirm', { token: tokens.code, body: { code: '000000' === totpCode() ? '111111' : '000000' } })).body.error).toBe('AUTH_TOTP_INVALID');
    await ok('POST', '/api/profile/totp/confirm', { token: tokens.code, body: { code: totpCode() } });
    expect(await ok('GET', '/api/profile/totp/status', { token: tokens.code })).toEqual({ enabled: true, pendingEnrollment: false, recoveryCodesRemaining: 10 });

    const code = await inGameLoginCode();
    const first = await ok('POST', '/api/auth/consume-challenge', { token: null, body: { challenge: code } });
    expect(first).toEqual({ token: null, expiresAt: null, user: null, totpRequired: true, challengeId: expect.any(String) });
    // The step the confirm used is spent; the next one is inside the ±1 step window.
    const replay = await call('POST', '/api/auth/totp-verify', { token: null, body: { challengeId: first.challengeId, code: totpCode(-1) } });
    expect(replay).toMatchObject({ status: 401, body: { error: 'AUTH_TOTP_INVALID' } });
    const session = await ok('POST', '/api/auth/totp-verify', { token: null, body: { challengeId: first.challengeId, code: totpCode(1) } });
    expect(session.user).toMatchObject({ uuid: PLAYER.uuid, totpEnabled: true, isAdmin: true });
    tokens.totp = session.token;
    expect((await call('GET', '/api/services', { token: tokens.totp })).status).toBe(200);
    // The challenge is spent.
    expect((await call('POST', '/api/auth/totp-verify', { token: null, body: { challengeId: first.challengeId, code: enrolled.recoveryCodes[0] } })).body.error).toBe('AUTH_CHALLENGE_INVALID');
  });

  test('WebSockets: a wt_ ticket admits the session once; the same ticket again is closed 1008', async () => {
    const { ticket } = await ok('GET', '/api/auth/ws-ticket', { token: tokens.code });
    expect(ticket).toStartWith('wt_');
    const browser = new EventSocket(ticket);
    const probe = await untilSubscribed(browser);
    expect(browser.closed).toBeNull();
    await browser.frame('PERMISSION_GROUP_CREATED', (d) => d.group === probe);

    const replayed = new EventSocket(ticket);
    expect(await replayed.closedWith()).toMatchObject({ code: 1008 });
    expect(replayed.frames).toEqual([]);
    // Refusing the replay left the first socket alone.
    expect(browser.closed).toBeNull();
    browser.close();
  });

  test('the magic-link delivery reaches the master token’s subscriber, not the derived token’s', async () => {
    const proxy = new EventSocket(TOKEN);
    const backend = new EventSocket(SERVICE_TOKEN);
    await untilSubscribed(proxy, backend);
    const proxyBefore = proxy.frames.length;
    const backendBefore = backend.frames.length;

    expect(await ok('POST', '/api/auth/deliver-magic-link', { token: null, body: { name: PLAYER.name } })).toMatchObject({ status: 'delivered' });
    const delivery = await proxy.frame('AUTH_MAGIC_LINK_DELIVERY', (d) => d.uuid === PLAYER.uuid);
    expect(delivery.data).toMatchObject({ uuid: PLAYER.uuid, name: PLAYER.name });
    expect(String(delivery.data.url)).toStartWith(`${DASHBOARD_ORIGIN}/login?link=`);

    // A marker both hear, published after the delivery: the backend's stream up to it has no delivery.
    const marker = await untilSubscribed(proxy, backend);
    const proxyMarker = proxy.frames.findIndex((f, i) => i >= proxyBefore && f.type === 'PERMISSION_GROUP_CREATED' && f.data.group === marker);
    expect(proxy.frames.indexOf(delivery)).toBeLessThan(proxyMarker);
    const backendMarker = backend.frames.findIndex((f, i) => i >= backendBefore && f.type === 'PERMISSION_GROUP_CREATED' && f.data.group === marker);
    expect(backendMarker).toBeGreaterThan(-1);
    expect(backend.frames.slice(backendBefore, backendMarker + 1).map((f) => f.type)).not.toContain('AUTH_MAGIC_LINK_DELIVERY');
    proxy.close();
    backend.close();
  });

  test('logout ends the session (and its socket); the audit log lists every login with the player’s uuid', async () => {
    const { ticket } = await ok('GET', '/api/auth/ws-ticket', { token: tokens.passkey });
    const socket = new EventSocket(ticket);
    await untilSubscribed(socket);

    expect(await ok('POST', '/api/auth/logout', { token: tokens.passkey })).toMatchObject({ success: true });
    expect(await socket.closedWith()).toMatchObject({ code: 1008 });
    expect(await call('GET', '/api/auth/me', { token: tokens.passkey })).toMatchObject({ status: 401, body: { success: false, error: 'AUTH_SESSION_INVALID' } });
    expect((await call('GET', '/api/services', { token: tokens.passkey })).body.error).toBe('AUTH_SESSION_INVALID');
    expect((await call('GET', '/api/auth/me', { token: tokens.code })).status).toBe(200);

    const audit = await ok('GET', '/api/audit?action=DASHBOARD_LOGIN_SUCCEEDED');
    expect(audit.total).toBe(3);
    for (const entry of audit.entries) expect(entry.details).toContain(`uuid=${PLAYER.uuid}`);
    const methods = audit.entries.map((e: { details: string }) => /method=(\w+)/.exec(e.details)?.[1]).sort();
    expect(methods).toEqual(['code', 'code', 'passkey']);
    // The session that holds the audit node reads the same page.
    expect((await ok('GET', '/api/audit?action=DASHBOARD_LOGIN_SUCCEEDED', { token: tokens.code })).total).toBe(3);
    const revoked = await ok('GET', '/api/audit?action=DASHBOARD_SESSION_REVOKED');
    expect(revoked.entries[0].details).toContain(`uuid=${PLAYER.uuid}`);
  });

  test('sessions, TOTP and the key survive a graceful restart of the binary', async () => {
    const keyFile = join(dir, 'data/auth/session.key');
    const keyBefore = readFileSync(keyFile);
    current.child.kill('SIGTERM');
    expect(await current.child.exited).toBe(0);
    current = await startBinaryController(svc, dir, TOKEN, cleanups);

    expect((await call('GET', '/api/services', { token: tokens.code })).status).toBe(200);
    expect(await ok('GET', '/api/auth/me', { token: tokens.totp })).toMatchObject({ uuid: PLAYER.uuid, isAdmin: true, totpEnabled: true });
    expect((await call('GET', '/api/auth/me', { token: tokens.passkey })).body.error).toBe('AUTH_SESSION_INVALID');
    expect(await ok('GET', '/api/profile/totp/status', { token: tokens.code })).toMatchObject({ enabled: true });
    expect(readFileSync(keyFile).equals(keyBefore)).toBe(true);
  }, 30_000);

  test('config/modules/auth/auth.toml has every section; data/auth/session.key is 32 bytes, mode 600', () => {
    const config = parse(readFileSync(join(dir, 'config/modules/auth/auth.toml'), 'utf8'));
    for (const section of ['sessions', 'login_challenge', 'dashboard', 'totp', 'security', 'webauthn']) expect(config[section]).toBeObject();
    expect(config.sessions).toMatchObject({ ttl_seconds: 604_800, rolling_refresh: true, max_per_user: 10 });
    expect(config.login_challenge).toMatchObject({ code_length: 6, max_generates_per_minute: 5, max_consume_failures_per_minute: 10 });
    expect(config.security).toMatchObject({ token_encryption_key_file: 'data/auth/session.key' });
    const key = statSync(join(dir, 'data/auth/session.key'));
    expect(key.size).toBe(32);
    expect(key.mode & 0o777).toBe(0o600);
  });
});
