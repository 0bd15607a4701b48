/**
 * The Punishments page (issue 42) in headless Chromium against the binary, each action checked
 * through the API: a ban issued from the page is in force (the check the proxy plugin asks at
 * login answers banned), a temporary mute shows the end the API stored, a bad duration is read
 * as bad while typed and refused by the API in words, an edited message template is what a
 * punishment issued from it sends, the filters narrow the list a page at a time as the API
 * counts, a revoke lifts the ban (the check answers not banned) and a revoke the API answers
 * 409 is explained, a player's record lists what the API holds for them, and a session without
 * a type's node is told so and refused in words. With the module uninstalled and the
 * controller restarted, the link is gone and /punishments says the module does not run.
 * 1280 and 390 px, light and dark.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { deriveServiceToken } from '../../src/core/auth';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn, waitForInPage } from '../support/browser';
import { tempDir, type TestController } from '../support/controller';
import { bringOnline, grant, loginCode, testPlayer, type Player } from '../support/dashboard-login';
import { expectModulePageAbsent } from '../support/module-page';

const TOKEN = 'dashboard-punishments-token-0123456789abcdef';
const SERVICE = deriveServiceToken(TOKEN);

interface Punishment {
  id: number;
  type: string;
  targetUuid: string;
  targetName: string;
  reason: string;
  issuerName: string;
  expiresAt: string | null;
  active: boolean;
  revokedBy: string | null;
  revokeReason: string | null;
}
interface List {
  punishments: Punishment[];
  total: number;
}
interface Check {
  punished: boolean;
  id: number | null;
  type: string | null;
  reason: string | null;
  remainingSeconds: number | null;
  kickMessage: string | null;
}

let browser: Browser;
let url: string;
let dir: string;
let child: { kill: (signal?: number | NodeJS.Signals) => void; exited: Promise<number> };
/** What the dashboard-login helpers need of a controller, over HTTP to the binary. */
let c: TestController;
const cleanups: (() => void)[] = [];

const players = {
  griefer: testPlayer(0x101, 'Griefer'),
  chatty: testPlayer(0x102, 'Chatty'),
  typo: testPlayer(0x103, 'Typo'),
  shouty: testPlayer(0x104, 'Shouty'),
  spammer: testPlayer(0x105, 'Spammer'),
  cheater: testPlayer(0x106, 'Cheater'),
  twice: testPlayer(0x107, 'Twice'),
  repeat: testPlayer(0x108, 'Repeat'),
  outsider: testPlayer(0x109, 'Outsider'),
  moderator: testPlayer(0x110, 'Moderator'),
};

function apiOf(base: string) {
  return (path: string, init: { method?: string; json?: unknown; token?: string | null } = {}) =>
    fetch(base + path, {
      method: init.method ?? 'GET',
      headers: { ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? TOKEN}` }), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
}

async function json<T>(path: string, init: { method?: string; json?: unknown; token?: string | null } = {}, status = 200): Promise<T> {
  const response = await c.api(path, init);
  const text = await response.text();
  if (response.status !== status) throw new Error(`${init.method ?? 'GET'} ${path} answered ${response.status} (wanted ${status}): ${text}`);
  return JSON.parse(text) as T;
}

/** The proxy plugin's login check (the service token, as the plugin sends it). */
const loginCheck = (player: Player) => json<Check>(`/api/punishments/check/${player.uuid}`, { token: SERVICE });
/** The backend plugin's chat check. */
const muteCheck = (player: Player) => json<Check>(`/api/punishments/mute/${player.uuid}`, { token: SERVICE });
const recordOf = (player: Player) => json<List>(`/api/punishments/player/${player.uuid}?limit=500`);
/** Issued through the API with the master token, which may name the issuer (as a proxy acting for staff does). */
const issue = (body: Record<string, unknown>) => json<Punishment>('/api/punishments', { method: 'POST', json: body }, 201);

beforeAll(async () => {
  const svc = await svcBinary();
  const made = tempDir('svc-browser-punishments-');
  dir = made.dir;
  cleanups.push(made.remove);
  // No name lookup service: names resolve through the players module only (no network call from a test).
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n[punishments]\nname_lookup_url = ""\n');
  const started = await startBinaryController(svc, dir, TOKEN, cleanups);
  ({ url, child } = started);
  c = { api: apiOf(url), service: SERVICE, master: TOKEN } as unknown as TestController;
  for (const player of Object.values(players)) await bringOnline(c, player);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

/** Signs in with the API token and opens the page through the navigation. */
async function openPunishments(page: Page): Promise<void> {
  await signIn(page, url, TOKEN);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Punishments', exact: true }).click();
  await page.getByRole('heading', { name: 'Punishments', level: 1 }).waitFor();
  await page.getByRole('region', { name: 'Message templates' }).locator('.pn-mc').first().waitFor();
}

const issueForm = (page: Page) => page.getByRole('region', { name: 'Issue a punishment' });
const list = (page: Page) => page.getByRole('region', { name: 'Punishments', exact: true });
const record = (page: Page) => page.getByRole('region', { name: /^Player record/ });
const templates = (page: Page) => page.getByRole('region', { name: 'Message templates' });
const row = (section: Locator, id: number) => section.locator(`tbody tr[data-id="${id}"]`);

async function fillIssue(page: Page, fields: { player: string; type: string; duration?: string; reason?: string }): Promise<void> {
  const form = issueForm(page);
  await form.getByLabel('Player', { exact: true }).fill(fields.player);
  await form.getByLabel('Type', { exact: true }).selectOption(fields.type);
  if (fields.duration !== undefined) await form.getByLabel(/^Duration/).fill(fields.duration);
  if (fields.reason !== undefined) await form.getByLabel('Reason', { exact: true }).fill(fields.reason);
}

/** Issues what the form holds; the status line the page shows, and the id it names. */
async function submitIssue(page: Page): Promise<{ text: string; id: number }> {
  const form = issueForm(page);
  await form.getByRole('button', { name: /^Issue / }).click();
  const status = form.getByRole('status').filter({ hasText: 'Issued punishment #' });
  await status.waitFor();
  const text = (await status.textContent()) ?? '';
  return { text, id: Number(/#(\d+)/.exec(text)![1]) };
}

describe('issuing', () => {
  test('a ban issued from the page is in force: the proxy’s login check answers banned', async () => {
    expect((await loginCheck(players.griefer)).punished).toBe(false);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPunishments(page);
    await fillIssue(page, { player: 'Griefer', type: 'BAN', reason: 'griefing the spawn' });
    await issueForm(page).getByText('Empty: permanent, until someone revokes it.').waitFor();
    // The message the player will read, from the ban template, before it is sent.
    expect(await issueForm(page).getByRole('group', { name: /Message for the player, from the ban template/ }).textContent()).toContain('Reason: griefing the spawn');
    const { text, id } = await submitIssue(page);
    expect(text).toContain('ban of Griefer (network), permanent');
    const check = await loginCheck(players.griefer);
    expect(check).toMatchObject({ punished: true, id, type: 'BAN', reason: 'griefing the spawn' });
    expect(check.kickMessage).toContain('griefing the spawn');
    // The list (in force, newest first) shows it.
    const shown = row(list(page), id);
    await shown.waitFor();
    expect(await shown.locator('td[data-label="Standing"]').textContent()).toBe('In force, permanent');
    expect(await shown.locator('td[data-label="Issued"]').textContent()).toContain('by API');
    await page.screenshot({ path: join(screenshotDir(), 'punishments-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a temporary mute shows its end as the API stored it; the chat check answers muted', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPunishments(page);
    await fillIssue(page, { player: 'Chatty', type: 'TEMPMUTE', duration: '2h 30m', reason: 'spam in chat' });
    await issueForm(page).getByText(/^Lasts 2 hours 30 minutes: it would end around /).waitFor();
    const { id } = await submitIssue(page);
    const stored = await json<Punishment>(`/api/punishments/${id}`);
    expect(stored.type).toBe('TEMPMUTE');
    expect(stored.expiresAt).not.toBeNull();
    const lasts = Date.parse(stored.expiresAt!) - Date.now();
    expect(lasts).toBeGreaterThan(2.4 * 3600_000);
    expect(lasts).toBeLessThanOrEqual(2.5 * 3600_000);
    // The status line and the list's row both carry the stored end.
    expect(await issueForm(page).getByRole('status').locator('time').getAttribute('datetime')).toBe(stored.expiresAt);
    const standing = row(list(page), id).locator('td[data-label="Standing"]');
    await standing.waitFor();
    expect(await standing.locator('time').getAttribute('datetime')).toBe(stored.expiresAt);
    expect(await standing.textContent()).toMatch(/^In force until .+ \(in 2 hours (29|30) minutes\)$/);
    const mute = await muteCheck(players.chatty);
    expect(mute).toMatchObject({ punished: true, id, type: 'TEMPMUTE' });
    expect(mute.remainingSeconds!).toBeGreaterThan(2.4 * 3600);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a bad duration is read as bad while typed, and the API’s refusal is said in words', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^400 POST \/api\/punishments$|status of 400 \(Bad Request\)/);
    await openPunishments(page);
    const form = issueForm(page);
    await fillIssue(page, { player: 'Typo', type: 'TEMPBAN', duration: '', reason: 'x-ray' });
    await form.getByText('A temporary ban needs a duration.', { exact: false }).waitFor();
    await form.getByLabel(/^Duration/).fill('perm');
    await form.getByText('A temporary ban cannot be permanent: choose Ban for that, or give a duration.').waitFor();
    await form.getByLabel(/^Duration/).fill('3d5x');
    await form.getByText('“3d5x” cannot be read from “5x”.', { exact: false }).waitFor();
    expect(await form.getByLabel(/^Duration/).getAttribute('aria-invalid')).toBe('true');
    await form.getByRole('button', { name: 'Issue temporary ban' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'The temporary ban was not issued (PUNISHMENT_DURATION_INVALID): Duration "3d5x" cannot be read from "5x"; write it like 30m, 1d12h, 2w, 2mo or 1y (s, m, h, d, w, mo = 30 days, y = 365 days), or perm.',
    );
    expect((await recordOf(players.typo)).total).toBe(0);
    expect((await loginCheck(players.typo)).punished).toBe(false);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('templates', () => {
  test('an edited template is what a punishment issued from it sends', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPunishments(page);
    const section = templates(page);
    // Every template the API holds is listed, drawn with example values.
    const held = await json<Record<string, string>>('/api/punishments/messages');
    expect(await section.locator('h3 code').allTextContents()).toEqual(Object.keys(held));
    await section.getByRole('button', { name: 'Edit the temporary mute template' }).click();
    const text = '&6Hush for {remaining}&7: {reason} (by {issuer})';
    await section.getByLabel('Text of the temporary mute template').fill(text);
    expect(await section.getByRole('group', { name: 'Preview of the temporary mute template being edited' }).textContent()).toBe('Hush for 1d: Example reason (by API)');
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByRole('status').filter({ hasText: 'The temporary mute template is saved' }).waitFor();
    const saved = await json<Record<string, string>>('/api/punishments/messages');
    expect(saved.tempmute).toBe(text);
    expect(saved.ban).toBe(held.ban!); // the others as they were

    await section.getByRole('button', { name: 'Issue with this template (temporary mute)' }).click();
    const form = issueForm(page);
    // The form takes the template's type, and the keyboard goes on from its first field.
    await waitForInPage(page, "document.activeElement?.id === 'pn-player'", 'the Player field focused');
    expect(await form.getByLabel('Type', { exact: true }).inputValue()).toBe('TEMPMUTE');
    expect(await page.evaluate<boolean>(`document.activeElement === document.querySelector('[aria-labelledby="pn-issue-title"] input')`)).toBe(true);
    await page.keyboard.type('Shouty');
    await form.getByLabel(/^Duration/).fill('45m');
    await form.getByLabel('Reason', { exact: true }).fill('all caps');
    expect(await form.getByRole('group', { name: /from the tempmute template/ }).textContent()).toBe('Hush for 45m: all caps (by API)');
    await page.screenshot({ path: join(screenshotDir(), 'punishments-template-1280.png'), fullPage: true });
    const { id } = await submitIssue(page);
    const mute = await muteCheck(players.shouty);
    expect(mute).toMatchObject({ punished: true, id, type: 'TEMPMUTE' });
    expect(mute.kickMessage).toMatch(/^§6Hush for (44|45)m§7: all caps \(by API\)$/);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('the list', () => {
  test('standing, type, player and issuer narrow it, a page of 50 at a time, as the API counts', async () => {
    // 53 warnings by Helper and 2 by Mentor on Spammer; a warning is never in force.
    for (let i = 1; i <= 55; i++) await issue({ type: 'WARN', targetName: 'Spammer', reason: `flood ${i}`, issuer: 'staff', issuerName: i <= 53 ? 'Helper' : 'Mentor' });
    const all = await json<List>('/api/punishments?active=false&limit=500');
    const warnings = await json<List>('/api/punishments?active=false&type=WARN&limit=1');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPunishments(page);
    const section = list(page);
    const pager = section.getByRole('navigation', { name: 'Punishment pages' });
    const rows = section.locator('tbody tr[data-id]');
    const inForce = await json<List>('/api/punishments?limit=1');
    await pager.getByText(`1–${inForce.total} of ${inForce.total}`).waitFor();

    await section.getByLabel('Show').selectOption('all');
    await pager.getByText(`1–50 of ${all.total}`).waitFor();
    await section.getByLabel('Of type').selectOption('WARN');
    await pager.getByText(`1–50 of ${warnings.total}`).waitFor();
    expect(await rows.first().locator('td[data-label="Reason"]').textContent()).toBe('flood 55'); // newest first
    await pager.getByRole('button', { name: 'Older' }).click();
    await pager.getByText(`51–${warnings.total} of ${warnings.total}`).waitFor();
    expect(await rows.count()).toBe(warnings.total - 50);
    expect(await pager.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);

    // In force: a warning never is.
    await section.getByLabel('Show').selectOption('active');
    await section.getByText('No punishment matches these filters.').waitFor();

    // Player and issuer, over every record of any type.
    await section.getByLabel('Show').selectOption('all');
    await section.getByLabel('Of type').selectOption('');
    await section.getByLabel('Issued by').fill('mentor');
    await pager.getByText('1–2 of 2').waitFor();
    expect(await rows.allTextContents()).toEqual(all.punishments.filter((p) => p.issuerName === 'Mentor').map((p) => expect.stringContaining(`#${p.id}`)));
    await section.getByLabel('Issued by').fill('');
    await section.getByLabel('Player', { exact: true }).fill('griefer');
    const griefer = all.punishments.filter((p) => p.targetName === 'Griefer');
    await pager.getByText(`1–${griefer.length} of ${griefer.length}`).waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-id'))))).toEqual(griefer.map((p) => p.id));
    await section.getByLabel('Player', { exact: true }).fill(players.spammer.uuid);
    await pager.getByText('1–50 of 55').waitFor();
    await section.getByLabel('Issued by').fill('Helper');
    await pager.getByText('1–50 of 53').waitFor();
    await pager.getByRole('button', { name: 'Older' }).click();
    await pager.getByText('51–53 of 53').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 120_000);
});

describe('revoking', () => {
  test('Revoke lifts the ban (the login check answers not banned); a revoke the API answers 409 is explained', async () => {
    const ban = await issue({ type: 'BAN', targetName: 'Cheater', reason: 'kill aura' });
    expect((await loginCheck(players.cheater)).punished).toBe(true);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^409 DELETE \/api\/punishments\/\d+$|status of 409 \(Conflict\)/);
    await openPunishments(page);
    const section = list(page);
    await section.getByRole('button', { name: `Revoke punishment #${ban.id} of Cheater` }).click();
    const dialog = page.getByRole('dialog', { name: `Revoke punishment #${ban.id}` });
    await dialog.getByLabel('Why (kept on the record)').fill('appeal accepted');
    await page.screenshot({ path: join(screenshotDir(), 'punishments-revoke-1280.png') });
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await section.getByRole('status').filter({ hasText: `Punishment ${ban.id} revoked. Cheater may join again.` }).waitFor();
    expect(await dialog.count()).toBe(0);
    expect((await loginCheck(players.cheater)).punished).toBe(false);
    const lifted = await json<Punishment>(`/api/punishments/${ban.id}`);
    expect(lifted).toMatchObject({ active: false, revokedBy: 'API', revokeReason: 'appeal accepted' });
    // The list in force no longer holds it (read again on the revoke's event).
    await row(section, ban.id).waitFor({ state: 'detached' });

    // Revoked elsewhere while the dialog is open: the API answers 409, and the dialog says why.
    const second = await issue({ type: 'BAN', targetName: 'Twice', reason: 'alt account' });
    await section.getByRole('button', { name: `Revoke punishment #${second.id} of Twice` }).click();
    const again = page.getByRole('dialog', { name: `Revoke punishment #${second.id}` });
    await again.waitFor();
    await json(`/api/punishments/${second.id}`, { method: 'DELETE', json: { reason: 'lifted from the console' } });
    await again.getByRole('button', { name: 'Revoke', exact: true }).click();
    const alert = again.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      `Punishment #${second.id} is no longer in force, so there is nothing to revoke: Punishment ${second.id} is not in force (revoked by API). Someone may have revoked it already, a newer punishment may have replaced it, or it ended. The list shows it as it is now.`,
    );
    expect(await again.getByRole('button', { name: 'Revoke', exact: true }).count()).toBe(0);
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Close');
    await page.keyboard.press('Enter');
    await again.waitFor({ state: 'detached' });
    expect((await loginCheck(players.twice)).punished).toBe(false);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('a player’s record', () => {
  test('lists what GET /api/punishments/player/{uuid} holds, from a row or by name', async () => {
    const warn = await issue({ type: 'WARN', targetName: 'Repeat', reason: 'first warning' });
    const mute = await issue({ type: 'MUTE', targetName: 'Repeat', duration: '1d', reason: 'insults' });
    const ban = await issue({ type: 'TEMPBAN', targetName: 'Repeat', duration: '7d', reason: 'insults again' });
    await json(`/api/punishments/${mute.id}`, { method: 'DELETE', json: { reason: 'served by the ban' } });
    const held = await recordOf(players.repeat);
    expect(held.punishments.map((p) => p.id)).toEqual([ban.id, mute.id, warn.id]);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openPunishments(page);
    await list(page).getByRole('button', { name: 'Record of Repeat' }).click();
    const section = record(page);
    await section.getByRole('heading', { name: 'Player record: Repeat' }).waitFor();
    const rows = section.locator('tbody tr[data-id]');
    await rows.first().waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-id'))))).toEqual(held.punishments.map((p) => p.id));
    expect(await section.getByText(players.repeat.uuid).count()).toBe(1);
    expect(await section.locator('.pn-record-sum').textContent()).toMatch(/^3 records\. Now: banned until .+\.$/);
    expect(await row(section, mute.id).locator('td[data-label="Standing"]').textContent()).toMatch(/^Revoked by API on .+: served by the ban$/);
    expect(await row(section, ban.id).locator('td[data-label="Standing"] time').getAttribute('datetime')).toBe(ban.expiresAt);
    // By name, typed.
    await page.reload();
    await page.getByRole('heading', { name: 'Punishments', level: 1 }).waitFor();
    await record(page).getByLabel('Name or UUID').fill('repeat');
    await page.keyboard.press('Enter');
    await record(page).getByRole('heading', { name: 'Player record: Repeat' }).waitFor();
    expect(await record(page).locator('tbody tr[data-id]').count()).toBe(3);
    // A player never punished: an empty record, said so.
    await record(page).getByLabel('Name or UUID').fill(players.outsider.uuid);
    await record(page).getByRole('button', { name: 'Show record' }).click();
    await record(page).getByText('No punishment on this player’s record.').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('a dashboard session', () => {
  test('without a type’s node it is told beforehand and refused in words; with it, it issues as its player', async () => {
    const moderator = players.moderator;
    await grant(c, moderator, ['svc.dashboard.punishments.view', 'svc.dashboard.punishments.mute']);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    problems.expect(/^403 POST \/api\/punishments$|status of 403 \(Forbidden\)/);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, moderator));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Punishments', exact: true }).click();
    const form = issueForm(page);
    await form.waitFor();
    await fillIssue(page, { player: 'Outsider', type: 'BAN', reason: 'trying' });
    await form.getByText('Your account may not issue a ban: it needs the permission svc.dashboard.punishments.ban, so the controller will refuse it.').waitFor();
    await form.getByRole('button', { name: 'Issue ban' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'The ban was not issued: your account may not do this. Missing permission: svc.dashboard.punishments.ban (this dashboard session does not hold it). Ask an admin of this network for that permission.',
    );
    expect((await loginCheck(players.outsider)).punished).toBe(false);
    expect((await recordOf(players.outsider)).total).toBe(0);
    // What it may not do is said, not offered: no record, no revoke, no template edit.
    expect(await record(page).getByText('Your account may not read players’ records: that needs the permission svc.dashboard.punishments.history.').count()).toBe(1);
    expect(await list(page).getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
    expect(await templates(page).getByRole('button', { name: /^Edit/ }).count()).toBe(0);
    // A mute it may issue, as its player.
    await form.getByLabel('Type', { exact: true }).selectOption('MUTE');
    const { id } = await submitIssue(page);
    expect(await json<Punishment>(`/api/punishments/${id}`)).toMatchObject({ type: 'MUTE', targetName: 'Outsider', issuerName: 'Moderator' });
    expect((await muteCheck(players.outsider)).punished).toBe(true);
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'punishments-session-390.png'), fullPage: true });
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
      await openPunishments(page);
      await list(page).locator('tbody tr[data-id]').first().waitFor();
      await list(page).getByRole('button', { name: 'Record of Repeat' }).click();
      await record(page).locator('tbody tr[data-id]').first().waitFor();
      await issueForm(page).getByLabel('Type', { exact: true }).selectOption('IPBAN');
      await issueForm(page).getByLabel('Where').selectOption('GROUP');
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(screenshotDir(), `punishments-${width}-${scheme}.png`), fullPage: true });
      }
      if (width === 390) {
        await list(page).getByRole('button', { name: /^Revoke punishment/ }).first().click();
        await page.getByRole('dialog').waitFor();
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(screenshotDir(), 'punishments-revoke-390-dark.png') });
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      }
      expect(problems.problems).toEqual([]);
      await page.close();
    }, 60_000);
  }
});

describe('uninstalled', () => {
  test('after POST /api/modules/uninstall/punishments and a restart, the link is gone and /punishments says the module does not run', async () => {
    await json('/api/modules/uninstall/punishments', { method: 'POST' });
    child.kill('SIGTERM');
    await child.exited;
    const svc = await svcBinary();
    ({ url, child } = await startBinaryController(svc, dir, TOKEN, cleanups));
    c = { api: apiOf(url), service: SERVICE, master: TOKEN } as unknown as TestController;
    expect((await c.api('/api/punishments')).status).toBe(404);
    await expectModulePageAbsent(browser, url, TOKEN, { link: 'Punishments', path: '/punishments', module: 'punishments', screenshot: 'punishments-uninstalled-1280.png' });
  }, 60_000);
});
