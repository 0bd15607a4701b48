/**
 * Proxy sync and maintenance through the API: the bridge's connect read, every change in that
 * read and in its event on /api/events (a real socket), coalesced bursts, validation, and
 * both surviving a controller restart on the same directory.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller } from '../../src/controller';
import { expectErrorBody, MASTER_TOKEN, readJson, startController, waitFor, type TestController } from '../support/controller';

interface Frame {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}

let c: TestController;
let socket: WebSocket;
const frames: Frame[] = [];
const UUID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

beforeAll(async () => {
  c = await startController();
  expect((await c.api('/api/groups', { method: 'POST', json: { name: 'Lobby', type: 'LOBBY', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', minInstances: 0 } })).status).toBe(201);
  socket = new WebSocket(`${c.url.replace('http', 'ws')}/api/events?token=${c.service}`);
  socket.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data)) as Frame));
  await new Promise((resolve) => socket.addEventListener('open', resolve));
  await waitFor(() => c.controller.eventSubscribers === 1, { what: 'the events socket to subscribe' });
});
afterAll(async () => {
  socket.close();
  await c.stop();
});

/** The next frame of `type` after index `from`. */
async function frame(type: string, from: number): Promise<Frame> {
  return waitFor(() => frames.slice(from).find((f) => f.type === type), { what: `a ${type} frame` });
}
const config = async () => readJson(await c.api('/api/proxy/config', { token: c.service }));
const put = (path: string, json: unknown) => c.api(path, { method: 'PUT', json, token: c.service });

describe('proxy sync', () => {
  test('the connect read has tab list, MOTD, chat, player tabs and a maintenance snapshot with defaults', async () => {
    const body = await config();
    expect(Object.keys(body).sort()).toEqual(['chat', 'maintenance', 'motd', 'playerTabs', 'tablist', 'version']);
    expect(body.tablist).toMatchObject({ playerFormat: '{prefix}{player}{suffix}', updateInterval: 5 });
    expect(body.motd).toMatchObject({ maxPlayers: -1, playerCountOffset: 0 });
    expect(body.chat.enabled).toBe(true);
    expect(body.playerTabs).toEqual({});
    expect(body.maintenance).toMatchObject({ globalEnabled: false, whitelist: [], groups: {}, protocolText: 'Maintenance' });
  });

  test('each PUT is in the read and in its event with the spec keys', async () => {
    let from = frames.length;
    const tab = await put('/api/proxy/tablist', { header: 'Hello', updateInterval: 10 });
    expect(tab.status).toBe(200);
    expect(await readJson(tab)).toMatchObject({ success: true, header: 'Hello', updateInterval: 10, playerFormat: '{prefix}{player}{suffix}' });
    expect((await frame('TABLIST_UPDATED', from)).data).toEqual({ header: 'Hello', footer: (await config()).tablist.footer, playerFormat: '{prefix}{player}{suffix}', updateInterval: '10' });

    from = frames.length;
    expect((await put('/api/proxy/motd', { line1: 'Welcome', maxPlayers: 500, playerCountOffset: 3 })).status).toBe(200);
    expect((await frame('MOTD_UPDATED', from)).data).toMatchObject({ line1: 'Welcome', maxPlayers: '500', playerCountOffset: '3' });
    expect(Object.keys((await frame('MOTD_UPDATED', from)).data).sort()).toEqual(['line1', 'line2', 'maxPlayers', 'playerCountOffset']);

    from = frames.length;
    expect((await put('/api/proxy/chat', { enabled: false })).status).toBe(200);
    expect((await frame('CHAT_FORMAT_UPDATED', from)).data).toEqual({ format: (await config()).chat.format, enabled: 'false' });

    from = frames.length;
    expect((await put(`/api/proxy/tablist/players/${UUID.toUpperCase()}`, { format: '<red>Admin</red> {player}' })).status).toBe(200);
    expect((await frame('PLAYER_TAB_UPDATED', from)).data).toEqual({ uuid: UUID, format: '<red>Admin</red> {player}' });
    expect(await readJson(await c.api('/api/proxy/tablist/players'))).toEqual({ overrides: { [UUID]: '<red>Admin</red> {player}' }, total: 1 });

    const body = await config();
    expect(body.tablist).toMatchObject({ header: 'Hello', updateInterval: 10 });
    expect(body.motd).toEqual({ line1: 'Welcome', line2: body.motd.line2, maxPlayers: 500, playerCountOffset: 3 });
    expect(body.chat.enabled).toBe(false);
    expect(body.playerTabs).toEqual({ [UUID]: '<red>Admin</red> {player}' });
    expect(await readJson(await c.api('/api/proxy/motd'))).toEqual(body.motd);
  });

  test('a cleared tab name is an event without format; clearing again is a no-op', async () => {
    const other = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';
    expect((await put(`/api/proxy/tablist/players/${other}`, { format: 'x' })).status).toBe(200);
    // Past the coalescing window of that uuid, the clear is its own event.
    await waitFor(() => frames.some((f) => f.type === 'PLAYER_TAB_UPDATED' && f.data.uuid === other), { what: 'the set event' });
    const from = frames.length;
    const res = await c.api(`/api/proxy/tablist/players/${other}`, { method: 'DELETE' });
    expect(await readJson(res)).toMatchObject({ success: true });
    const cleared = await waitFor(() => frames.slice(from).find((f) => f.type === 'PLAYER_TAB_UPDATED' && f.data.uuid === other && !('format' in f.data)), { timeoutMs: 3000, what: 'the clear event' });
    expect(cleared.data).toEqual({ uuid: other });
    expect((await readJson(await c.api(`/api/proxy/tablist/players/${other}`, { method: 'DELETE' }))).message).toContain('had no tab list name');
  });

  test('a burst of changes reaches subscribers as few events ending on the final value', async () => {
    const from = frames.length;
    for (let i = 1; i <= 20; i++) expect((await put('/api/proxy/motd', { line2: `burst ${i}` })).status).toBe(200);
    const last = await waitFor(() => frames.slice(from).find((f) => f.type === 'MOTD_UPDATED' && f.data.line2 === 'burst 20'), { timeoutMs: 3000, what: 'the final value' });
    const burst = frames.slice(from).filter((f) => f.type === 'MOTD_UPDATED');
    expect(burst.length).toBeLessThanOrEqual(3);
    expect(burst[burst.length - 1]).toBe(last);
  });

  test('bad input is VALIDATION_FAILED (or NO_FIELDS_TO_UPDATE) and changes nothing', async () => {
    const before = await config();
    const cases: [string, string, unknown, string][] = [
      ['PUT', '/api/proxy/tablist', { updateInterval: 0 }, 'VALIDATION_FAILED'],
      ['PUT', '/api/proxy/tablist', { updateInterval: 3601 }, 'VALIDATION_FAILED'],
      ['PUT', '/api/proxy/tablist', { header: 'x'.repeat(4097) }, 'VALIDATION_FAILED'],
      ['PUT', '/api/proxy/tablist', { header: 'fine', footer: '\ud800' }, 'VALIDATION_FAILED'],
      ['PUT', '/api/proxy/motd', { maxPlayers: -2 }, 'VALIDATION_FAILED'],
      ['PUT', '/api/proxy/motd', { line1: 'y'.repeat(1025) }, 'VALIDATION_FAILED'],
      ['PUT', '/api/proxy/chat', { enabled: 'yes' }, 'VALIDATION_FAILED'],
      ['PUT', '/api/proxy/chat', {}, 'NO_FIELDS_TO_UPDATE'],
      ['PUT', '/api/proxy/tablist/players/not-a-uuid', { format: 'x' }, 'VALIDATION_FAILED'],
      ['PUT', `/api/proxy/tablist/players/${UUID}`, { format: 'two\nlines' }, 'VALIDATION_FAILED'],
      ['PUT', `/api/proxy/tablist/players/${UUID}`, { format: 'z'.repeat(257) }, 'VALIDATION_FAILED'],
      ['DELETE', '/api/proxy/tablist/players/0f1e2d3c', undefined, 'VALIDATION_FAILED'],
    ];
    for (const [method, path, json, error] of cases) {
      const res = await c.api(path, { method, json });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).error).toBe(error);
    }
    expect(await config()).toEqual(before);
    expect((await c.api('/api/proxy/config', { token: null })).status).toBe(401);
  });
});

describe('maintenance', () => {
  const post = (path: string, json: unknown) => c.api(path, { method: 'POST', json, token: c.service });

  test('global on and off: events only on a real change, reason omitted when blank', async () => {
    let from = frames.length;
    const on = await post('/api/maintenance/global', { enabled: true, reason: 'database upgrade' });
    expect(on.status).toBe(200);
    expect((await readJson(on)).global).toMatchObject({ enabled: true, reason: 'database upgrade' });
    expect((await frame('MAINTENANCE_ENABLED', from)).data).toEqual({ scope: 'global', reason: 'database upgrade' });
    expect((await config()).maintenance.globalEnabled).toBe(true);

    const again = await readJson(await post('/api/maintenance/global', { enabled: true, reason: 'still' }));
    expect(again.message).toContain('already');

    from = frames.length;
    expect((await post('/api/maintenance/global', { enabled: false })).status).toBe(200);
    expect((await frame('MAINTENANCE_DISABLED', from)).data).toEqual({ scope: 'global' });
    from = frames.length;
    expect((await post('/api/maintenance/global', { enabled: true, reason: '   ' })).status).toBe(200);
    expect((await frame('MAINTENANCE_ENABLED', from)).data).toEqual({ scope: 'global' });
    expect(frames.slice(from).filter((f) => f.type.startsWith('MAINTENANCE_'))).toHaveLength(1);
  });

  test('texts, group flags and kick messages; GROUP_NOT_FOUND for unknown groups', async () => {
    const texts = await put('/api/maintenance/global', { motdLine1: 'Down', kickMessage: 'Come back later' });
    expect((await readJson(texts)).global).toMatchObject({ motdLine1: 'Down', kickMessage: 'Come back later', protocolText: 'Maintenance' });
    expect((await put('/api/maintenance/global', {})).status).toBe(400);

    const from = frames.length;
    expect((await post('/api/maintenance/groups/Lobby', { enabled: true, reason: 'new map' })).status).toBe(200);
    expect((await frame('MAINTENANCE_ENABLED', from)).data).toEqual({ scope: 'Lobby', reason: 'new map' });
    expect((await put('/api/maintenance/groups/Lobby', { kickMessage: 'Lobby is closed' })).status).toBe(200);
    const status = await readJson(await c.api('/api/maintenance'));
    expect(status.groups).toEqual({ Lobby: { enabled: true, reason: 'new map', kickMessage: 'Lobby is closed' } });
    expect((await config()).maintenance.groups).toEqual({ Lobby: 'Lobby is closed' });

    for (const [method, json] of [
      ['POST', { enabled: true, reason: 'x' }],
      ['PUT', { kickMessage: 'x' }],
    ] as const) {
      const res = await c.api('/api/maintenance/groups/Nope', { method, json });
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('GROUP_NOT_FOUND');
    }
  });

  test('the whitelist takes names and uuids; adding or removing twice is fine', async () => {
    const add = (entry: string) => post('/api/maintenance/whitelist', { entry });
    expect((await readJson(await add('Notch'))).message).toContain('added');
    // Any case is the same player; the first spelling stays.
    expect((await readJson(await add('notch'))).message).toContain('already');
    expect((await readJson(await add('NOTCH'))).message).toContain('already');
    expect((await readJson(await add(UUID.replace(/-/g, '').toUpperCase()))).message).toContain('added');
    expect((await readJson(await add(UUID))).message).toContain('already');
    // Names as the operator typed them, in the status and in the bridge's snapshot; uuids dashed lower-case.
    expect((await readJson(await c.api('/api/maintenance'))).global.whitelist).toEqual(['Notch', UUID]);
    expect((await config()).maintenance.whitelist).toEqual(['Notch', UUID]);
    const { maintenance } = c.controller.kernel;
    for (const login of ['notch', 'Notch', 'NOTCH', UUID, UUID.toUpperCase()]) expect(maintenance.isWhitelisted(login)).toBe(true);
    expect(maintenance.isWhitelisted('jeb_')).toBe(false);

    const remove = (entry: string) => c.api('/api/maintenance/whitelist', { method: 'DELETE', json: { entry } });
    expect((await readJson(await remove('NOTCH'))).message).toContain('removed');
    expect((await readJson(await remove('notch'))).message).toContain('was not');
    expect((await config()).maintenance.whitelist).toEqual([UUID]);
    const bad = await add('two words');
    expect(bad.status).toBe(400);
    expect((await expectErrorBody(bad)).error).toBe('VALIDATION_FAILED');
  });
});

describe('after a restart', () => {
  test('proxy settings, tab names and maintenance are all still there', async () => {
    const before = await config();
    const maintenanceBefore = await readJson(await c.api('/api/maintenance'));
    expect(before.maintenance.globalEnabled).toBe(true);

    await c.controller.stop('restart test');
    const again = await Controller.start({ dir: c.dir, env: {}, stdout: { write: () => undefined }, exit: () => undefined });
    try {
      const api = (path: string) => fetch(again.url + path, { headers: { authorization: `Bearer ${MASTER_TOKEN}` } });
      const after = await readJson(await api('/api/proxy/config'));
      expect({ ...after, version: before.version }).toEqual(before);
      expect(await readJson(await api('/api/maintenance'))).toEqual(maintenanceBefore);
      // The files are plain TOML in snake_case an operator can read and edit.
      expect(readFileSync(join(c.dir, 'config', 'proxy.toml'), 'utf8')).toContain('update_interval = 10');
      expect(readFileSync(join(c.dir, 'config', 'maintenance.toml'), 'utf8')).toContain('[groups.Lobby]');
    } finally {
      await again.stop('test finished');
    }
  });

  test('a hand-broken file: defaults apply, the error names the file, and the bad file is kept aside on the next save', async () => {
    const file = join(c.dir, 'config', 'proxy.toml');
    writeFileSync(file, '[tablist]\nupdate_interval = "often"\n');
    const logs: string[] = [];
    const again = await Controller.start({ dir: c.dir, env: {}, stdout: { write: (l: string) => logs.push(l) }, exit: () => undefined });
    try {
      expect(logs.join('')).toContain('"tablist.update_interval" must be');
      const res = await fetch(`${again.url}/api/proxy/tablist`, { method: 'PUT', headers: { authorization: `Bearer ${MASTER_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ header: 'fresh' }) });
      expect(res.status).toBe(200);
      expect(readFileSync(`${file}.broken`, 'utf8')).toContain('"often"');
      expect(readFileSync(file, 'utf8')).toContain('header = "fresh"');
    } finally {
      await again.stop('test finished');
      rmSync(`${file}.broken`, { force: true });
    }
  });
});
