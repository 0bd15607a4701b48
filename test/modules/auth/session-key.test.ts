/**
 * session.key, the AES-256 key sealing TOTP secrets: kept at data/auth/session.key (32 bytes,
 * mode 600, in an owner-only folder), out of config/ so config backups never carry it
 * (issue 36, item 5). Made on first start; when it is lost, made anew with a loud log line and
 * a doctor failure counting the TOTP enrolments that can no longer be read. A key from before
 * (config/modules/auth/session.key) is moved on start, once, and keeps working; a key that
 * exists is never replaced: one of the wrong size stops the module with a clear error.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { tempDir, type TestController } from '../../support/controller';
import { LEGACY_SESSION_KEY_FILE, loadSessionKey, sessionKeyLocation } from '../../../src/modules/auth/session-key';
import { bringOnline, loginAs, loginCode, testPlayer } from '../../support/dashboard-login';
import { authTomlPath, consume, enableTotp, expectError, expectJson, getAs, startAuth, totpCode, totpVerify, type AuthTest } from './harness';

interface Finding {
  level: string;
  message: string;
  hint: string | null;
}

const keyPath = (c: TestController) => join(c.dir, 'data', 'auth', 'session.key');
const legacyPath = (c: TestController) => join(c.dir, 'config', 'modules', 'auth', 'session.key');
const modeOf = (file: string) => statSync(file).mode & 0o777;
const posix = process.platform !== 'win32';

async function loginFindings(c: TestController): Promise<Finding[]> {
  const report = await expectJson(await c.api('/api/doctor'));
  return report.sections.find((s: { name: string }) => s.name === 'Dashboard login').findings;
}

async function authModuleInfo(c: TestController): Promise<{ status: string; error: string | null }> {
  const { modules } = await expectJson(await c.api('/api/modules'));
  return modules.find((m: { id: string }) => m.id === 'auth');
}

/** The auth.toml an svc before 0.14 wrote: the key named under config/ (its default then). */
function legacyAuthToml(dir: string): void {
  const file = authTomlPath(dir);
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  doc.security = { ...doc.security, token_encryption_key_file: 'config/modules/auth/session.key' };
  writeFileSync(file, stringify(doc));
}

describe('session.key at data/auth/', () => {
  let t: AuthTest;
  beforeAll(async () => {
    t = await startAuth();
  });
  afterAll(() => t.stop());

  test('is made on first start under data/auth/: 32 bytes, mode 600, folder 700; nothing under config/; the doctor is content', async () => {
    const file = keyPath(t.c);
    expect(readFileSync(file).length).toBe(32);
    if (posix) expect(modeOf(file)).toBe(0o600);
    if (posix) expect(modeOf(dirname(file))).toBe(0o700);
    expect(existsSync(legacyPath(t.c))).toBe(false);
    const written = parse(readFileSync(authTomlPath(t.c.dir), 'utf8')) as { security: { token_encryption_key_file: string } };
    expect(written.security.token_encryption_key_file).toBe('data/auth/session.key');
    const findings = await loginFindings(t.c);
    expect(findings.filter((f) => f.level !== 'OK' && !f.message.includes('no dashboard URL'))).toEqual([]);
    expect(findings).toContainEqual(expect.objectContaining({ level: 'OK', message: `${file} (mode 600)` }));
  });

  test('deleted and restarted: made anew, logged, TOTP enrolments unreadable (doctor FAIL); recovery codes still work', async () => {
    const alice = testPlayer(1, 'Alice');
    const token = await loginAs(t.c, alice);
    const { secret, recoveryCodes } = await enableTotp(t.c, token);
    const oldKey = readFileSync(keyPath(t.c));

    await t.c.stopKeepingDir();
    rmSync(keyPath(t.c));
    await t.restartStopped();
    const c = t.c;

    const fresh = readFileSync(keyPath(c));
    expect(fresh.length).toBe(32);
    expect(fresh.equals(oldKey)).toBe(false);
    if (posix) expect(modeOf(keyPath(c))).toBe(0o600);
    const logged = c.logs.find((line) => line.includes('session.key') && line.includes('made anew'));
    expect(logged).toBeDefined();
    expect(logged).toContain('1 TOTP enrolment(s) can no longer be read');
    expect(logged).not.toContain(secret);

    expect(await loginFindings(c)).toContainEqual(expect.objectContaining({ level: 'FAIL', message: expect.stringContaining('1 TOTP enrolment(s) cannot be read') }));

    // The session made before is not sealed with the key: it still works.
    expect((await getAs(c, '/api/auth/me', token)).status).toBe(200);
    // A live code can no longer be checked; a recovery code can.
    await bringOnline(c, alice);
    const step = await expectJson(await consume(c, await loginCode(c, alice)));
    expect(step.totpRequired).toBe(true);
    await expectError(await totpVerify(c, step.challengeId, totpCode(secret, 1)), 401, 'AUTH_TOTP_INVALID');
    const session = await expectJson(await totpVerify(c, step.challengeId, recoveryCodes[0]!));
    // ... and so does disabling with one, after which the doctor is content again.
    const disabled = await c.api('/api/profile/totp/disable', { method: 'POST', token: session.token, json: { code: recoveryCodes[1]! } });
    expect((await expectJson(disabled)).message).toBe('TOTP disabled');
    expect((await loginFindings(c)).filter((f) => f.level === 'FAIL')).toEqual([]);
  });

  test('a key of the wrong size is refused, never replaced: the module stops with a clear error until the right key is back', async () => {
    const kept = readFileSync(keyPath(t.c));
    await t.c.stopKeepingDir();
    const wrong = Buffer.alloc(16, 7);
    writeFileSync(keyPath(t.c), wrong);
    await t.restartStopped();
    // The file is as it was: a key that exists is never made anew over the enrolments sealed under it.
    expect(readFileSync(keyPath(t.c)).equals(wrong)).toBe(true);
    const info = await authModuleInfo(t.c);
    expect(info.status).toBe('failed');
    expect(info.error).toContain('holds 16 bytes, not the 32 of a session.key');
    expect(info.error).toContain('Put the right key back');
    expect(t.c.logs.some((line) => line.includes('holds 16 bytes'))).toBe(true);
    // The rest of the controller runs on; dashboard login is off (its routes are not there).
    expect((await t.c.api('/api/services')).status).toBe(200);
    expect((await t.c.api('/api/auth/passkey/login/start', { method: 'POST', token: null, json: {} })).status).toBe(404);

    await t.c.stopKeepingDir();
    writeFileSync(keyPath(t.c), kept);
    await t.restartStopped();
    expect((await authModuleInfo(t.c)).status).toBe('active');
    expect(readFileSync(keyPath(t.c)).equals(kept)).toBe(true);
  });

  test('a key readable by others is made private again (and its folder owner-only)', async () => {
    if (!posix) return;
    const kept = readFileSync(keyPath(t.c));
    await t.c.stopKeepingDir();
    chmodSync(keyPath(t.c), 0o644);
    chmodSync(dirname(keyPath(t.c)), 0o755);
    await t.restartStopped();
    expect(modeOf(keyPath(t.c))).toBe(0o600);
    expect(modeOf(dirname(keyPath(t.c)))).toBe(0o700);
    expect(readFileSync(keyPath(t.c)).equals(kept)).toBe(true);
    expect((await loginFindings(t.c)).filter((f) => f.message.includes('session.key'))).toEqual([
      expect.objectContaining({ level: 'OK', message: expect.stringContaining('(mode 600)') }),
    ]);
  });
});

describe('moving a key from config/modules/auth/ (svc up to 0.13)', () => {
  /** A controller laid out as before: the key under config/, auth.toml naming it there, a player with TOTP. */
  async function oldLayout(): Promise<{ t: AuthTest; key: Buffer; secret: string; token: string }> {
    const t = await startAuth({ auth: '[login_challenge]\nmax_generates_per_minute = 50\n' });
    const token = await loginAs(t.c, testPlayer(5, 'Olda'));
    const { secret } = await enableTotp(t.c, token);
    const key = readFileSync(keyPath(t.c));
    await t.c.stopKeepingDir();
    mkdirSync(dirname(legacyPath(t.c)), { recursive: true });
    renameSync(keyPath(t.c), legacyPath(t.c));
    chmodSync(legacyPath(t.c), 0o600);
    legacyAuthToml(t.c.dir);
    return { t, key, secret, token };
  }

  /** A full login of Olda with TOTP: proves the sealed secret still opens with the key in use. */
  async function totpLogin(c: TestController, secret: string, offset: number): Promise<void> {
    const olda = testPlayer(5, 'Olda');
    await bringOnline(c, olda);
    const step = await expectJson(await consume(c, await loginCode(c, olda)));
    expect(step.totpRequired).toBe(true);
    const session = await expectJson(await totpVerify(c, step.challengeId, totpCode(secret, offset)));
    expect(session.user.totpEnabled).toBe(true);
  }

  test('on start the key moves to data/auth/ (same bytes, mode 600), TOTP keeps working, and again after a restart', async () => {
    const { t, key, secret } = await oldLayout();
    try {
      await t.restartStopped();
      expect(existsSync(legacyPath(t.c))).toBe(false);
      expect(readFileSync(keyPath(t.c)).equals(key)).toBe(true);
      if (posix) expect(modeOf(keyPath(t.c))).toBe(0o600);
      if (posix) expect(modeOf(dirname(keyPath(t.c)))).toBe(0o700);
      expect(t.c.logs.some((line) => line.includes('session.key moved out of config/'))).toBe(true);
      await totpLogin(t.c, secret, 1);
      expect((await loginFindings(t.c)).filter((f) => f.level !== 'OK' && !f.message.includes('no dashboard URL'))).toEqual([]);

      await t.restart();
      expect(existsSync(legacyPath(t.c))).toBe(false);
      expect(readFileSync(keyPath(t.c)).equals(key)).toBe(true);
      expect(t.c.logs.some((line) => line.includes('made anew'))).toBe(false);
      // Every sealed secret still opens with the key in use (the doctor counts those that do not).
      expect((await loginFindings(t.c)).filter((f) => f.level !== 'OK' && !f.message.includes('no dashboard URL'))).toEqual([]);
      expect(t.c.controller.kernel.db.query<{ n: number }, []>('SELECT count(*) AS n FROM auth_totp WHERE enabled = 1').get()!.n).toBe(1);
    } finally {
      await t.stop();
    }
  });

  test('an interrupted move (the same key under both names) is finished: the old name goes', async () => {
    const { t, key } = await oldLayout();
    try {
      mkdirSync(dirname(keyPath(t.c)), { recursive: true });
      writeFileSync(keyPath(t.c), key, { mode: 0o600 });
      await t.restartStopped();
      expect(existsSync(legacyPath(t.c))).toBe(false);
      expect(readFileSync(keyPath(t.c)).equals(key)).toBe(true);
    } finally {
      await t.stop();
    }
  });

  test('a different old key beside the one in use is not read, not deleted, and named by the log and the doctor', async () => {
    const { t, key } = await oldLayout();
    try {
      mkdirSync(dirname(keyPath(t.c)), { recursive: true });
      writeFileSync(keyPath(t.c), key, { mode: 0o600 });
      const other = Buffer.alloc(32, 9);
      writeFileSync(legacyPath(t.c), other, { mode: 0o600 });
      await t.restartStopped();
      expect(readFileSync(keyPath(t.c)).equals(key)).toBe(true);
      expect(readFileSync(legacyPath(t.c)).equals(other)).toBe(true);
      expect(t.c.logs.some((line) => line.includes('an old session.key lies at'))).toBe(true);
      expect(await loginFindings(t.c)).toContainEqual(expect.objectContaining({ level: 'WARN', message: expect.stringContaining(`an old session.key lies at ${legacyPath(t.c)}`) }));
    } finally {
      await t.stop();
    }
  });

  test('an old key of the wrong size is not moved: the module stops and says why', async () => {
    const { t } = await oldLayout();
    try {
      writeFileSync(legacyPath(t.c), Buffer.alloc(31, 1));
      await t.restartStopped();
      expect(existsSync(keyPath(t.c))).toBe(false);
      expect(readFileSync(legacyPath(t.c)).length).toBe(31);
      const info = await authModuleInfo(t.c);
      expect(info.status).toBe('failed');
      expect(info.error).toContain(`${legacyPath(t.c)} holds 31 bytes`);
    } finally {
      await t.stop();
    }
  });
});

describe('loadSessionKey, directly', () => {
  test('a key path the operator chose is never filled from the old place: a new key there, the old one reported', () => {
    const { dir, remove } = tempDir('svc-session-key-');
    try {
      const old = Buffer.alloc(32, 3);
      mkdirSync(join(dir, 'config', 'modules', 'auth'), { recursive: true });
      writeFileSync(join(dir, LEGACY_SESSION_KEY_FILE), old);
      const location = sessionKeyLocation(dir, join(dir, 'secrets', 'totp.key'));
      expect(location).toEqual({ file: join(dir, 'secrets', 'totp.key'), legacy: join(dir, LEGACY_SESSION_KEY_FILE), ownFolder: false });
      const loaded = loadSessionKey(location);
      expect(loaded.regenerated).toBe('missing');
      expect(loaded.movedFrom).toBeNull();
      expect(loaded.strayLegacy).toBe(join(dir, LEGACY_SESSION_KEY_FILE));
      expect(readFileSync(join(dir, LEGACY_SESSION_KEY_FILE)).equals(old)).toBe(true);
      expect(readFileSync(join(dir, 'secrets', 'totp.key')).equals(old)).toBe(false);
    } finally {
      remove();
    }
  });

  test('the old default, spelt any way, means data/auth/session.key', () => {
    for (const spelt of ['config/modules/auth/session.key', './config/modules/auth/session.key', '/srv/svc/config/modules/auth/session.key', 'data/auth/session.key', '']) {
      expect(sessionKeyLocation('/srv/svc', spelt)).toEqual({ file: '/srv/svc/data/auth/session.key', legacy: '/srv/svc/config/modules/auth/session.key', ownFolder: true });
    }
  });
});
