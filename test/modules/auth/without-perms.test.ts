/**
 * The auth module without the permissions module: game-account login cannot resolve what a
 * session may do, so every login route refuses with AUTH_DISABLED naming the missing module,
 * API tokens keep working, and the doctor reports the gap as a failure.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { authModule } from '../../../src/modules/auth';
import { playersModule } from '../../../src/modules/players';
import type { TestController } from '../../support/controller';
import { bringOnline, testPlayer } from '../../support/dashboard-login';
import { expectError, expectJson, readJson, startAuth, type AuthTest } from './harness';

let t: AuthTest;
let c: TestController;
beforeAll(async () => {
  t = await startAuth({ modules: [playersModule, authModule] });
  c = t.c;
});
afterAll(() => t.stop());

const alice = testPlayer(1, 'Alice');
const post = (path: string, token: string | null, json?: unknown) => c.api(path, { method: 'POST', token, json });

describe('without the perms module', () => {
  test('minting and consuming codes and links answer 403 AUTH_DISABLED naming the perms module', async () => {
    await bringOnline(c, alice);
    await expectError(await post('/api/auth/generate-code', c.service, alice), 403, 'AUTH_DISABLED', 'permissions module (perms)');
    await expectError(await post('/api/auth/request-magic-link', c.service, alice), 403, 'AUTH_DISABLED', 'perms');
    await expectError(await post('/api/auth/consume-challenge', null, { challenge: '123456' }), 403, 'AUTH_DISABLED', 'perms');
    await expectError(await post('/api/auth/consume-magic-link', null, { token: 'abc' }), 403, 'AUTH_DISABLED', 'perms');
    await expectError(await post('/api/auth/deliver-magic-link', null, { name: 'Alice' }), 403, 'AUTH_DISABLED', 'perms');
    await expectError(await post('/api/auth/passkey/login/start', null, {}), 403, 'AUTH_DISABLED', 'perms');
    // Nothing was minted.
    expect(c.controller.kernel.db.query<{ n: number }, []>('SELECT count(*) AS n FROM auth_challenges').get()?.n).toBe(0);
  });

  test('the in-game command says the same', async () => {
    const response = await c.api('/api/commands/dashboard/execute', { method: 'POST', json: { args: ['login'], caller: alice } });
    expect(response.status).toBe(422);
    expect((await readJson(response)).message).toContain('perms');
  });

  test('API tokens still work: the machine session view answers', async () => {
    expect(await expectJson(await c.api('/api/auth/sessions', { token: c.service }))).toEqual({ sessions: [], total: 0 });
    expect((await c.api('/api/services')).status).toBe(200);
  });

  test('the doctor has a FAIL in the "Dashboard login" section', async () => {
    const report = await expectJson(await c.api('/api/doctor'));
    const section = report.sections.find((s: { name: string }) => s.name === 'Dashboard login');
    expect(section).toBeDefined();
    const fails = section.findings.filter((f: { level: string }) => f.level === 'FAIL');
    expect(fails).toEqual([expect.objectContaining({ message: expect.stringContaining('permissions module is not installed'), hint: expect.stringContaining('/api/modules/install/perms') })]);
    expect(report.status).toBe('fail');
  });
});
