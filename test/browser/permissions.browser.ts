/**
 * The Permissions page (issue 42, perms module) in headless Chromium against the binary: a
 * group made with a parent, a weight and a permission (negated and scoped too); a track of
 * ordered groups, edited, and a player promoted and demoted on it; a membership with a short
 * expiry that shows on the page with its time and then goes by itself; the check/debug box
 * explaining an allowed and a denied node in the debug answer's words; a session holding only
 * svc.dashboard.perms.view that sees everything and whose changes are refused in words, and one
 * with svc.dashboard.perms.manage but no admin refused a change that hands out admin (the
 * reference's hole, REFERENCE-MODULES §11). Each change is read back through the API. With the
 * module uninstalled and the controller restarted, the link is gone and /permissions says the
 * module does not run. Screenshots at 1280 and 390 px, light and dark; nothing scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { deriveServiceToken } from '../../src/core/auth';
import { PLAYER_NAME_PATTERN, UUID_PATTERN } from '../../src/core/players/uuid';
import { PERMS_EVENTS } from '../../src/modules/perms/events';
import { checkMeta, META_KEY_PATTERN, META_VALUE_MAX, NUMBER_LIMIT, TEXT_MAX } from '../../src/modules/perms/groups-service';
import { GroupPatchBody, SEARCH_MAX } from '../../src/modules/perms/model';
import { GROUP_NAME_PATTERN, NODE_MAX, NODE_PATTERN, nodeProblem as serverNodeProblem } from '../../src/modules/perms/nodes';
import { parseDuration as serverParseDuration, parseScope, SCOPE_NAME_MAX, SCOPE_NAME_PATTERN } from '../../src/modules/perms/scope';
import { TRACK_MAX_GROUPS, TRACK_MIN_GROUPS } from '../../src/modules/perms/tracks-service';
import * as rules from '../../src/dashboard/app/pages/permissions/rules';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor, type TestController } from '../support/controller';
import { bringOnline, grant, loginCode, testPlayer } from '../support/dashboard-login';

const TOKEN = 'dashboard-permissions-token-0123456789abcdef';
const P = '/api/permissions';
let browser: Browser;
let url: string;
let dir: string;
let child: Awaited<ReturnType<typeof startBinaryController>>['child'];
let api: (path: string, init?: RequestInit) => Promise<Response>;
/** What the dashboard-login helpers need of a controller, over HTTP to the binary. */
let c: TestController;
const cleanups: (() => void)[] = [];
const json = async <T>(path: string) => (await (await api(path)).json()) as T;
const send = async (method: string, path: string, body?: unknown) => {
  const response = await api(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return response;
};

interface Group {
  name: string;
  default: boolean;
  weight: number;
  priority: number;
  permissions: string[];
  scopedPermissions: { permission: string; server?: string; world?: string; expiresAt?: string }[];
  parents: string[];
}
interface Player {
  uuid: string;
  name: string;
  groups: string[];
  memberships: { group: string; server?: string; world?: string; expiresAt?: string }[];
}
interface Debug {
  result: boolean;
  reason: string;
  chain: { source: string; permission: string; type: string; decisive: boolean }[];
}

const ALICE = testPlayer(0xa11ce, 'Alice');

async function startController(): Promise<void> {
  const started = await startBinaryController(await svcBinary(), dir, TOKEN, cleanups);
  ({ url, api } = started);
  child = started.child;
  const helperApi = (path: string, init: { method?: string; json?: unknown; token?: string | null } = {}) =>
    fetch(url + path, {
      method: init.method ?? 'GET',
      headers: { ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? TOKEN}` }), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  c = { api: helperApi, service: deriveServiceToken(TOKEN), master: TOKEN } as unknown as TestController;
}

beforeAll(async () => {
  const made = tempDir('svc-browser-permissions-');
  dir = made.dir;
  cleanups.push(made.remove);
  writeFileSync(join(dir, 'svc.toml'), '[network]\nname = "Perms Network"\n[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  await startController();
  // Alice joins through a proxy (the bridge's join-time registration): known by name, with the default group.
  await send('PUT', `${P}/players/${ALICE.uuid}`, { name: ALICE.name });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
const views = (page: Page, name: string) => page.getByRole('navigation', { name: 'Permissions views' }).getByRole('link', { name, exact: true }).click();
const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshotDir(), `${name}.png`), fullPage: true });

async function openPermissions(page: Page, token = TOKEN): Promise<void> {
  await signIn(page, url, token);
  await nav(page, 'Permissions');
  await page.getByRole('heading', { level: 1, name: 'Permissions' }).waitFor();
}

/**
 * Controls in the page's main part that have no accessible name: a form control without a
 * label (or aria-label/labelledby), a button or link without text or aria-label.
 */
const UNNAMED = `[...document.querySelectorAll('main button, main input, main select, main textarea, main a[href]')]
  .filter((e) => !(e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || (e.labels && e.labels.length > 0) || ((e.tagName === 'BUTTON' || e.tagName === 'A') && e.textContent.trim())))
  .map((e) => e.outerHTML.slice(0, 160))`;

/** A player's dashboard session, signed in the way the game gives one: the in-game code. */
async function signInAsPlayer(page: Page, player: { uuid: string; name: string }): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, player));
  await page.getByRole('button', { name: 'Sign in with the code' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}

describe('the page checks what the API checks', () => {
  test('its copies of the API’s limits and patterns equal their sources', () => {
    expect(rules.GROUP_NAME_PATTERN).toBe(GROUP_NAME_PATTERN);
    expect(rules.NODE_MAX).toBe(NODE_MAX);
    expect(rules.NODE_PATTERN).toBe(NODE_PATTERN);
    expect(rules.SCOPE_NAME_MAX).toBe(SCOPE_NAME_MAX);
    expect(rules.SCOPE_NAME_PATTERN).toBe(SCOPE_NAME_PATTERN);
    expect(rules.META_KEY_PATTERN).toBe(META_KEY_PATTERN);
    expect(rules.META_VALUE_MAX).toBe(META_VALUE_MAX);
    expect(rules.TEXT_MAX).toBe(TEXT_MAX);
    expect(rules.NUMBER_LIMIT).toBe(NUMBER_LIMIT);
    expect(rules.TRACK_MIN_GROUPS).toBe(TRACK_MIN_GROUPS);
    expect(rules.TRACK_MAX_GROUPS).toBe(TRACK_MAX_GROUPS);
    expect(rules.MAX_PARENTS).toBe((GroupPatchBody.properties.parents as unknown as { maxItems: number }).maxItems);
    expect(rules.SEARCH_MAX).toBe(SEARCH_MAX);
    expect(rules.UUID_PATTERN).toBe(UUID_PATTERN);
    expect(rules.PLAYER_NAME_PATTERN).toBe(PLAYER_NAME_PATTERN);
    expect([...rules.PERMS_EVENT_TYPES].sort() as string[]).toEqual(Object.keys(PERMS_EVENTS).sort());
  });

  test('a node, a scope, a meta entry and a duration are refused as the API refuses them, in its words', () => {
    const nodes = ['', 'a', 'a.b', 'A.B', '-a.b', '-', '--a', 'a..b', '.a', 'a.', 'a.*', '*', '-*', 'a*', 'a.*.b', 'a.b*', 'a b', 'a/b', 'é', 'x'.repeat(256), 'x'.repeat(257), 'svc.dashboard.*', '#a', 'a#b.c-d_e'];
    for (const node of nodes) expect([node, rules.nodeProblem(rules.normalizeNode(node))]).toEqual([node, serverNodeProblem(node.trim().toLowerCase())]);
    const apiScope = (field: 'server' | 'world', value: string) => {
      try {
        parseScope({ [field]: value }, Date.now());
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    for (const value of ['', ' ', 'Lobby-1', ' Lobby-1 ', 'a:b.c_d', 'a b', 'a/b', 'x'.repeat(128), 'x'.repeat(129)]) {
      for (const field of ['server', 'world'] as const) expect([field, value, rules.scopeNameProblem(field, value)]).toEqual([field, value, apiScope(field, value)]);
    }
    const apiMeta = (key: string, value: string) => {
      try {
        checkMeta(key, value);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    for (const [key, value] of [['rank', 'gold'], ['', 'x'], ['a b', 'x'], ['k', 'v'.repeat(1024)], ['k', 'v'.repeat(1025)], ['x'.repeat(129), '']]) {
      expect(rules.metaProblem(key!, value!)).toBe(apiMeta(key!, value!));
    }
    for (const text of ['30s', '10m', '12h', '7d', '2w', '1d12h', '0s', '', 'm', '5', '5x', '1.5h', '99999999999999999w', 'Lobby']) expect([text, rules.parseDuration(text)]).toEqual([text, serverParseDuration(text)]);
    const now = Date.now();
    expect(rules.expiryOf({ kind: 'after', after: '8s', at: '' }, now)).toEqual({ expiresAt: new Date(now + 8000).toISOString() });
    expect(rules.expiryOf({ kind: 'at', after: '', at: '2001-01-01T00:00:00' }, now)).toMatchObject({ problem: expect.stringContaining('is not in the future') });
  });
});

describe('Permissions', () => {
  test('a group made on the page with a parent, a weight and permissions (one negated and scoped); the API has them; a change elsewhere shows live', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPermissions(page);
    const groups = page.getByRole('table', { name: 'Permission groups' });
    await groups.getByRole('row').filter({ hasText: 'Admin' }).waitFor();
    await shot(page, 'permissions-groups-1280');

    // A new group: its name checked as the API checks it, then created.
    const form = page.getByRole('form', { name: 'New group' });
    await form.getByLabel('Name', { exact: true }).fill('bad name!');
    await form.getByRole('button', { name: 'Create group' }).click();
    await form.getByText('group name "bad name!" must be 1–64 of letters, digits, _ and -').waitFor();
    await form.getByLabel('Name', { exact: true }).fill('builder');
    await form.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('heading', { name: 'Group builder' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Created permission group builder' }).waitFor();

    // Its weight and its parent.
    const settings = page.getByRole('form', { name: 'Settings of builder' });
    await settings.getByLabel('Weight').fill('20');
    await settings.getByRole('checkbox', { name: 'Default', exact: true }).check();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByRole('status').filter({ hasText: 'Updated permission group builder: weight, parents.' }).waitFor();

    // A permission, a malformed one refused in the API's words before it is sent, and a negated one on one server.
    const add = page.getByRole('form', { name: 'Add a permission to builder' });
    await add.getByLabel('Node', { exact: true }).fill('worldedit..wand');
    await add.getByRole('button', { name: 'Add permission' }).click();
    await add.getByText('"worldedit..wand" has an empty segment (two dots, or a dot at an end)').waitFor();
    await add.getByLabel('Node', { exact: true }).fill('WorldEdit.*');
    await add.getByRole('button', { name: 'Add permission' }).click();
    await add.getByRole('status').filter({ hasText: 'Added worldedit.* to builder.' }).waitFor();
    await add.getByLabel('Node', { exact: true }).fill('worldedit.nuke');
    await add.getByRole('checkbox', { name: 'Deny (negated node)' }).check();
    expect(await add.getByLabel('Node', { exact: true }).inputValue()).toBe('-worldedit.nuke');
    await add.getByLabel('Server').fill('Lobby-1');
    await add.getByRole('button', { name: 'Add permission' }).click();
    await add.getByRole('status').filter({ hasText: 'Added -worldedit.nuke to builder on server Lobby-1.' }).waitFor();
    const nodes = page.getByRole('table', { name: 'Permissions of builder' });
    await nodes.getByRole('row').filter({ hasText: '-worldedit.nuke' }).filter({ hasText: 'server Lobby-1' }).filter({ hasText: 'denies' }).waitFor();

    const builder = await json<Group>(`${P}/groups/builder`);
    expect(builder).toMatchObject({ name: 'builder', weight: 20, parents: ['Default'], default: false });
    expect(builder.permissions.sort()).toEqual(['-worldedit.nuke', 'worldedit.*']);
    expect(builder.scopedPermissions).toEqual([{ permission: '-worldedit.nuke', server: 'Lobby-1' }]);
    await shot(page, 'permissions-group-editor-1280');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'permissions-group-editor-1280-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Meta, set and read back.
    const meta = page.getByRole('form', { name: 'Set meta of builder' });
    await meta.getByLabel('Key').fill('rank');
    await meta.getByLabel('Value').fill('Builder');
    await meta.getByRole('button', { name: 'Set meta' }).click();
    await page.getByRole('list', { name: 'Meta of builder' }).getByText('Builder').waitFor();
    expect((await json<{ meta: Record<string, string> }>(`${P}/groups/builder/meta`)).meta).toEqual({ rank: 'Builder' });

    // The list shows it; a group made elsewhere appears by the live events.
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'All groups' }).click();
    const row = groups.getByRole('row').filter({ has: page.getByRole('link', { name: 'builder', exact: true }) });
    expect(await row.textContent()).toContain('Default');
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('20');
    await send('POST', `${P}/groups`, { name: 'vip' });
    await groups.getByRole('link', { name: 'vip', exact: true }).waitFor({ timeout: 10_000 });

    // Delete asks first; the API no longer has it.
    await send('POST', `${P}/groups`, { name: 'temporary' });
    await groups.getByRole('button', { name: 'Delete temporary' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete temporary' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted permission group temporary.' }).waitFor();
    expect((await api(`${P}/groups/temporary`)).status).toBe(404);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('a track of ordered groups made and edited on the page (by keyboard); a player promoted and demoted on it', async () => {
    await send('POST', `${P}/groups`, { name: 'mod' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPermissions(page);
    await views(page, 'Tracks');
    const form = page.getByRole('form', { name: 'New track' });
    await form.getByLabel('Name', { exact: true }).fill('ranks');
    // One group is refused: a track needs two.
    await form.getByLabel('Group to add').selectOption('vip');
    await form.getByRole('button', { name: 'Add to the track' }).click();
    await form.getByRole('button', { name: 'Create track' }).click();
    await form.getByText('a track needs at least 2 groups, lowest rank first').waitFor();
    await form.getByLabel('Group to add').selectOption('builder');
    await form.getByRole('button', { name: 'Add to the track' }).click();
    // vip, builder → builder, vip, by keyboard.
    await form.getByRole('button', { name: 'Move builder up' }).focus();
    await page.keyboard.press('Enter');
    expect(await form.getByRole('list', { name: 'Groups on the track' }).getByRole('listitem').allInnerTexts()).toEqual([expect.stringContaining('builder'), expect.stringContaining('vip')]);
    await form.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Created track ranks: builder → vip.' }).waitFor();
    expect(await json<{ name: string; groups: string[] }>(`${P}/tracks/ranks`)).toEqual({ name: 'ranks', groups: ['builder', 'vip'] });

    // Edited: mod on top (the API has no edit route: deleted and made again, same name).
    await page.getByRole('table', { name: 'Tracks' }).getByRole('button', { name: 'Edit ranks' }).click();
    const edit = page.getByRole('form', { name: 'Edit the track ranks' });
    await edit.getByLabel('Group to add').selectOption('mod');
    await edit.getByRole('button', { name: 'Add to the track' }).click();
    await edit.getByRole('button', { name: 'Save track' }).click();
    await page.getByRole('status').filter({ hasText: 'Created track ranks: builder → vip → mod' }).waitFor();
    expect((await json<{ groups: string[] }>(`${P}/tracks/ranks`)).groups).toEqual(['builder', 'vip', 'mod']);
    await page.getByRole('list', { name: 'Groups of ranks' }).getByText('mod').waitFor();
    await shot(page, 'permissions-tracks-1280');

    // Alice, promoted onto the track, then up; demoted back; at the bottom nothing changes, said so.
    await page.goto(`${url}/permissions?view=players&player=${ALICE.uuid}`);
    await page.getByRole('heading', { name: 'Alice', exact: true }).waitFor();
    const steps = page.locator('section', { has: page.getByRole('heading', { name: 'Tracks' }) });
    await steps.getByRole('button', { name: 'Promote Alice on ranks' }).click();
    await steps.getByRole('status').filter({ hasText: 'Alice promoted on ranks: (none) → builder.' }).waitFor();
    await steps.getByRole('button', { name: 'Promote Alice on ranks' }).click();
    await steps.getByRole('status').filter({ hasText: 'Alice promoted on ranks: builder → vip.' }).waitFor();
    expect((await json<Player>(`${P}/players/${ALICE.uuid}`)).groups).toEqual(['Default', 'vip']);
    await steps.getByRole('button', { name: 'Demote Alice on ranks' }).click();
    await steps.getByRole('status').filter({ hasText: 'Alice demoted on ranks: vip → builder.' }).waitFor();
    await steps.getByRole('button', { name: 'Demote Alice on ranks' }).click();
    await steps.getByRole('status').filter({ hasText: 'Nothing changed: Alice is already at the bottom of ranks.' }).waitFor();
    expect((await json<Player>(`${P}/players/${ALICE.uuid}`)).groups).toEqual(['Default', 'builder']);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('a membership with a short expiry shows its time on the page, then expires: gone from the page and the API', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPermissions(page);
    await views(page, 'Players');
    const search = page.getByRole('search', { name: 'Find a player' });
    await search.getByLabel('Name or UUID').fill('ali');
    await search.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('table', { name: 'Known players' }).getByRole('link', { name: 'Alice' }).click();
    await page.getByRole('heading', { name: 'Alice', exact: true }).waitFor();

    const add = page.getByRole('form', { name: 'Add Alice to a group' });
    await add.getByLabel('Group').selectOption('mod');
    await add.getByLabel('Expires', { exact: true }).selectOption('after');
    await add.getByLabel('Expires after').fill('nine seconds');
    await add.getByRole('button', { name: 'Add to group' }).click();
    await add.getByText('"nine seconds" is not a duration').waitFor();
    await add.getByLabel('Expires after').fill('9s');
    const asked = Date.now();
    await add.getByRole('button', { name: 'Add to group' }).click();
    await add.getByRole('status').filter({ hasText: /^Added Alice to mod until \d{4}-\d\d-\d\dT[\d:.]+Z\.$/ }).waitFor();

    // Through the API: the membership with its expiry, about 9 s ahead.
    const held = (await json<Player>(`${P}/players/${ALICE.uuid}`)).memberships.find((m) => m.group === 'mod');
    expect(held?.expiresAt).toBeDefined();
    const expiresAt = Date.parse(held!.expiresAt!);
    expect(expiresAt - asked).toBeGreaterThan(7_000);
    expect(expiresAt - asked).toBeLessThan(12_000);
    // On the page: its time and how long is left.
    const memberships = page.getByRole('table', { name: 'Groups of Alice' });
    const row = memberships.getByRole('row').filter({ has: page.getByRole('link', { name: 'mod', exact: true }) });
    await row.locator(`time[datetime="${held!.expiresAt}"]`).waitFor();
    expect(await row.textContent()).toMatch(/\(in \d s\)/);
    await shot(page, 'permissions-player-1280');

    // Expired: the controller's sweep removes it, and the page follows (bounded wait, no fixed sleep).
    await row.waitFor({ state: 'detached', timeout: 30_000 });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect((await json<Player>(`${P}/players/${ALICE.uuid}`)).memberships.map((m) => m.group)).toEqual(['Default', 'builder']);
    await memberships.getByRole('row').filter({ hasText: 'builder' }).waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('the check box explains an allowed and a denied node in the debug answer’s words', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPermissions(page);
    await views(page, 'Check');
    const form = page.getByRole('form', { name: 'Check a permission' });

    // Allowed: builder's wildcard, the negation scoped to Lobby-1 not applying here.
    await form.getByLabel('Player').fill('alice');
    await form.getByLabel('Permission').fill('worldedit.nuke');
    await form.getByRole('button', { name: 'Check' }).click();
    const allowed = await json<Debug>(`${P}/debug/${ALICE.uuid}/worldedit.nuke`);
    expect(allowed.result).toBe(true);
    const answer = page.locator('section.perm-answer');
    await answer.getByRole('heading', { name: /^Allowed worldedit\.nuke for Alice$/ }).waitFor();
    await answer.getByText(allowed.reason, { exact: true }).waitFor();
    expect(allowed.reason).toBe("Granted by group 'builder' (weight 20) via wildcard match on 'worldedit.*'");
    const chain = answer.getByRole('table', { name: 'Rows that answer worldedit.nuke' });
    await chain.getByRole('row').filter({ hasText: 'worldedit.*' }).filter({ hasText: 'decides' }).waitFor();
    await chain.getByRole('row').filter({ hasText: '-worldedit.nuke' }).filter({ hasText: 'does not apply here' }).waitFor();
    expect(await chain.getByRole('row').count()).toBe(1 + allowed.chain.length);

    // Denied: on Lobby-1 the negation of the same weight wins.
    await form.getByLabel('On server').fill('Lobby-1');
    await form.getByRole('button', { name: 'Check' }).click();
    const denied = await json<Debug>(`${P}/debug/${ALICE.uuid}/worldedit.nuke?server=Lobby-1`);
    expect(denied.result).toBe(false);
    expect((await json<{ allowed: boolean }>(`${P}/check/${ALICE.uuid}/worldedit.nuke?server=Lobby-1`)).allowed).toBe(false);
    await answer.getByRole('heading', { name: /^Denied worldedit\.nuke for Alice on Lobby-1$/ }).waitFor();
    await answer.getByText(denied.reason, { exact: true }).waitFor();
    expect(denied.reason).toBe("Denied — negated by '-worldedit.nuke' in group 'builder' (weight 20)");
    await chain.getByRole('row').filter({ hasText: '-worldedit.nuke' }).filter({ hasText: 'decides' }).waitFor();
    await shot(page, 'permissions-check-1280');

    // A node nothing answers.
    await form.getByLabel('Permission').fill('essentials.fly');
    await form.getByRole('button', { name: 'Check' }).click();
    const none = await json<Debug>(`${P}/debug/${ALICE.uuid}/essentials.fly?server=Lobby-1`);
    await answer.getByText(none.reason, { exact: true }).waitFor();
    expect(none.reason).toBe("Denied — no permission node answers 'essentials.fly'");

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await shot(page, 'permissions-check-390');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'permissions-check-390-dark');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});

describe('sessions', () => {
  test('a session holding only svc.dashboard.perms.view sees the page; its changes are refused in words and nothing changes', async () => {
    const viewer = testPlayer(0x71e3, 'Viewer');
    await bringOnline(c, viewer);
    await grant(c, viewer, ['svc.dashboard.perms.view']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^403 (POST|DELETE) \/api\/permissions\//);
    problems.expect(/status of 403/); // Chromium's console line for each refused request
    await signInAsPlayer(page, viewer);
    const links = page.getByRole('navigation', { name: 'Pages' }).getByRole('link');
    await links.filter({ hasText: 'Permissions' }).waitFor();
    expect(await links.allTextContents()).toEqual(['Permissions', 'Profile']);
    await nav(page, 'Permissions');
    await page.getByRole('note').filter({ hasText: 'This session holds svc.dashboard.perms.view but not svc.dashboard.perms.manage' }).waitFor();
    await page.getByRole('table', { name: 'Permission groups' }).getByRole('link', { name: 'builder', exact: true }).waitFor();

    const refusal = 'Refused: this session may look at permissions but not change them; changes need svc.dashboard.perms.manage.';
    const form = page.getByRole('form', { name: 'New group' });
    await form.getByLabel('Name', { exact: true }).fill('sneaky');
    await form.getByRole('button', { name: 'Create group' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`${refusal} The controller said: “Missing permission: svc.dashboard.perms.manage (this dashboard session does not hold it)”.`);
    expect((await api(`${P}/groups/sneaky`)).status).toBe(404);

    // Taking a node from a group: refused the same way, the node stays.
    await page.getByRole('table', { name: 'Permission groups' }).getByRole('link', { name: 'builder', exact: true }).click();
    await page.getByRole('button', { name: 'Remove worldedit.* from builder' }).click();
    await page.getByRole('alert').filter({ hasText: refusal }).waitFor();
    expect((await json<Group>(`${P}/groups/builder`)).permissions).toContain('worldedit.*');
    await shot(page, 'permissions-view-only-1280');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('a session with svc.dashboard.perms.manage but not admin cannot hand out admin, itself included: refused in the API’s words', async () => {
    const manager = testPlayer(0x3a9a, 'Manager');
    await bringOnline(c, manager);
    await send('PUT', `${P}/players/${manager.uuid}`, { name: manager.name }); // the proxy's join-time registration
    await grant(c, manager, ['svc.dashboard.perms.view', 'svc.dashboard.perms.manage']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^403 POST \/api\/permissions\//);
    problems.expect(/status of 403/);
    await signInAsPlayer(page, manager);
    await page.goto(`${url}/permissions?view=groups&group=builder`);
    await page.getByRole('note').filter({ hasText: 'need an admin session' }).waitFor();
    const add = page.getByRole('form', { name: 'Add a permission to builder' });
    await add.getByLabel('Node', { exact: true }).fill('*');
    await add.getByRole('button', { name: 'Add permission' }).click();
    await add.getByRole('alert').filter({ hasText: 'Refused (FORBIDDEN): granting "*" (admin-equivalent) to group "builder" needs an admin token or an admin dashboard session.' }).waitFor();
    expect((await json<Group>(`${P}/groups/builder`)).permissions).not.toContain('*');

    // Putting themselves in Admin (which holds *): refused too.
    await page.goto(`${url}/permissions?view=players&player=${manager.uuid}`);
    await page.getByText('you', { exact: true }).waitFor();
    const join = page.getByRole('form', { name: 'Add Manager to a group' });
    await join.getByLabel('Group').selectOption('Admin');
    await join.getByRole('button', { name: 'Add to group' }).click();
    await join.getByRole('alert').filter({ hasText: /^Refused \(FORBIDDEN\): putting Manager \(.+\) in group "Admin" \(admin-equivalent: it holds "\*"\) needs an admin token or an admin dashboard session\.$/ }).waitFor();
    expect((await json<Player>(`${P}/players/${manager.uuid}`)).groups).not.toContain('Admin');
    // What it may do, it does: a plain node.
    await page.goto(`${url}/permissions?view=groups&group=vip`);
    const vip = page.getByRole('form', { name: 'Add a permission to vip' });
    await vip.getByLabel('Node', { exact: true }).fill('essentials.fly');
    await vip.getByRole('button', { name: 'Add permission' }).click();
    await vip.getByRole('status').filter({ hasText: 'Added essentials.fly to vip.' }).waitFor();
    expect((await json<Group>(`${P}/groups/vip`)).permissions).toEqual(['essentials.fly']);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});

describe('390 px and dark', () => {
  test('every view fits without horizontal scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await openPermissions(page);
    const fits = async (name: string) => {
      expect([name, (await pageScrollWidth(page)) <= 390]).toEqual([name, true]);
      expect([name, await page.evaluate<string[]>(UNNAMED)]).toEqual([name, []]);
      await shot(page, `permissions-${name}-390`);
    };
    await page.getByRole('table', { name: 'Permission groups' }).getByRole('link', { name: 'builder', exact: true }).waitFor();
    await fits('groups');
    await page.goto(`${url}/permissions?view=groups&group=builder`);
    await page.getByRole('table', { name: 'Permissions of builder' }).waitFor();
    await fits('group-editor');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'permissions-group-editor-390-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await views(page, 'Tracks');
    await page.getByRole('table', { name: 'Tracks' }).waitFor();
    await page.getByRole('button', { name: 'Edit ranks' }).click();
    await page.getByRole('list', { name: 'Groups on the track' }).waitFor();
    await fits('tracks');
    await page.goto(`${url}/permissions?view=players&player=${ALICE.uuid}`);
    await page.getByRole('table', { name: 'Groups of Alice' }).waitFor();
    await page.getByRole('form', { name: 'Add Alice to a group' }).getByLabel('Expires', { exact: true }).selectOption('at');
    await fits('player');
    await views(page, 'Check');
    const check = page.getByRole('form', { name: 'Check a permission' });
    await check.getByLabel('Player').fill(ALICE.uuid);
    await check.getByLabel('Permission').fill('worldedit.wand');
    await check.getByRole('button', { name: 'Check' }).click();
    await page.getByText("Granted by group 'builder' (weight 20) via wildcard match on 'worldedit.*'", { exact: true }).waitFor();
    await fits('check-allowed');
    await views(page, 'Changes');
    await page.getByRole('table', { name: 'Permission changes' }).waitFor();
    await fits('changes');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, 'permissions-changes-1280');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});

describe('without the module', () => {
  test('uninstalled and restarted: no Permissions link, and /permissions says the module does not run', async () => {
    expect((await send('POST', '/api/modules/uninstall/perms')).status).toBe(200);
    child.kill('SIGTERM');
    await child.exited;
    await startController();
    const modules = await json<{ modules: { id: string; loaded: boolean }[] }>('/api/modules');
    expect(modules.modules.find((m) => m.id === 'perms')?.loaded).toBe(false);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await signIn(page, url, TOKEN);
    const links = page.getByRole('navigation', { name: 'Pages' }).getByRole('link');
    await links.filter({ hasText: 'Settings' }).waitFor();
    expect(await links.allTextContents()).not.toContain('Permissions');
    await page.goto(`${url}/permissions`);
    await page.getByRole('alert').filter({ hasText: 'The perms module does not run on this controller' }).waitFor();
    expect(asked.filter((p) => p.startsWith(P))).toEqual([]);
    await shot(page, 'permissions-uninstalled-1280');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});
