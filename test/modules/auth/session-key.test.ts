/**
 * config/modules/auth/session.key, the AES-256 key sealing TOTP secrets: made on first start
 * (32 bytes, mode 600), kept private, and when it is lost, made anew with a loud log line and a
 * doctor failure counting the TOTP enrolments that can no longer be read. Sessions do not
 * depend on it; recovery codes still let the affected players in and out of TOTP.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestController } from '../../support/controller';
import { bringOnline, loginAs, loginCode, testPlayer } from '../../support/dashboard-login';
import { consume, enableTotp, expectError, expectJson, getAs, startAuth, totpCode, totpVerify, type AuthTest } from './harness';

interface Finding {
  level: string;
  message: string;
  hint: string | null;
}

const keyPath = (c: TestController) => join(c.dir, 'config', 'modules', 'auth', 'session.key');
const modeOf = (file: string) => statSync(file).mode & 0o777;

async function loginFindings(c: TestController): Promise<Finding[]> {
  const report = await expectJson(await c.api('/api/doctor'));
  return report.sections.find((s: { name: string }) => s.name === 'Dashboard login').findings;
}

let t: AuthTest;
beforeAll(async () => {
  t = await startAuth();
});
afterAll(() => t.stop());

describe('session.key', () => {
  test('is made on first start: 32 bytes, mode 600; the doctor is content', async () => {
    const file = keyPath(t.c);
    expect(readFileSync(file).length).toBe(32);
    if (process.platform !== 'win32') expect(modeOf(file)).toBe(0o600);
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
    if (process.platform !== 'win32') expect(modeOf(keyPath(c))).toBe(0o600);
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

  test('a key of the wrong size is replaced (doctor WARN); a key readable by others is made private again', async () => {
    await t.c.stopKeepingDir();
    writeFileSync(keyPath(t.c), Buffer.alloc(16, 7));
    await t.restartStopped();
    expect(readFileSync(keyPath(t.c)).length).toBe(32);
    expect(await loginFindings(t.c)).toContainEqual(expect.objectContaining({ level: 'WARN', message: expect.stringContaining('wrong size') }));

    if (process.platform === 'win32') return;
    const kept = readFileSync(keyPath(t.c));
    await t.c.stopKeepingDir();
    chmodSync(keyPath(t.c), 0o644);
    await t.restartStopped();
    expect(modeOf(keyPath(t.c))).toBe(0o600);
    expect(readFileSync(keyPath(t.c)).equals(kept)).toBe(true);
    expect((await loginFindings(t.c)).filter((f) => f.message.includes('session.key'))).toEqual([
      expect.objectContaining({ level: 'OK', message: expect.stringContaining('(mode 600)') }),
    ]);
  });
});
