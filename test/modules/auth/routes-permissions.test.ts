/**
 * A session's permissions follow the permissions module live: a node granted or taken away
 * (through the player's groups, a group's nodes, a track step, a deleted group) applies to the
 * very next request of a session that already exists, and /api/auth/me shows it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { waitFor, type TestController } from '../../support/controller';
import { loginAs, testPlayer, type Player } from '../../support/dashboard-login';
import { expectError, expectJson, getAs, meOf, startAuth, type AuthTest } from './harness';

const NODE = 'svc.dashboard.services.view';

let t: AuthTest;
let c: TestController;
beforeAll(async () => {
  t = await startAuth();
  c = t.c;
});
afterAll(() => t.stop());

/** A change through the permissions API with the master token; must succeed. */
async function perms(method: string, path: string, json?: unknown): Promise<void> {
  const response = await c.api(`/api/permissions${path}`, { method, json });
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
}

async function expectServices(token: string, allowed: boolean): Promise<void> {
  const response = await getAs(c, '/api/services', token);
  if (allowed) expect(response.status).toBe(200);
  else await expectError(response, 403, 'FORBIDDEN', `Missing permission: ${NODE}`);
}

async function startWithout(player: Player): Promise<string> {
  const token = await loginAs(c, player);
  await expectServices(token, false);
  expect((await meOf(c, token)).permissions).not.toContain(NODE);
  return token;
}

describe('permission changes reach existing sessions', () => {
  test('joining and leaving a group that holds the node', async () => {
    const p = testPlayer(1, 'Alice');
    const bystander = await loginAs(c, testPlayer(2, 'Bob'));
    const token = await startWithout(p);
    await perms('POST', '/groups', { name: 'viewers' });
    await perms('POST', '/groups/viewers/permissions', { permission: NODE });

    await perms('POST', `/players/${p.uuid}/groups`, { group: 'viewers' });
    await expectServices(token, true);
    expect((await meOf(c, token)).permissions).toContain(NODE);
    await expectServices(bystander, false);

    await perms('DELETE', `/players/${p.uuid}/groups`, { group: 'viewers' });
    await expectServices(token, false);
    expect((await meOf(c, token)).permissions).not.toContain(NODE);
  });

  test('a group the player is in gaining and losing the node', async () => {
    const p = testPlayer(3, 'Carol');
    await perms('POST', '/groups', { name: 'staff' });
    await perms('POST', `/players/${p.uuid}/groups`, { group: 'staff' });
    const token = await startWithout(p);

    await perms('POST', '/groups/staff/permissions', { permission: NODE });
    await expectServices(token, true);
    expect((await meOf(c, token)).permissions).toContain(NODE);

    await perms('DELETE', '/groups/staff/permissions', { permission: NODE });
    await expectServices(token, false);
    expect((await meOf(c, token)).permissions).not.toContain(NODE);
  });

  test('promotion and demotion along a track', async () => {
    const p = testPlayer(4, 'Dave');
    await perms('POST', '/groups', { name: 'rank-low' });
    await perms('POST', '/groups', { name: 'rank-high' });
    await perms('POST', '/groups/rank-high/permissions', { permission: NODE });
    await perms('POST', '/tracks', { name: 'ranks', groups: ['rank-low', 'rank-high'] });
    await perms('POST', `/players/${p.uuid}/groups`, { group: 'rank-low' });
    const token = await startWithout(p);

    await perms('POST', `/tracks/ranks/promote/${p.uuid}`);
    await expectServices(token, true);
    await perms('POST', `/tracks/ranks/demote/${p.uuid}`);
    await expectServices(token, false);
  });

  test('deleting the group that granted the node', async () => {
    const p = testPlayer(5, 'Erin');
    await perms('POST', '/groups', { name: 'temporary' });
    await perms('POST', '/groups/temporary/permissions', { permission: NODE });
    const token = await loginAs(c, p);
    await perms('POST', `/players/${p.uuid}/groups`, { group: 'temporary' });
    await expectServices(token, true);
    await perms('DELETE', '/groups/temporary');
    await expectServices(token, false);
  });

  test('the admin node: every route and isAdmin, until it is taken away', async () => {
    const p = testPlayer(6, 'Frank');
    const token = await startWithout(p);
    await expectError(await getAs(c, '/api/doctor', token), 403, 'FORBIDDEN', 'svc.dashboard.admin');
    await perms('POST', '/groups', { name: 'admins' });
    await perms('POST', '/groups/admins/permissions', { permission: 'svc.dashboard.admin' });
    await perms('POST', `/players/${p.uuid}/groups`, { group: 'admins' });
    expect(await meOf(c, token)).toMatchObject({ isAdmin: true, permissions: ['svc.dashboard.admin'] });
    await expectServices(token, true);
    expect((await expectJson(await getAs(c, '/api/doctor', token))).sections.length).toBeGreaterThan(0);
    await perms('DELETE', `/players/${p.uuid}/groups`, { group: 'admins' });
    expect(await meOf(c, token)).toMatchObject({ isAdmin: false, permissions: [] });
    await expectServices(token, false);
  });

  test('a temporary membership that runs out takes the node away from the live session', async () => {
    const p = testPlayer(8, 'Hank');
    await perms('POST', '/groups', { name: 'shortlived' });
    await perms('POST', '/groups/shortlived/permissions', { permission: NODE });
    const token = await startWithout(p);
    await perms('POST', `/players/${p.uuid}/groups`, { group: 'shortlived', expiresAt: new Date(Date.now() + 1500).toISOString() });
    await expectServices(token, true);
    await waitFor(async () => (await getAs(c, '/api/services', token)).status === 403, { timeoutMs: 5000, intervalMs: 100, what: 'the expired membership to stop granting the node' });
    expect((await meOf(c, token)).permissions).not.toContain(NODE);
  });

  test('the wildcard * is admin', async () => {
    const p = testPlayer(9, 'Ivy');
    const token = await loginAs(c, p, ['*']);
    expect(await meOf(c, token)).toMatchObject({ isAdmin: true });
    await expectServices(token, true);
  });

  test('the session still cannot use the permissions API itself without the node', async () => {
    const token = await loginAs(c, testPlayer(7, 'Gina'), [NODE]);
    await expectError(await c.api('/api/permissions/groups', { method: 'POST', token, json: { name: 'sneaky' } }), 403, 'FORBIDDEN', 'Missing permission');
  });
});
