/**
 * The Display page (issue 42, display module) in headless Chromium against the binary, each
 * action checked through the API: every group's display listed with its defaults (as GET
 * /api/displays holds them) and opened in the form; an edit of sign lines and NPC settings
 * saved with a PUT carrying only the changed fields and read back; the preview's line for a
 * state rendered with the label the controller answers (GET /api/displays/{name}/state/{state})
 * and following what is typed; a bad value refused in the API's words at its field; Reset
 * bringing the defaults back; a change made through the API showing on the open page through
 * the live events, unsaved edits kept; a session holding only svc.dashboard.display.view
 * refused saving and resetting in words. With the module uninstalled and the controller
 * restarted, the link is gone and /display says the module does not run. 1280 and 390 px,
 * light and dark, nothing scrolling sideways.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { defaultSettings } from '../../src/modules/display/defaults';
import { ITEM_PATTERN, KEY_PATTERN, LORE_MAX_LINES, TEXT_MAX } from '../../src/modules/display/model';
import * as rules from '../../src/dashboard/app/pages/display/rules';
import { emptyDraft, patchOf, targetOf, withField, withMapKey, type Display as PageDisplay } from '../../src/dashboard/app/pages/display/model';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor, type TestController } from '../support/controller';
import { binaryController, bringOnline, grant, loginCode, testPlayer } from '../support/dashboard-login';
import { expectModulePageAbsent } from '../support/module-page';

const TOKEN = 'dashboard-display-token-0123456789abcdef';

interface Display {
  name: string;
  sign: { line1: string; line2: string; line3: string; line4Online: string; line4Offline: string };
  npc: {
    displayName: string;
    subtitle: string;
    subtitleOffline: string;
    floatingItem: string;
    statusItems: Record<string, string>;
    inventory: { title: string; size: number; itemName: string; itemLore: string[] };
  };
  states: Record<string, string>;
}
interface DisplayList {
  displays: Display[];
  total: number;
}

let browser: Browser;
let url: string;
let dir: string;
let child: Awaited<ReturnType<typeof startBinaryController>>['child'];
let c: TestController;
const cleanups: (() => void)[] = [];

async function json<T>(path: string, init: { method?: string; json?: unknown; token?: string | null } = {}, status = 200): Promise<T> {
  const response = await c.api(path, init);
  const text = await response.text();
  if (response.status !== status) throw new Error(`${init.method ?? 'GET'} ${path} answered ${response.status} (wanted ${status}): ${text}`);
  return JSON.parse(text) as T;
}
const displayOf = (name: string) => json<Display>(`/api/displays/${name}`);
const defaults = (name: string): Display => ({ name, ...defaultSettings(name) });
/** Text as players read it: the colour and style codes taken out. */
const strip = (text: string) => text.replace(/[&§][0-9a-fk-or]/gi, '');
/** The API's lower-case message as the page writes it: a capital, and a full stop. */
const sentence = (text: string) => {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

beforeAll(async () => {
  const svc = await svcBinary();
  const made = tempDir('svc-browser-display-');
  dir = made.dir;
  cleanups.push(made.remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  const started = await startBinaryController(svc, dir, TOKEN, cleanups);
  ({ url, child } = started);
  c = binaryController(url, TOKEN);
  for (const name of ['Lobby', 'BedWars']) await json('/api/groups', { method: 'POST', json: fakePaperGroup(name, { minInstances: 0 }) }, 201);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Pages' });
const groupsList = (page: Page) => page.getByRole('region', { name: 'Groups', exact: true });
const card = (page: Page, name: string) => groupsList(page).locator(`li[data-group="${name}"]`);
const form = (page: Page, name: string) => page.getByRole('form', { name: `Display of ${name}` });
/** The editor around the form: its heading, the reset button, the notes on changes made elsewhere. */
const editor = (page: Page, name: string) => page.getByRole('region', { name: `Display of ${name}` });
const preview = (page: Page) => page.getByRole('region', { name: 'Preview', exact: true });
const previewLine = (page: Page, line: number) => preview(page).getByRole('group', { name: 'Sign preview' }).locator(`[data-line="${line}"]`);
const inputValue = (page: Page, id: string) => page.evaluate<string>(`document.getElementById(${JSON.stringify(id)}).value`);
/**
 * Waits until `read` gives `value` (the page updates by itself), read again every 20 ms: the
 * page's CSP forbids the string evaluation waitForFunction polls with.
 */
const becomes = (read: () => Promise<string | null>, value: string, what: string) => waitFor(async () => (await read()) === value, { timeoutMs: 10_000, intervalMs: 20, what });

/** Signs in with the API token and opens the page through the navigation; with `group`, its display through its card. */
async function openDisplay(page: Page, group?: string): Promise<void> {
  await signIn(page, url, TOKEN);
  await nav(page).getByRole('link', { name: 'Display', exact: true }).click();
  await page.getByRole('heading', { name: 'Display', level: 1 }).waitFor();
  await card(page, 'Lobby').waitFor();
  if (group === undefined) return;
  await groupsList(page).getByRole('link', { name: `Edit the display of ${group}` }).click();
  await form(page, group).waitFor();
  await previewLine(page, 1).waitFor();
}

describe('the page’s rules', () => {
  test('are the module’s: text length, lore lines, item and key patterns; a refusal’s field is found', () => {
    expect([rules.TEXT_MAX, rules.LORE_MAX_LINES, rules.ITEM_PATTERN, rules.KEY_PATTERN]).toEqual([TEXT_MAX, LORE_MAX_LINES, ITEM_PATTERN, KEY_PATTERN]);
    expect(targetOf('body field "npc.inventory.itemLore[2]" must be one line (no line breaks)')).toEqual({ kind: 'field', path: 'npc.inventory.itemLore' });
    expect(targetOf('body "npc.inventory.size" must be a number, got "27"')).toEqual({ kind: 'field', path: 'npc.inventory.size' });
    expect(targetOf('body field "npc.statusItems.ONLINE" must be an item name')).toEqual({ kind: 'map', map: 'statusItems', key: 'ONLINE' });
    expect(targetOf('body field "states" has the key "bad key"')).toEqual({ kind: 'map', map: 'states', key: null });
    // A field typed back to what the controller holds is no change; a removed key is a null.
    const held = defaults('Lobby') as unknown as PageDisplay;
    let draft = withField(held, emptyDraft(), 'sign.line1', 'x');
    draft = withField(held, draft, 'sign.line1', held.sign.line1);
    draft = withMapKey(held, draft, 'statusItems', 'FULL', null);
    expect(patchOf(draft)).toEqual({ npc: { statusItems: { FULL: null } } });
  });
});

describe('listing', () => {
  test('every group’s display is listed with its defaults, and opens in the form as the API holds it', async () => {
    const held = await json<DisplayList>('/api/displays');
    expect(held.displays.map((d) => d.name)).toEqual(['BedWars', 'Lobby']);
    expect(held.displays).toEqual([defaults('BedWars'), defaults('Lobby')]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openDisplay(page);
    for (const d of held.displays) {
      const shown = card(page, d.name);
      await shown.getByRole('heading', { name: d.name }).waitFor();
      const sign = shown.getByRole('group', { name: `Sign of ${d.name}` });
      expect(await sign.locator('.dp-mc-line').allTextContents()).toEqual([d.sign.line1, d.sign.line2, d.sign.line3, d.sign.line4Online].map(strip));
      const facts = await shown.locator('dd').allTextContents();
      expect(facts).toEqual([strip(d.npc.displayName), d.npc.floatingItem, `${d.npc.inventory.size} slots`, String(Object.keys(d.states).length)]);
    }
    // The colour codes are drawn: line 1's `&1&l` is dark blue and bold.
    expect(await card(page, 'Lobby').locator('[data-line="1"] span').first().getAttribute('class')).toBe('dp-c1 dp-sl');

    await groupsList(page).getByRole('link', { name: 'Edit the display of Lobby' }).click();
    const lobby = held.displays.find((d) => d.name === 'Lobby')!;
    const f = form(page, 'Lobby');
    await f.waitFor();
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Display of Lobby');
    expect(new URL(page.url()).search).toBe('?group=Lobby');
    expect(await f.getByLabel('Sign line 1', { exact: true }).inputValue()).toBe(lobby.sign.line1);
    expect(await f.getByLabel('Sign line 4 while none is', { exact: true }).inputValue()).toBe(lobby.sign.line4Offline);
    expect(await f.getByLabel('NPC name', { exact: true }).inputValue()).toBe(lobby.npc.displayName);
    expect(await f.getByLabel('Floating item', { exact: true }).inputValue()).toBe('NETHER_STAR');
    expect(await f.getByLabel('Server picker size', { exact: true }).inputValue()).toBe('27');
    expect(await f.getByLabel('Server item lore', { exact: true }).inputValue()).toBe(lobby.npc.inventory.itemLore.join('\n'));
    for (const [state, label] of Object.entries(lobby.states)) expect(await f.getByLabel(`Label for ${state}`, { exact: true }).inputValue()).toBe(label);
    for (const [label, item] of Object.entries(lobby.npc.statusItems)) expect(await f.getByLabel(`Item for ${label}`, { exact: true }).inputValue()).toBe(item);
    await f.getByText('No unsaved change.').waitFor();
    // The preview fills the placeholders: the group's name, its limit (GET /api/groups), no server running.
    const group = await json<{ maxPlayers: number }>('/api/groups/Lobby');
    expect(await previewLine(page, 1).textContent()).toBe('★ Lobby ★');
    expect(await previewLine(page, 2).textContent()).toBe(`0/${group.maxPlayers} online`);
    await page.screenshot({ path: join(screenshotDir(), 'display-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('editing', () => {
  test('sign lines and NPC settings saved with a PUT of only the changed fields, and read back through the API', async () => {
    const before = await displayOf('Lobby');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    const sent: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT' && new URL(request.url()).pathname === '/api/displays/Lobby') sent.push(JSON.parse(request.postData() ?? 'null'));
    });
    await openDisplay(page, 'Lobby');
    const f = form(page, 'Lobby');
    await f.getByLabel('Sign line 1', { exact: true }).fill('&6&lLobby ★');
    await f.getByLabel('Sign line 4 while none is', { exact: true }).fill('&cClosed for now');
    // Typed and typed back: no change, so not sent.
    await f.getByLabel('Sign line 2', { exact: true }).fill('something else');
    await f.getByLabel('Sign line 2', { exact: true }).fill(before.sign.line2);
    await f.getByLabel('NPC line while joinable', { exact: true }).fill('&f{players} playing');
    await f.getByLabel('Floating item', { exact: true }).fill('BEACON');
    await f.getByLabel('Server picker size', { exact: true }).selectOption('54');
    await f.getByLabel('Server item lore', { exact: true }).fill('&7Online: &f{players}\n\n&eClick to join');
    await f.getByLabel('Item for FULL', { exact: true }).fill('BARRIER');
    await f.getByRole('button', { name: 'Remove the item for STOPPING' }).click();
    await f.getByLabel('New state', { exact: true }).fill('LOBBY_VOTE');
    await f.getByLabel('Its label', { exact: true }).fill('&dVoting');
    await f.getByRole('button', { name: 'Add the label' }).click();
    await f.getByLabel('Label for LOBBY_VOTE', { exact: true }).waitFor();
    // Unsaved changes are marked at their fields and counted.
    expect(await f.getByText('Unsaved; the controller holds “NETHER_STAR”.').count()).toBe(1);
    await f.getByText(/^9 unsaved changes: Sign line 1, Sign line 4 while none is, NPC line while joinable, Floating item, Server picker size, Server item lore, state label LOBBY_VOTE, status item FULL, status item STOPPING removed\.$/).waitFor();
    // The preview follows: 54 slots, the new floating item.
    expect(await preview(page).locator('.dp-slot').count()).toBe(54);
    await preview(page).getByText('Floating item: BEACON').waitFor();

    await f.getByRole('button', { name: 'Save changes' }).click();
    await f.getByRole('status').filter({ hasText: /^Saved 9 changes to the display of Lobby \(/ }).waitFor();
    const patch = {
      sign: { line1: '&6&lLobby ★', line4Offline: '&cClosed for now' },
      npc: {
        subtitle: '&f{players} playing',
        floatingItem: 'BEACON',
        inventory: { size: 54, itemLore: ['&7Online: &f{players}', '', '&eClick to join'] },
        statusItems: { FULL: 'BARRIER', STOPPING: null },
      },
      states: { LOBBY_VOTE: '&dVoting' },
    };
    expect(sent).toEqual([patch]);
    const { STOPPING: _gone, ...items } = before.npc.statusItems;
    const expected: Display = {
      ...before,
      sign: { ...before.sign, ...patch.sign },
      npc: { ...before.npc, subtitle: patch.npc.subtitle, floatingItem: 'BEACON', inventory: { ...before.npc.inventory, ...patch.npc.inventory }, statusItems: { ...items, FULL: 'BARRIER' } },
      states: { ...before.states, LOBBY_VOTE: '&dVoting' },
    };
    expect(await displayOf('Lobby')).toEqual(expected);
    // The form holds what was saved, with nothing left unsaved; the list shows it too.
    await f.getByText('No unsaved change.').waitFor();
    expect(await f.getByLabel('Floating item', { exact: true }).inputValue()).toBe('BEACON');
    expect(await f.getByRole('button', { name: 'Remove the item for STOPPING' }).count()).toBe(0);
    await card(page, 'Lobby').getByText('BEACON').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a bad value is refused in the API’s words at its field, and nothing changes', async () => {
    const before = await displayOf('Lobby');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^400 PUT \/api\/displays\/Lobby$|status of 400 \(Bad Request\)/);
    await openDisplay(page, 'Lobby');
    const f = form(page, 'Lobby');
    const item = f.getByLabel('Floating item', { exact: true });
    await item.fill('diamond sword!');
    // Read as bad while typed; sent anyway when asked: the controller decides.
    await f.getByText(/^Floating item must be an item name matching .+: the controller will refuse it\.$/).waitFor();
    await f.getByRole('button', { name: 'Save changes' }).click();
    const alert = f.getByRole('alert');
    await alert.waitFor();
    // The same PUT through the API: its words.
    const refused = await c.api('/api/displays/Lobby', { method: 'PUT', json: { npc: { floatingItem: 'diamond sword!' } } });
    expect(refused.status).toBe(400);
    const { error, message } = (await refused.json()) as { error: string; message: string };
    expect(error).toBe('VALIDATION_FAILED');
    expect(message).toContain('"npc.floatingItem"');
    expect(await alert.textContent()).toBe(`Not saved (VALIDATION_FAILED): ${sentence(message)} Nothing was changed; the refused field is marked.`);
    expect(await page.locator('#dp-f-npc-floatingItem-refusal').textContent()).toBe(`The controller refused this: ${sentence(message)}`);
    expect(await item.getAttribute('aria-invalid')).toBe('true');
    expect(await item.getAttribute('aria-describedby')).toContain('dp-f-npc-floatingItem-refusal');
    await becomes(() => page.evaluate<string | null>('document.activeElement?.id ?? null'), 'dp-f-npc-floatingItem', 'the keyboard on the refused field');
    expect(await displayOf('Lobby')).toEqual(before);
    // Put right, the refusal goes.
    await item.fill('DIAMOND_SWORD');
    expect(await page.locator('#dp-f-npc-floatingItem-refusal').count()).toBe(0);
    expect(await item.getAttribute('aria-invalid')).toBeNull();
    await f.getByRole('button', { name: 'Discard changes' }).click();
    expect(await item.inputValue()).toBe(before.npc.floatingItem);
    // A key a map may not have: refused at the map, in the API's words.
    await f.getByLabel('New state', { exact: true }).fill('bad key');
    await f.getByText('The state must match ^[A-Za-z0-9_-]{1,64}$ (letters, digits, _ and -, no spaces): the controller will refuse it.').waitFor();
    await f.getByLabel('Its label', { exact: true }).fill('Broken');
    await f.getByRole('button', { name: 'Add the label' }).click();
    await f.getByRole('button', { name: 'Save changes' }).click();
    const keyRefused = await c.api('/api/displays/Lobby', { method: 'PUT', json: { states: { 'bad key': 'Broken' } } });
    const keyMessage = ((await keyRefused.json()) as { message: string }).message;
    expect(keyMessage).toContain('"states"');
    await page.locator('#dp-states-refusal').waitFor();
    expect(await page.locator('#dp-states-refusal').textContent()).toBe(`The controller refused this: ${sentence(keyMessage)}`);
    expect(await f.getByRole('group', { name: 'State labels' }).getAttribute('aria-describedby')).toContain('dp-states-refusal');
    expect(await displayOf('Lobby')).toEqual(before);
    await f.getByRole('button', { name: 'Remove the label for bad key' }).click();
    expect(await page.locator('#dp-states-refusal').count()).toBe(0);
    await f.getByText('No unsaved change.').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('the preview', () => {
  test('shows the line for a state with the label the controller answers, and follows what is typed', async () => {
    await json('/api/displays/BedWars', { method: 'PUT', json: { states: { INGAME: '&6In a match' } } });
    const served = await json<{ raw: string; label: string }>('/api/displays/BedWars/state/INGAME');
    expect(served).toEqual({ raw: 'INGAME', label: '&6In a match' });
    const group = await json<{ maxPlayers: number }>('/api/groups/BedWars');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openDisplay(page, 'BedWars');
    const f = form(page, 'BedWars');
    const p = preview(page);
    await p.getByLabel('State', { exact: true }).selectOption('INGAME');
    const source = p.locator('.dp-label-source');
    await source.getByText('the controller’s label (GET /api/displays/BedWars/state/INGAME)', { exact: false }).waitFor();
    expect(await source.getAttribute('data-source')).toBe('controller');
    // Line 3 is `&7{state}`: the label, drawn in its own colour (gold).
    expect(await previewLine(page, 3).textContent()).toBe(strip(served.label));
    expect(await previewLine(page, 3).locator('span.dp-c6').textContent()).toBe('In a match');
    // INGAME is a game's state on a running server: line 4 is the joinable one.
    expect(await previewLine(page, 4).textContent()).toBe(strip(defaults('BedWars').sign.line4Online));

    await f.getByLabel('Sign line 3', { exact: true }).fill('&e{state} &7({players}/{max_players}) {servers}x');
    await becomes(() => previewLine(page, 3).textContent(), `In a match (0/${group.maxPlayers}) 0x`, 'the preview following line 3');
    await p.getByLabel('Players', { exact: true }).fill('7');
    await p.getByLabel('Servers', { exact: true }).fill('2');
    expect(await previewLine(page, 3).textContent()).toBe(`In a match (7/${group.maxPlayers}) 2x`);
    // The NPC name's frames, each filled.
    await f.getByLabel('NPC name', { exact: true }).fill('&b{name}||&e{name}!');
    const holo = p.getByRole('group', { name: 'NPC preview' });
    expect(await holo.locator('.dp-holo-name').allTextContents()).toEqual(['BedWars', 'BedWars!']);
    // An unsaved label: the page's own reading, and the controller's answer for the saved one beside it.
    await f.getByLabel('Label for INGAME', { exact: true }).fill('&aPlaying');
    expect(await previewLine(page, 3).textContent()).toBe(`Playing (7/${group.maxPlayers}) 2x`);
    expect(await source.getAttribute('data-source')).toBe('page');
    expect(await source.textContent()).toContain('the controller answers “In a match” for the saved ones');
    // Stopped: not joinable, line 4 says so, the NPC shows its offline line.
    await p.getByLabel('State', { exact: true }).selectOption('STOPPED');
    const stopped = await json<{ label: string }>('/api/displays/BedWars/state/STOPPED');
    expect(await previewLine(page, 3).textContent()).toBe(`${strip(stopped.label)} (7/${group.maxPlayers}) 2x`);
    expect(await previewLine(page, 4).textContent()).toBe(strip(defaults('BedWars').sign.line4Offline));
    expect(await p.getByLabel('A server of the group can be joined').isChecked()).toBe(false);
    expect(await holo.locator('.dp-holo-sub').textContent()).toBe(strip(defaults('BedWars').npc.subtitleOffline));
    await page.screenshot({ path: join(screenshotDir(), 'display-preview-1280.png'), fullPage: true });
    // Nothing of this was saved.
    expect((await displayOf('BedWars')).sign.line3).toBe(defaults('BedWars').sign.line3);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('the keyboard', () => {
  test('opens a group from its card, reaches the first line and saves it with Enter', async () => {
    const before = await displayOf('BedWars');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openDisplay(page);
    await groupsList(page).getByRole('link', { name: 'Edit the display of BedWars' }).focus();
    await page.keyboard.press('Enter');
    await form(page, 'BedWars').waitFor();
    await becomes(() => page.evaluate<string | null>('document.activeElement?.textContent ?? null'), 'Display of BedWars', 'the keyboard on the editor’s heading');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Reset to defaults…');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('dp-f-sign-line1');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('&aBy keys');
    await page.keyboard.press('Enter');
    await form(page, 'BedWars').getByRole('status').filter({ hasText: 'Saved one change to the display of BedWars (Sign line 1)' }).waitFor();
    expect(await displayOf('BedWars')).toEqual({ ...before, sign: { ...before.sign, line1: '&aBy keys' } });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('reset', () => {
  test('asks first, then brings the defaults back', async () => {
    expect(await displayOf('Lobby')).not.toEqual(defaults('Lobby'));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openDisplay(page, 'Lobby');
    const f = form(page, 'Lobby');
    await f.getByLabel('Sign line 2', { exact: true }).fill('unsaved too');
    // Another group opened and this one again: the unsaved change is still there.
    await groupsList(page).getByRole('link', { name: 'Edit the display of BedWars' }).click();
    await form(page, 'BedWars').waitFor();
    await groupsList(page).getByRole('link', { name: 'Edit the display of Lobby' }).click();
    await f.getByText('One unsaved change: Sign line 2.').waitFor();
    expect(await f.getByLabel('Sign line 2', { exact: true }).inputValue()).toBe('unsaved too');
    await editor(page, 'Lobby').getByRole('button', { name: 'Reset to defaults…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset the display of Lobby?' });
    await dialog.waitFor();
    await dialog.getByText('Your 1 unsaved change goes too.', { exact: false }).waitFor();
    // The keyboard starts on Cancel; Escape closes without a reset.
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await displayOf('Lobby')).not.toEqual(defaults('Lobby'));
    await editor(page, 'Lobby').getByRole('button', { name: 'Reset to defaults…' }).click();
    await dialog.getByRole('button', { name: 'Reset Lobby' }).click();
    await f.getByRole('status').filter({ hasText: 'The display of Lobby is the default again.' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(await displayOf('Lobby')).toEqual(defaults('Lobby'));
    expect(await f.getByLabel('Floating item', { exact: true }).inputValue()).toBe('NETHER_STAR');
    expect(await f.getByLabel('Sign line 2', { exact: true }).inputValue()).toBe(defaults('Lobby').sign.line2);
    expect(await f.getByLabel('Label for LOBBY_VOTE', { exact: true }).count()).toBe(0);
    await f.getByText('No unsaved change.').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('live', () => {
  test('a change made through the API shows on the open page by the module’s event; an unsaved edit is kept', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openDisplay(page, 'Lobby');
    const f = form(page, 'Lobby');
    await f.getByLabel('Sign line 1', { exact: true }).fill('&eMine, unsaved');
    await json('/api/displays/Lobby', { method: 'PUT', json: { sign: { line2: '&aFrom the API' }, npc: { floatingItem: 'CAKE' } } });
    await becomes(() => inputValue(page, 'dp-f-sign-line2'), '&aFrom the API', 'line 2 from the event');
    expect(await inputValue(page, 'dp-f-npc-floatingItem')).toBe('CAKE');
    expect(await inputValue(page, 'dp-f-sign-line1')).toBe('&eMine, unsaved');
    await page.getByRole('status').filter({ hasText: 'was changed on the controller while you edit' }).filter({ hasText: 'your 1 unsaved change is kept' }).waitFor();
    expect(await previewLine(page, 2).textContent()).toBe('From the API');
    expect(await previewLine(page, 1).textContent()).toBe('Mine, unsaved');
    await card(page, 'Lobby').getByText('CAKE').waitFor();
    // A change that makes the edit what the controller holds: no change is left to save.
    await json('/api/displays/Lobby', { method: 'PUT', json: { sign: { line1: '&eMine, unsaved' } } });
    await f.getByText('No unsaved change.').waitFor();
    expect(await f.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('a dashboard session', () => {
  test('holding only svc.dashboard.display.view sees every display and is refused changes in words', async () => {
    const viewer = testPlayer(0x201, 'Viewer');
    await bringOnline(c, viewer);
    await grant(c, viewer, ['svc.dashboard.display.view']);
    const before = await displayOf('Lobby');
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    problems.expect(/^403 (PUT \/api\/displays\/Lobby|POST \/api\/displays\/Lobby\/reset)$|status of 403 \(Forbidden\)/);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, viewer));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await nav(page).getByRole('link', { name: 'Display', exact: true }).click();
    await page
      .getByRole('note')
      .filter({ hasText: 'This session holds svc.dashboard.display.view but not svc.dashboard.display.manage: you can look at every display' })
      .waitFor();
    await groupsList(page).getByRole('link', { name: 'Edit the display of Lobby' }).click();
    const f = form(page, 'Lobby');
    await f.getByLabel('Sign line 1', { exact: true }).fill('&cTaken over');
    expect(await previewLine(page, 1).textContent()).toBe('Taken over');
    await f.getByRole('button', { name: 'Save changes' }).click();
    const alert = f.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'Not saved: this session may look at displays but not change them; changes need the permission svc.dashboard.display.manage. The controller said: “Missing permission: svc.dashboard.display.manage (this dashboard session does not hold it)”.',
    );
    await editor(page, 'Lobby').getByRole('button', { name: 'Reset to defaults…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset the display of Lobby?' });
    await dialog.getByRole('button', { name: 'Reset Lobby' }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(
      'Not reset: this session may look at displays but not change them; changes need the permission svc.dashboard.display.manage. The controller said: “Missing permission: svc.dashboard.display.manage (this dashboard session does not hold it)”.',
    );
    expect(await dialog.getByRole('button', { name: 'Reset Lobby' }).count()).toBe(0);
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'display-session-refused-390.png') });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await displayOf('Lobby')).toEqual(before);
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'display-session-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('layout', () => {
  for (const [width, height] of [
    [1280, 900],
    [390, 844],
  ] as const) {
    test(`${width} px, light and dark: nothing scrolls sideways`, async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      const problems = new PageProblems(page);
      await openDisplay(page, 'BedWars');
      const f = form(page, 'BedWars');
      // Long unbroken text, an unsaved change, a removed key and a local problem: the hardest the form gets.
      await f.getByLabel('Sign line 1', { exact: true }).fill(`&a${'W'.repeat(60)}`);
      await f.getByLabel('Floating item', { exact: true }).fill('not an item');
      await f.getByRole('button', { name: 'Remove the label for CRASHED' }).click();
      await preview(page).getByLabel('Servers', { exact: true }).fill('40');
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(screenshotDir(), `display-${width}-${scheme}.png`), fullPage: true });
      }
      // As the screen shows it with the form in view (the preview and the save bar stay in place).
      await f.getByLabel('Floating item', { exact: true }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(screenshotDir(), `display-${width}-form-dark.png`) });
      if (width === 390) {
        await editor(page, 'BedWars').getByRole('button', { name: 'Reset to defaults…' }).click();
        await page.getByRole('dialog').waitFor();
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(screenshotDir(), 'display-reset-390-dark.png') });
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      }
      expect(problems.problems).toEqual([]);
      await page.close();
    }, 60_000);
  }
});

describe('uninstalled', () => {
  test('after POST /api/modules/uninstall/display and a restart, the link is gone and /display says the module does not run', async () => {
    await json('/api/modules/uninstall/display', { method: 'POST' });
    child.kill('SIGTERM');
    await child.exited;
    const svc = await svcBinary();
    ({ url, child } = await startBinaryController(svc, dir, TOKEN, cleanups));
    c = binaryController(url, TOKEN);
    expect((await c.api('/api/displays')).status).toBe(404);
    await expectModulePageAbsent(browser, url, TOKEN, { link: 'Display', path: '/display', module: 'display', screenshot: 'display-uninstalled-1280.png' });
  }, 60_000);
});
