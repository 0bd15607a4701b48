/**
 * `proxy update` on a real controller, through POST /api/commands/proxy/execute, against the
 * PaperMC fake: a proxy group and a dedicated proxy brought to the latest stable build, the
 * events in order on the bus, APPLIED in the audit log, GET /api/groups showing the version.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcEvent } from '../../../../src/events/catalogue';
import { fakePaperMc } from '../../../fixtures/upstream/papermc';
import { digest, fakeJar } from '../../../fixtures/upstream/serve';
import { readJson, startController, type TestController } from '../../../support/controller';

const OLD = fakeJar('velocity 3.3.0-SNAPSHOT build 400');
const NEW = fakeJar('velocity 3.4.0-SNAPSHOT build 500');
const papermc = fakePaperMc({
  velocity: { versions: { '3.0.0': ['3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT'] }, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar: NEW }], '3.3.0-SNAPSHOT': [{ id: 400, jar: OLD }] } },
});

let c: TestController;
const events: SvcEvent[] = [];
beforeAll(async () => {
  c = await startController({ software: { papermc_url: papermc.url }, toml: '[proxy]\nauto_update = false\nupdate_check = true\nupdate_interval_hours = 6\n' });
  c.controller.kernel.bus.subscribe((event) => events.push(event));
  const group = { name: 'Proxy', software: 'VELOCITY', version: '3.3.0-SNAPSHOT', minInstances: 0 };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  mkdirSync(join(c.dir, 'templates', 'Proxy'), { recursive: true });
  writeFileSync(join(c.dir, 'templates', 'Proxy', 'server.jar'), OLD);
  expect((await c.api('/api/dedicated', { method: 'POST', json: { name: 'Edge', port: 25590, software: 'VELOCITY', version: '3.3.0-SNAPSHOT' } })).status).toBe(201);
  writeFileSync(join(c.dir, 'dedicated', 'Edge', 'server.jar'), OLD);
}, 30_000);
afterAll(async () => {
  await c.stop();
  papermc.close();
});

async function run(args: string[], token?: string) {
  const response = await c.api('/api/commands/proxy/execute', { method: 'POST', json: { args }, token });
  return { status: response.status, body: await readJson(response) };
}

describe('proxy update', () => {
  test('brings every proxy to the latest stable build and says what it did', async () => {
    const { status, body } = await run(['update']);
    expect(status).toBe(200);
    expect(body.lines).toEqual([
      { type: 'header', text: 'proxy software: 2 checked' },
      { type: 'success', text: 'group Proxy: VELOCITY 3.3.0-SNAPSHOT → 3.4.0-SNAPSHOT applied; instances started from now on run it; running ones keep theirs until they restart' },
      { type: 'success', text: 'dedicated Edge: VELOCITY 3.3.0-SNAPSHOT → 3.4.0-SNAPSHOT applied; it runs the new jar from its next start' },
    ]);
    expect(digest('sha256', readFileSync(join(c.dir, 'templates', 'Proxy', 'server.jar')))).toBe(digest('sha256', NEW));
    expect(digest('sha256', readFileSync(join(c.dir, 'dedicated', 'Edge', 'server.jar')))).toBe(digest('sha256', NEW));
    expect(readFileSync(join(c.dir, 'config', 'groups', 'Proxy.toml'), 'utf8')).toContain('version = "3.4.0-SNAPSHOT"');
    expect((await readJson(await c.api('/api/groups/Proxy'))).version).toBe('3.4.0-SNAPSHOT');
    expect((await readJson(await c.api('/api/dedicated/Edge'))).version).toBe('3.4.0-SNAPSHOT');

    const updateEvents = events.filter((e) => e.type.startsWith('PROXY_UPDATE') || e.type === 'GROUP_UPDATED').map((e) => [e.type, e.data, e.actor]);
    expect(updateEvents).toEqual([
      ['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }, 'api:admin'],
      ['GROUP_UPDATED', { group: 'Proxy' }, 'api:admin'],
      ['PROXY_UPDATE_APPLIED', { oldVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }, 'api:admin'],
      ['PROXY_UPDATE_AVAILABLE', { currentVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }, 'api:admin'],
      ['PROXY_UPDATE_APPLIED', { oldVersion: '3.3.0-SNAPSHOT', newVersion: '3.4.0-SNAPSHOT' }, 'api:admin'],
    ]);
    const audit = await readJson(await c.api('/api/audit?action=PROXY_UPDATE_APPLIED'));
    expect(audit.entries).toHaveLength(2);
    expect(audit.entries[0]).toMatchObject({ actor: 'api:admin', action: 'PROXY_UPDATE_APPLIED', details: 'oldVersion=3.3.0-SNAPSHOT, newVersion=3.4.0-SNAPSHOT' });
  });

  test('again: everything is current', async () => {
    const { status, body } = await run(['update']);
    expect(status).toBe(200);
    expect(body.lines.map((l: { type: string }) => l.type)).toEqual(['header', 'item', 'item']);
    expect(body.lines[1].text).toBe('group Proxy: VELOCITY 3.4.0-SNAPSHOT is current (latest stable: 3.4.0-SNAPSHOT build 500)');
  });

  test('admin only; a wrong subcommand is a usage error', async () => {
    expect((await run(['update'], c.service)).status).toBe(403);
    const wrong = await run(['upgrade']);
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toBe('unknown subcommand "upgrade"; usage: proxy update');
    expect((await run([])).body.message).toBe('missing subcommand; usage: proxy update');
  });
});
