/**
 * The `display` console command on a controller with the display module: the same displays
 * the routes serve, a reset that publishes DISPLAY_UPDATED with the console's actor, and the
 * usage and not-found answers, locally and through POST /api/commands/display/execute.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { OutputLine } from '../../../src/core/commands/command';
import type { SvcEvent } from '../../../src/events/catalogue';
import { displayModule } from '../../../src/modules/display';
import { fakePaperGroup } from '../../fixtures/fake-paper-group';
import { readJson, startController, type TestController } from '../../support/controller';

let c: TestController;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({ modules: [displayModule] });
  c.controller.kernel.bus.subscribe((e) => void events.push(e));
  for (const name of ['Lobby', 'BedWars']) expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup(name, { minInstances: 0 }) })).status).toBe(201);
});
afterAll(() => c.stop());

/** Runs the command as the local console does. */
async function onConsole(args: string[]): Promise<{ success: boolean; message?: string; lines: OutputLine[] }> {
  const lines: OutputLine[] = [];
  const command = c.controller.kernel.commands.find('display')!;
  const result = await c.controller.kernel.commands.run(command, { args, actor: 'console', caller: 'test' }, (l) => lines.push(l));
  return { ...result, lines };
}

const texts = (lines: OutputLine[]) => lines.map((l) => `${l.kind} ${l.text}`);

describe('display command', () => {
  test('list (also with no subcommand): every non-proxy group with its NPC name and item', async () => {
    const listed = await onConsole(['list']);
    expect(listed.success).toBe(true);
    expect(texts(listed.lines)).toEqual(['header 2 display(s)', 'item BedWars: &b&l{name}, item RED_BED, 9 state label(s)', 'item Lobby: &b&l{name}, item NETHER_STAR, 9 state label(s)']);
    expect(texts((await onConsole([])).lines)).toEqual(texts(listed.lines));
  });

  test('show prints what GET /api/displays/{name} serves, in any case', async () => {
    const served = await readJson(await c.api('/api/displays/Lobby'));
    const shown = await onConsole(['show', 'lobby']);
    expect(shown.success).toBe(true);
    expect(shown.lines[0]).toEqual({ kind: 'header', text: 'display of Lobby' });
    expect(shown.lines[1]!.text).toBe(`sign: ${served.sign.line1} | ${served.sign.line2} | ${served.sign.line3} | ${served.sign.line4Online} (offline: ${served.sign.line4Offline})`);
    expect(shown.lines[2]!.text).toContain(`item ${served.npc.floatingItem}`);
    expect(shown.lines[4]!.text).toContain('READY=ONLINE');
  });

  test('label: a state with a label, and one without', async () => {
    expect(texts((await onConsole(['label', 'Lobby', 'READY'])).lines)).toEqual(['info READY is shown as ONLINE']);
    expect(texts((await onConsole(['label', 'Lobby', 'PARTY'])).lines)).toEqual(['info PARTY has no label of its own: shown as it is']);
  });

  test('reset rewrites the defaults and publishes DISPLAY_UPDATED with the console as actor', async () => {
    expect((await c.api('/api/displays/BedWars', { method: 'PUT', json: { npc: { floatingItem: 'BOW' } } })).status).toBe(200);
    events.length = 0;
    const reset = await onConsole(['reset', 'bedwars']);
    expect(reset.success).toBe(true);
    expect(reset.lines[0]).toEqual({ kind: 'success', text: 'the display of BedWars is the default again' });
    expect((await readJson(await c.api('/api/displays/BedWars'))).npc.floatingItem).toBe('RED_BED');
    expect(events.filter((e) => e.type === 'DISPLAY_UPDATED').map((e) => [e.data, e.actor])).toEqual([[{ group: 'BedWars', moduleId: 'display' }, 'console']]);
  });

  test('an unknown group or subcommand fails with the reason', async () => {
    const unknown = await onConsole(['show', 'Nope']);
    expect(unknown.success).toBe(false);
    expect(unknown.message).toContain('Nope');
    const sub = await onConsole(['paint', 'Lobby']);
    expect(sub.success).toBe(false);
    expect(sub.message).toBe('unknown subcommand "paint"; usage: display [list | show <group> | label <group> <state> | reset <group>]');
    expect((await onConsole(['show'])).message).toBe('missing arguments; usage: display show <group>');
  });

  test('through POST /api/commands/display/execute: the same lines; without a credential 401', async () => {
    const res = await c.api('/api/commands/display/execute', { method: 'POST', json: { args: ['label', 'Lobby', 'STOPPED'] } });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await readJson(res))).toContain('STOPPED is shown as OFFLINE');
    expect((await c.api('/api/commands/display/execute', { method: 'POST', json: { args: ['list'] }, token: null })).status).toBe(401);
  });
});
