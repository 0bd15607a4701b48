/**
 * The in-game `dashboard` command as the proxy bridge runs it: POST
 * /api/commands/dashboard/execute with the master token and the player as `caller`. It mints
 * that player's code or link, lists and ends that player's sessions only, refuses a `caller`
 * from a dashboard session, and explains that login works only in game.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { TestController } from '../../support/controller';
import { bringOnline, loginAs, testPlayer, type Player } from '../../support/dashboard-login';
import { auditOf, consume, expectError, expectJson, getAs, readJson, startAuth, type AuthTest } from './harness';

const PUBLIC_URL = 'https://dash.example.test';

interface Line {
  type: string;
  text: string;
}

let t: AuthTest;
let c: TestController;
beforeAll(async () => {
  t = await startAuth({ toml: `[dashboard]\npublic_url = "${PUBLIC_URL}"` });
  c = t.c;
});
afterAll(() => t.stop());

const run = (args: string[], caller?: Player, token: string = c.master) =>
  c.api('/api/commands/dashboard/execute', { method: 'POST', token, json: caller ? { args, caller } : { args } });

async function lines(response: Response): Promise<Line[]> {
  const body = await expectJson(response);
  expect(body.success).toBe(true);
  return body.lines;
}

describe('dashboard login', () => {
  test('`login` tells the player a code that logs them in', async () => {
    const alice = testPlayer(1, 'Alice');
    await bringOnline(c, alice);
    const out = await lines(await run(['login'], alice));
    const text = out.map((l) => l.text).join('\n');
    const code = /login code: (\d{6})/.exec(text)?.[1];
    expect(code).toBeDefined();
    expect(text).toContain(`${PUBLIC_URL}/login`);
    const session = await expectJson(await consume(c, code!));
    expect(session.user).toMatchObject({ uuid: alice.uuid, name: 'Alice' });
  });

  test('`login link` answers a URL whose ?link= logs the player in', async () => {
    const bob = testPlayer(2, 'Bob');
    await bringOnline(c, bob);
    const out = await lines(await run(['login', 'link'], bob));
    const url = out.map((l) => l.text).find((text) => text.startsWith(`${PUBLIC_URL}/login?link=`));
    expect(url).toBeDefined();
    const token = new URL(url!).searchParams.get('link')!;
    const session = await expectJson(await c.api('/api/auth/consume-magic-link', { method: 'POST', token: null, json: { token } }));
    expect(session.user.uuid).toBe(bob.uuid);
    expect((await auditOf(c, 'DASHBOARD_LOGIN_SUCCEEDED')).at(-1)!.data).toMatchObject({ uuid: bob.uuid, method: 'magic_link' });
  });

  test('a caller is refused to dashboard sessions, even an admin one: 403, and nothing is minted', async () => {
    // Who else may name a caller (a proxy's own credential, the spec's shared service token,
    // which svc no longer hands to any service, and the operator) is the tenancy tests' subject.
    const carol = testPlayer(3, 'Carol');
    await bringOnline(c, carol);
    const session = await loginAs(c, testPlayer(4, 'Dave'), ['svc.dashboard.admin']);
    await expectError(await run(['login'], carol, session), 403, 'FORBIDDEN');
    // Nothing was minted for Carol.
    const minted = c.controller.kernel.db.query<{ n: number }, [string]>('SELECT count(*) AS n FROM auth_challenges WHERE uuid = ?').get(carol.uuid);
    expect(minted?.n).toBe(0);
  });

  test('without a caller, `dashboard login` fails with 422: it works in game only', async () => {
    const response = await run(['login']);
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body).toMatchObject({ success: false, error: 'COMMAND_EXECUTION_FAILED' });
    expect(body.message).toContain('in game only');
    expect((await run(['login', 'link'], undefined, c.service)).status).toBe(422);
  });

  test('extra words and unknown subcommands are usage errors (422 with the usage)', async () => {
    const ghost = testPlayer(5, 'Ghost');
    const out = await run(['login', 'now'], ghost);
    expect(out.status).toBe(422);
    expect((await readJson(out)).message).toContain('dashboard login [link]');
    expect((await run(['frobnicate'], ghost)).status).toBe(422);
  });
});

describe('dashboard sessions and logout-all', () => {
  test('with a caller they act on that player only', async () => {
    const erin = testPlayer(10, 'Erin');
    const frank = testPlayer(11, 'Frank');
    const erinTokens = [await loginAs(c, erin), await loginAs(c, erin)];
    const frankToken = await loginAs(c, frank);

    const listed = await lines(await run(['sessions'], erin));
    expect(listed[0]!.text).toBe('2 active dashboard session(s) of Erin');
    expect(listed.filter((l) => l.type === 'item')).toHaveLength(2);
    // In game a player cannot name someone else.
    expect((await run(['sessions', 'Frank'], erin)).status).toBe(422);

    const done = await lines(await run(['logout-all'], erin));
    expect(done.map((l) => l.text)).toContain('logged out 2 dashboard session(s) of Erin');
    for (const token of erinTokens) await expectError(await getAs(c, '/api/auth/me', token), 401, 'AUTH_SESSION_INVALID');
    expect((await getAs(c, '/api/auth/me', frankToken)).status).toBe(200);
    const revoked = (await auditOf(c, 'DASHBOARD_SESSION_REVOKED')).at(-1)!;
    expect(revoked.data).toMatchObject({ uuid: erin.uuid, scope: 'all', count: '2' });

    expect((await lines(await run(['sessions'], erin)))[0]!.text).toBe('0 active dashboard session(s) of Erin');
  });

  test('from the console (no caller) they name the player', async () => {
    const gina = testPlayer(12, 'Gina');
    const token = await loginAs(c, gina);
    const listed = await lines(await run(['sessions', 'gina'], undefined, c.service));
    expect(listed[0]!.text).toBe('1 active dashboard session(s) of Gina');
    expect(await lines(await run(['logout-all', gina.uuid]))).toContainEqual({ type: 'success', text: 'logged out 1 dashboard session(s) of Gina' });
    await expectError(await getAs(c, '/api/auth/me', token), 401, 'AUTH_SESSION_INVALID');
    expect((await run(['sessions'])).status).toBe(422);
  });
});
