import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcEvent } from '../../../src/events/catalogue';
import { displayModule } from '../../../src/modules/display';
import { defaultSettings } from '../../../src/modules/display/defaults';
import { renderDisplayToml } from '../../../src/modules/display/file';
import { fakePaperGroup } from '../../fixtures/fake-paper-group';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { HOSTILE } from './hostile';

let c: TestController;
const events: SvcEvent[] = [];
const displayEvents = (): Record<string, string>[] => events.filter((e) => e.type === 'DISPLAY_UPDATED').map((e) => ({ ...e.data, actor: e.actor }));
const fileOf = (group: string) => join(c.dir, 'config/modules/display', `${group}.toml`);
const createGroup = async (json: Record<string, unknown>) => expect((await c.api('/api/groups', { method: 'POST', json })).status).toBe(201);
const PROXY = { name: 'Proxy', software: 'VELOCITY', version: '3.4.0', minInstances: 0 };

interface Finding {
  level: string;
  message: string;
  hint: string | null;
}
async function doctorDisplay(): Promise<Finding[]> {
  const report = await readJson(await c.api('/api/doctor'));
  return report.sections.find((s: { name: string }) => s.name === 'Display').findings;
}
const reload = async () => expect((await c.api('/api/reload', { method: 'POST' })).status).toBe(200);

beforeAll(async () => {
  c = await startController({ modules: [displayModule] });
  c.controller.kernel.bus.subscribe((e) => void events.push(e));
});
afterAll(() => c.stop());

describe('display files follow the groups', () => {
  test('creating a group writes its defaults file, which serves the default display', async () => {
    await createGroup(fakePaperGroup('Survival', { minInstances: 0 }));
    expect(readFileSync(fileOf('Survival'), 'utf8')).toBe(renderDisplayToml('Survival', defaultSettings('Survival')));
    const display = await readJson(await c.api('/api/displays/survival'));
    expect(display).toEqual({ name: 'Survival', ...defaultSettings('Survival') });
    expect(display.npc.floatingItem).toBe('DIAMOND_PICKAXE');
  });

  test('a proxy group gets no file and no display', async () => {
    await createGroup(PROXY);
    expect(existsSync(fileOf('Proxy'))).toBe(false);
    const list = await readJson(await c.api('/api/displays'));
    expect(list.displays.map((d: { name: string }) => d.name)).toEqual(['Survival']);
    for (const [path, method] of [['/api/displays/proxy', 'GET'], ['/api/displays/Proxy/reset', 'POST'], ['/api/displays/Proxy/state/READY', 'GET']] as const) {
      const res = await c.api(path, { method });
      expect(res.status).toBe(404);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('DISPLAY_CONFIG_NOT_FOUND');
      expect(body.message).toContain('proxy groups have no display');
    }
  });

  test('a group that becomes a proxy drops out but keeps its file; back again, it is served from that file', async () => {
    await createGroup(fakePaperGroup('Shapeshifter', { minInstances: 0 }));
    expect((await c.api('/api/displays/Shapeshifter', { method: 'PUT', json: { sign: { line3: 'kept' } } })).status).toBe(200);
    const toProxy = await c.api('/api/groups/Shapeshifter', { method: 'PUT', json: { software: 'VELOCITY', version: '3.4.0' } });
    expect(toProxy.status).toBe(200);
    expect((await c.api('/api/displays/Shapeshifter')).status).toBe(404);
    expect(existsSync(fileOf('Shapeshifter'))).toBe(true);
    expect((await c.api('/api/groups/Shapeshifter', { method: 'PUT', json: { software: 'CUSTOM', version: '1.21.1' } })).status).toBe(200);
    expect((await readJson(await c.api('/api/displays/Shapeshifter'))).sign.line3).toBe('kept');
  });

  test('deleting a group deletes its file', async () => {
    await createGroup(fakePaperGroup('Doomed', { minInstances: 0 }));
    expect(existsSync(fileOf('Doomed'))).toBe(true);
    expect((await c.api('/api/groups/Doomed', { method: 'DELETE' })).status).toBe(200);
    expect(existsSync(fileOf('Doomed'))).toBe(false);
    expect((await c.api('/api/displays/Doomed')).status).toBe(404);
  });

  test('a group updated while its file is missing gets the file again', async () => {
    rmSync(fileOf('Survival'));
    expect((await c.api('/api/groups/Survival', { method: 'PUT', json: { maxInstances: 2 } })).status).toBe(200);
    expect(readFileSync(fileOf('Survival'), 'utf8')).toBe(renderDisplayToml('Survival', defaultSettings('Survival')));
  });
});

describe('reload', () => {
  test('a file edited on disk is read again on POST /api/reload, with DISPLAY_UPDATED for that group only', async () => {
    const text = readFileSync(fileOf('Survival'), 'utf8').replace('line1 = "&1&l★ {name} ★"', 'line1 = "edited \\"by hand\\""');
    writeFileSync(fileOf('Survival'), text);
    events.length = 0;
    await reload();
    expect((await readJson(await c.api('/api/displays/Survival'))).sign.line1).toBe('edited "by hand"');
    expect(displayEvents()).toEqual([{ group: 'Survival', moduleId: 'display', actor: 'api:admin' }]);
    events.length = 0;
    await reload();
    expect(displayEvents()).toEqual([]);
  });

  test('a missing file is written again on reload; a group file added by hand gets its display', async () => {
    rmSync(fileOf('Survival'));
    writeFileSync(join(c.dir, 'config/groups', 'HandMade.toml'), readFileSync(join(c.dir, 'config/groups', 'Survival.toml'), 'utf8').replace('name = "Survival"', 'name = "HandMade"'));
    await reload();
    expect(existsSync(fileOf('Survival'))).toBe(true);
    expect(existsSync(fileOf('HandMade'))).toBe(true);
    expect((await readJson(await c.api('/api/displays/handmade'))).name).toBe('HandMade');
  });

  test('a broken file is served from the defaults, never overwritten, logged and reported by the doctor until a reset replaces it', async () => {
    expect((await c.api('/api/displays/Survival', { method: 'PUT', json: { sign: { line2: 'before' } } })).status).toBe(200);
    expect(await doctorDisplay()).toEqual([{ level: 'OK', message: expect.stringContaining('display configuration(s) loaded'), hint: null }]);
    const broken = '[display.sign]\nline1 = "unterminated\n';
    writeFileSync(fileOf('Survival'), broken);
    await reload();
    expect(await readJson(await c.api('/api/displays/Survival'))).toEqual({ name: 'Survival', ...defaultSettings('Survival') });
    expect(readFileSync(fileOf('Survival'), 'utf8')).toBe(broken);
    expect(c.logs.some((line) => line.includes('Survival.toml') && line.includes('not valid TOML') && line.includes('served from the defaults'))).toBe(true);
    const findings = await doctorDisplay();
    expect(findings).toHaveLength(1);
    expect(findings[0]!.level).toBe('WARN');
    expect(findings[0]!.message).toContain('config/modules/display/Survival.toml: not valid TOML');
    expect(findings[0]!.hint).toContain('POST /api/displays/Survival/reset');
    // Reading again (another reload, a group event) still leaves the file alone.
    await reload();
    expect((await c.api('/api/groups/Survival', { method: 'PUT', json: { maxInstances: 3 } })).status).toBe(200);
    expect(readFileSync(fileOf('Survival'), 'utf8')).toBe(broken);

    expect((await c.api('/api/displays/Survival/reset', { method: 'POST' })).status).toBe(200);
    expect(readFileSync(`${fileOf('Survival')}.broken`, 'utf8')).toBe(broken);
    expect(readFileSync(fileOf('Survival'), 'utf8')).toBe(renderDisplayToml('Survival', defaultSettings('Survival')));
    expect((await doctorDisplay())[0]!.level).toBe('OK');
  });

  test('a wrong type names the key and the expectation; a PUT on that group replaces the file, keeping a copy', async () => {
    const wrong = '[display.npc.inventory]\nsize = "27"\n';
    writeFileSync(fileOf('Survival'), wrong);
    await reload();
    const [finding] = await doctorDisplay();
    expect(finding).toMatchObject({ level: 'WARN', message: expect.stringContaining('display.npc.inventory.size must be an integer, got "27"') });
    expect(readFileSync(fileOf('Survival'), 'utf8')).toBe(wrong);
    const res = await c.api('/api/displays/Survival', { method: 'PUT', json: { npc: { inventory: { size: 36 } } } });
    expect(res.status).toBe(200);
    expect((await readJson(res)).npc.inventory.size).toBe(36);
    expect(readFileSync(`${fileOf('Survival')}.broken`, 'utf8')).toBe(wrong);
    expect((await doctorDisplay())[0]!.level).toBe('OK');
  });
});

describe('restart', () => {
  test('hostile text round-trips through the file; a broken file at start is served from defaults and reported', async () => {
    const first = await startController({ modules: [displayModule] });
    const dir = first.dir;
    let second: TestController | null = null;
    try {
      for (const name of ['Lobby', 'Broken']) expect((await first.api('/api/groups', { method: 'POST', json: fakePaperGroup(name, { minInstances: 0 }) })).status).toBe(201);
      const [a, b, c3, d, e, f, g, h, i] = HOSTILE;
      const body = {
        sign: { line1: a, line2: b, line3: c3, line4Online: d, line4Offline: e },
        npc: {
          displayName: g,
          subtitle: f,
          subtitleOffline: h,
          floatingItem: 'minecraft:totem_of_undying',
          statusItems: { ONLINE: null, 'CUSTOM-1': 'minecraft:red_wool' },
          inventory: { title: i, size: 9, itemName: a, itemLore: [...HOSTILE] },
        },
        states: { READY: g, LOBBY_VOTE: b, STOPPED: null },
      };
      const res = await first.api('/api/displays/Lobby', { method: 'PUT', json: body });
      expect(res.status).toBe(200);
      const saved = await readJson(res);
      expect(saved.sign).toEqual(body.sign);
      expect(saved.npc.inventory).toEqual(body.npc.inventory);
      await first.stopKeepingDir();

      writeFileSync(join(dir, 'config/modules/display/Broken.toml'), '[display\n');
      second = await startController({ dir, modules: [displayModule] });
      expect(await readJson(await second.api('/api/displays/lobby'))).toEqual(saved);
      expect(await readJson(await second.api('/api/displays/Broken'))).toEqual({ name: 'Broken', ...defaultSettings('Broken') });
      expect(readFileSync(join(dir, 'config/modules/display/Broken.toml'), 'utf8')).toBe('[display\n');
      const report = await readJson(await second.api('/api/doctor'));
      const findings: Finding[] = report.sections.find((s: { name: string }) => s.name === 'Display').findings;
      expect(findings.map((f) => f.level)).toEqual(['WARN']);
      expect(findings[0]!.message).toContain('Broken.toml');
    } finally {
      await second?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('init writes the file of a group that lost it while the controller was down', async () => {
    const first = await startController({ modules: [displayModule] });
    const dir = first.dir;
    let second: TestController | null = null;
    try {
      expect((await first.api('/api/groups', { method: 'POST', json: fakePaperGroup('Lobby', { minInstances: 0 }) })).status).toBe(201);
      await first.stopKeepingDir();
      const file = join(dir, 'config/modules/display/Lobby.toml');
      rmSync(file);
      second = await startController({ dir, modules: [displayModule] });
      expect(readFileSync(file, 'utf8')).toBe(renderDisplayToml('Lobby', defaultSettings('Lobby')));
      expect((await second.api('/api/displays/Lobby')).status).toBe(200);
    } finally {
      await second?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
