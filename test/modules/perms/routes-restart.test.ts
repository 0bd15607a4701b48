/**
 * What the API wrote survives a restart on the same directory: the reference lost PUT
 * /groups/{name}'s permissions, parents and meta (they lived only in memory), and its expiry
 * turned temporary rows into permanent ones.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { permsModule } from '../../../src/modules/perms';
import { readJson, startController, type TestController } from '../../support/controller';

const ALICE = '11111111-1111-4111-8111-111111111111';
const FUTURE = new Date(Date.now() + 86_400_000).toISOString();

let first: TestController;
let second: TestController | null = null;

beforeAll(async () => {
  first = await startController({ modules: [permsModule] });
});
afterAll(async () => {
  await second?.stop();
  rmSync(first.dir, { recursive: true, force: true });
});

const call = async (c: TestController, path: string, method = 'GET', json?: unknown) => {
  const res = await c.api(`/api/permissions${path}`, { method, json, token: c.service });
  expect(res.status).toBeLessThan(300);
  return readJson(res);
};

describe('a restart on the same directory', () => {
  test('keeps what PUT /groups wrote (permissions, parents, meta), scopes and expiries, players and tracks; bootstraps nothing again', async () => {
    await call(first, '/groups', 'POST', { name: 'VIP' });
    await call(first, '/groups', 'POST', { name: 'Staff' });
    const put = await call(first, '/groups/Staff', 'PUT', {
      prefix: '&c[Staff] ',
      priority: 20,
      weight: 7,
      permissions: ['staff.kick', '-staff.ban', 'essentials.*'],
      parents: ['VIP', 'Default'],
      meta: { color: 'red', 'tab.order': '1' },
    });
    await call(first, '/groups/VIP/permissions', 'POST', { permission: 'vip.fly', server: 'Lobby-1', expiresAt: FUTURE });
    await call(first, `/players/${ALICE}`, 'PUT', { name: 'Alice' });
    await call(first, `/players/${ALICE}/groups`, 'POST', { group: 'Staff', world: 'nether', expiresAt: FUTURE });
    await call(first, `/players/${ALICE}/meta`, 'PUT', { key: 'nick', value: 'Al' });
    await call(first, '/tracks', 'POST', { name: 'ladder', groups: ['VIP', 'Staff'] });

    const groups = await call(first, '/groups');
    const alice = await call(first, `/players/${ALICE}?world=nether`);
    const tracks = await call(first, '/tracks');
    expect(put.group.parents).toEqual(['VIP', 'Default']);
    expect(alice.groups).toEqual(['Default', 'Staff']);
    await first.stopKeepingDir();

    second = await startController({ dir: first.dir, modules: [permsModule] });
    expect(await call(second, '/groups')).toEqual(groups);
    expect(groups.groups.map((g: { name: string }) => g.name)).toEqual(['Default', 'Admin', 'VIP', 'Staff']);
    const staff = await call(second, '/groups/staff');
    expect(staff).toEqual(put.group);
    expect([...staff.permissions].sort()).toEqual(['-staff.ban', 'essentials.*', 'staff.kick']);
    expect(staff.meta).toEqual({ color: 'red', 'tab.order': '1' });
    expect((await call(second, '/groups/VIP')).scopedPermissions).toEqual([{ permission: 'vip.fly', server: 'Lobby-1', expiresAt: FUTURE }]);
    expect(await call(second, `/players/${ALICE}?world=nether`)).toEqual(alice);
    // Still scoped after the restart: elsewhere the membership does not apply.
    expect((await call(second, `/players/${ALICE}?world=overworld`)).displayGroup).toBe('Default');
    expect(await call(second, '/tracks')).toEqual(tracks);
    expect(await call(second, `/check/${ALICE}/essentials.home?world=nether`)).toEqual({ uuid: ALICE, permission: 'essentials.home', allowed: true });
    const bootstraps = await call(second, '/audit?action=group.create&actor=system');
    expect(bootstraps.total).toBe(2);
  });
});
