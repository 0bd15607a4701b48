/**
 * deliver-magic-link, the login page's "send me a link" (issue 36, items 6 and 7): public
 * delivery has a budget of its own per player and never spends the in-game codes and links,
 * so strangers naming an admin cannot lock the admin out; the answer goes out before anything
 * about the name is looked at, so neither it nor its timing tells who is online.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { authModule } from '../../../src/modules/auth';
import { PUBLIC_DELIVERIES_PER_PLAYER } from '../../../src/modules/auth/delivery';
import type { ModuleContext } from '../../../src/modules/module';
import { waitFor, type TestController } from '../../support/controller';
import { bringOnline, loginCode, testPlayer } from '../../support/dashboard-login';
import { consume, eventsOf, expectError, expectJson, startAuth, type AuthTest } from './harness';

let t: AuthTest;
let c: TestController;
let address = 0;
/** Each call from an address of its own (trust_forwarded_for): the route's 10-a-minute per address stays out of the way. */
const deliver = (name: string, ip = `198.51.100.${++address}`) => c.api('/api/auth/deliver-magic-link', { method: 'POST', token: null, json: { name }, headers: { 'x-forwarded-for': ip } });
const deliveriesTo = (uuid: string) => eventsOf(t, 'AUTH_MAGIC_LINK_DELIVERY').filter((e) => e.data.uuid === uuid);

beforeAll(async () => {
  t = await startAuth({ apiToml: 'trust_forwarded_for = true', toml: '[dashboard]\npublic_url = "https://dash.example.test"' });
  c = t.c;
});
afterAll(() => t.stop());

/** Sends a delivery for a sentinel player and waits for it: every delivery asked for before it has been worked off. */
async function drain(): Promise<void> {
  const sentinel = testPlayer(900 + address, `Sentinel${address}`);
  await bringOnline(c, sentinel);
  expect((await deliver(sentinel.name)).status).toBe(202);
  await waitFor(() => deliveriesTo(sentinel.uuid).length > 0, { what: 'the sentinel delivery' });
}

describe('its own budget', () => {
  test('six anonymous deliveries naming an online admin leave the admin every in-game code and link', async () => {
    const admin = testPlayer(1, 'Admin');
    await bringOnline(c, admin);
    for (let i = 0; i < 6; i++) expect((await deliver('Admin')).status).toBe(202);
    await drain();
    // Before, these six spent the admin's 5-a-minute in-game quota: code and link login were locked for a minute.
    const codes: string[] = [];
    for (let i = 0; i < 4; i++) codes.push(await loginCode(c, admin));
    const link = await c.api('/api/auth/request-magic-link', { method: 'POST', token: c.service, json: admin });
    expect(link.status).toBe(202);
    expect((await expectJson(await consume(c, codes[0]!))).user.uuid).toBe(admin.uuid);
    // The in-game quota is as it always was: the sixth is refused.
    await expectError(await c.api('/api/auth/generate-code', { method: 'POST', token: c.service, json: admin }), 429, 'AUTH_RATE_LIMITED');
  });

  test(`public links are capped at ${PUBLIC_DELIVERIES_PER_PLAYER} a minute per player; beyond, the very same 202 and no link`, async () => {
    const bea = testPlayer(2, 'Bea');
    await bringOnline(c, bea);
    const answers: string[] = [];
    for (let i = 0; i < PUBLIC_DELIVERIES_PER_PLAYER + 2; i++) {
      const response = await deliver('bea');
      expect(response.status).toBe(202);
      answers.push(await response.text());
    }
    await drain();
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]!)).toEqual({ status: 'delivered', ttlSeconds: 60 });
    expect(deliveriesTo(bea.uuid)).toHaveLength(PUBLIC_DELIVERIES_PER_PLAYER);
    // Bea's in-game login is untouched by all of it.
    expect(await loginCode(c, bea)).toMatch(/^\d{6}$/);
  });

  test('an unknown or offline name gets the very same answer and no event', async () => {
    const known = testPlayer(3, 'Cleo');
    await bringOnline(c, known);
    const before = eventsOf(t, 'AUTH_MAGIC_LINK_DELIVERY').length;
    const online = await deliver('Cleo');
    const unknown = await deliver('NobodyHere');
    expect([online.status, unknown.status]).toEqual([202, 202]);
    expect(await online.text()).toBe(await unknown.text());
    await drain();
    const after = eventsOf(t, 'AUTH_MAGIC_LINK_DELIVERY').slice(before).map((e) => e.data.name);
    expect(after.filter((name) => !name!.startsWith('Sentinel'))).toEqual(['Cleo']);
  });
});

describe('off the response path', () => {
  test('the handler answers before it looks the name up: nothing is minted or published until after it returned', async () => {
    const dora = testPlayer(4, 'Dora');
    await bringOnline(c, dora);
    const route = authModule.routes!({ kernel: c.controller.kernel } as ModuleContext).find((r) => r.path === '/api/auth/deliver-magic-link')!;
    const db = c.controller.kernel.db;
    const minted = () => db.query<{ n: number }, [string]>('SELECT count(*) AS n FROM auth_challenges WHERE uuid = ?').get(dora.uuid)!.n;
    const set = { headers: {} as Record<string, string | number>, status: undefined as number | string | undefined };
    const answer = await route.handler({
      params: undefined,
      query: undefined,
      body: { name: 'Dora' },
      principal: null,
      actor: 'system',
      ip: '192.0.2.44',
      set,
      request: new Request('http://localhost/api/auth/deliver-magic-link', { method: 'POST' }),
    });
    // The answer is complete, and the work for the name has not started.
    expect(answer).toEqual({ status: 'delivered', ttlSeconds: 60 });
    expect(set.status).toBe(202);
    expect(minted()).toBe(0);
    expect(deliveriesTo(dora.uuid)).toHaveLength(0);
    // It follows right after.
    await waitFor(() => deliveriesTo(dora.uuid).length === 1, { what: 'Dora’s delivery' });
    expect(minted()).toBe(1);
  });

  test('a delivery that fails after the answer is logged, not thrown at anyone', async () => {
    const eve = testPlayer(5, 'Eve');
    await bringOnline(c, eve);
    const kernel = c.controller.kernel;
    // The challenge table is gone for a moment: minting fails after the 202 was sent.
    kernel.db.run('ALTER TABLE auth_challenges RENAME TO auth_challenges_away');
    try {
      const logged = c.logs.length;
      expect((await deliver('Eve')).status).toBe(202);
      await waitFor(() => c.logs.slice(logged).some((line) => line.includes('could not be delivered')), { what: 'the logged failure' });
    } finally {
      kernel.db.run('ALTER TABLE auth_challenges_away RENAME TO auth_challenges');
    }
    expect(deliveriesTo(eve.uuid)).toHaveLength(0);
  });
});
