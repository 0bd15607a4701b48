/**
 * The Backups page (issue 42) in headless Chromium against the binary, each action checked
 * through the API: a backup of a running fake-paper service triggered from the page shows
 * running, then succeeded, heard live (no reload); verify says the archive's checksum holds; a
 * restore dry run lists the files the API lists, a restore over the running service is refused
 * in words until forced, and the real restore after the confirmation puts the backed-up files
 * back (and removes what the backup does not hold); a download is the bytes the API serves;
 * schedules and retention edited from the page are what the API holds, a bad cron refused in
 * the API's words; a prune counts first and deletes what it counted; a delete is asked first
 * (Cancel has the keyboard); a session with .manage but not admin saves archiving while the
 * archive folder and the login key stay the operator's; a session holding only .view sees the
 * page, is offered only the downloads its node allows and is refused changes in words. With the
 * module uninstalled and the controller restarted, the link is gone and /backups says the
 * module does not run. 1280 and 390 px, light and dark.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { deriveServiceToken } from '../../src/core/auth';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn, waitForInPage } from '../support/browser';
import { tempDir, waitFor, type TestController } from '../support/controller';
import { bringOnline, grant, loginCode, testPlayer } from '../support/dashboard-login';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { expectModulePageAbsent } from '../support/module-page';

const TOKEN = 'dashboard-backups-token-0123456789abcdef';
const SERVICE = deriveServiceToken(TOKEN);
const LOBBY = fakePaperGroup('Lobby', { minInstances: 0, maxInstances: 1 });

interface Backup {
  id: number;
  targetType: string;
  targetName: string;
  scheduleClass: string;
  status: string;
  sizeBytes: number;
  archivePath: string;
  checksum: string;
}
interface BackupList {
  backups: Backup[];
  total: number;
}
interface Restore {
  id: number;
  dryRun: boolean;
  filesExtracted: number;
  files: string[];
  targetPath: string;
}
interface Config {
  enabled: boolean;
  compressionLevel: number;
  localDestination: string;
  includeAuthKey: boolean;
  timezone: string;
  quiesceWaitSeconds: number;
  schedules: { name: string; cron: string; retentionClass: string; targets: string[] }[];
  retention: { hourlyKeep: number; dailyKeep: number; weeklyKeep: number; monthlyKeep: number; keepManual: boolean; failedKeepDays: number };
  [key: string]: unknown;
}

let browser: Browser;
let url: string;
let dir: string;
let child: { kill: (signal?: number | NodeJS.Signals) => void; exited: Promise<number> };
let c: TestController;
const cleanups: (() => void)[] = [];
const viewer = testPlayer(0x201, 'Viewer');

/** The service backed up by the first test, and its backup's id. */
let service = '';
let backupId = 0;

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

const backupOf = (id: number) => json<Backup>(`/api/backups/${id}`);
const config = () => json<Config>('/api/backups/config');

/** Waits (polling the API) until backup `id` has ended. */
async function ended(id: number): Promise<Backup> {
  return waitFor(async () => {
    const b = await backupOf(id);
    return b.status === 'RUNNING' ? null : b;
  }, { timeoutMs: 30_000, intervalMs: 100, what: `backup ${id} ended` });
}

beforeAll(async () => {
  const svc = await svcBinary();
  const made = tempDir('svc-browser-backups-');
  dir = made.dir;
  cleanups.push(made.remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  const started = await startBinaryController(svc, dir, TOKEN, cleanups);
  ({ url, child } = started);
  c = { api: apiOf(url), service: SERVICE, master: TOKEN } as unknown as TestController;
  // Schedules that do not fire while the test runs (the default hourly one could, at :00), in
  // UTC; a server's saving paused for 3 s, so a backup of it is seen running.
  const current = await config();
  await json('/api/backups/config', {
    method: 'PUT',
    json: {
      ...current,
      timezone: 'UTC',
      quiesceWaitSeconds: 3,
      schedules: [
        { name: 'nightly', cron: '0 3 * * *', retentionClass: 'daily', targets: ['all'] },
        { name: 'weekly', cron: '0 4 * * 0', retentionClass: 'weekly', targets: ['services', 'database'] },
      ],
    },
  });
  expect((await c.api('/api/groups', { method: 'POST', json: LOBBY })).status).toBe(201);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  // The game server first (the controller's SIGKILL would leave it running), then the rest.
  if (service) await c?.api(`/api/services/${service}/stop`, { method: 'POST' }).catch(() => undefined);
  cleanups.splice(0).reverse().forEach((f) => f());
}, 60_000);

/** Starts an instance of `group` through the API and waits for it to be READY. */
async function startReady(group: string): Promise<string> {
  const started = await json<{ service: { name: string } }>(`/api/services/${group}/start`, { method: 'POST' }, 201);
  const name = started.service.name;
  await waitFor(async () => (await json<{ state: string }>(`/api/services/${name}`)).state === 'READY', { timeoutMs: 20_000, what: `${name} READY` });
  return name;
}

/** Signs in with the API token and opens the page through the navigation. */
async function openBackups(page: Page): Promise<void> {
  await signIn(page, url, TOKEN);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Backups', exact: true }).click();
  await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
  await runs(page).locator('tbody tr').first().waitFor();
}

const section = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const runs = (page: Page) => section(page, 'Runs');
const trigger = (page: Page) => section(page, 'Back up now');
const row = (page: Page, id: number) => runs(page).locator(`tbody tr[data-id="${id}"]`);
const texts = (list: Locator) => list.allTextContents();

describe('a backup of a service', () => {
  test('triggered from the page shows running, then succeeded, heard live; verify says the checksum holds', async () => {
    service = await startReady('Lobby');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openBackups(page);
    // A mark on this very page: still there at the end, so the page was never reloaded.
    await page.evaluate('window.__samePage = true');
    // The events socket is open: what the controller announces from now on is heard.
    await section(page, 'As it happens').getByText('Listening: ', { exact: false }).waitFor();
    const form = trigger(page);
    await form.getByRole('radio', { name: 'One service or dedicated service' }).check();
    await form.getByLabel('Service', { exact: true }).fill(service);
    await form.getByRole('button', { name: 'Back up now' }).click();
    const started = form.getByRole('status').filter({ hasText: 'Started backup #' });
    await started.waitFor();
    backupId = Number(/#(\d+)/.exec((await started.textContent()) ?? '')![1]);
    expect(await started.textContent()).toBe(`Started backup #${backupId} of service ${service}: the list below shows it running, then how it ended.`);

    // Running: as the API has it, the row says so and counts the time.
    const running = runs(page).locator(`tbody tr[data-id="${backupId}"][data-status="RUNNING"]`);
    await running.waitFor();
    expect((await backupOf(backupId)).status).toBe('RUNNING');
    expect(await running.locator('td[data-label="Status"]').textContent()).toMatch(/^Running for (under 0\.1|\d+\.\d) s$/);
    const heard = page.getByRole('log', { name: 'Backup events heard live' });
    await heard.getByText(`Backup #${backupId} of service ${service} started (by the API token).`).waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'backups-running-1280.png'), fullPage: true });

    // Then succeeded, heard live: the same page, never reloaded.
    const done = runs(page).locator(`tbody tr[data-id="${backupId}"][data-status="SUCCESS"]`);
    await done.waitFor({ timeout: 30_000 });
    const stored = await backupOf(backupId);
    expect(stored).toMatchObject({ status: 'SUCCESS', targetType: 'SERVICE', targetName: service, scheduleClass: 'manual' });
    expect(stored.sizeBytes).toBeGreaterThan(0);
    expect(await done.locator('td[data-label="Status"]').textContent()).toMatch(/^Succeeded in \d/);
    await heard.getByText(new RegExp(`^Backup #${backupId} of ${service} succeeded: .+ in .+\\.$`)).waitFor();
    expect(await page.evaluate<boolean>('window.__samePage === true')).toBe(true);

    // Verify: the API's answer, in words.
    await row(page, backupId).getByRole('button', { name: `Verify backup #${backupId}` }).click();
    const verified = runs(page).getByRole('status').filter({ hasText: `Backup #${backupId} (service ${service}) holds` });
    await verified.waitFor();
    expect(await verified.textContent()).toBe(
      `Backup #${backupId} (service ${service}) holds: the archive’s SHA-256 is the one recorded when it was written (${stored.checksum.slice(0, 12)}…), and every file in it matches its manifest.`,
    );
    expect(await json('/api/backups/' + backupId + '/verify', { method: 'POST' })).toEqual({ valid: true, errors: [] });
    await page.screenshot({ path: join(screenshotDir(), 'backups-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('a restore dry run lists the files the API lists; refused over the running service until forced; the real restore puts them back', async () => {
    const dry = await json<Restore>(`/api/backups/${backupId}/restore`, { method: 'POST', json: { dryRun: true } });
    expect(dry.files.length).toBeGreaterThan(0);
    const folder = join(dir, dry.targetPath);
    const kept = dry.files.find((f) => !f.endsWith('/'))!;
    const keptBefore = readFileSync(join(folder, kept));
    // Changed after the backup: one of its files, and a file it does not hold.
    writeFileSync(join(folder, kept), 'changed after the backup\n');
    writeFileSync(join(folder, 'added-after-the-backup.txt'), 'not in the backup\n');

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^409 POST \/api\/backups\/\d+\/restore$|status of 409 \(Conflict\)/);
    await openBackups(page);
    await row(page, backupId).getByRole('button', { name: `Restore backup #${backupId}` }).click();
    const dialog = page.getByRole('dialog', { name: `Restore backup #${backupId}` });
    await dialog.getByRole('button', { name: 'Dry run' }).click();
    const listed = dialog.getByRole('list', { name: 'Files the restore would write' });
    await listed.waitFor();
    // The API's list, in its order.
    expect(await texts(listed.getByRole('listitem'))).toEqual(dry.files);
    expect(await dialog.getByRole('status').textContent()).toContain(`restoring puts the backup’s ${dry.filesExtracted} files`);
    expect(await dialog.getByRole('status').textContent()).toContain(`into ${dry.targetPath}.`);
    await dialog.getByText(`${service} is READY now: the controller refuses to restore under a running service unless you restore over it anyway.`, { exact: false }).waitFor();
    await dialog.getByLabel('Find in the list').fill(kept);
    expect(await texts(listed.getByRole('listitem'))).toContain(kept);
    await page.screenshot({ path: join(screenshotDir(), 'backups-restore-dry-run-1280.png') });
    // The dry run wrote nothing.
    expect(readFileSync(join(folder, kept), 'utf8')).toBe('changed after the backup\n');

    // Without force: the confirmation names what it replaces, and the controller refuses in words.
    await dialog.getByRole('button', { name: 'Restore…' }).click();
    await dialog.getByText(`Replace ${dry.targetPath} with backup #${backupId}?`).waitFor();
    await dialog.getByRole('button', { name: `Replace ${dry.targetPath}` }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(
      `Backup #${backupId} was not restored: ${service} is READY; stop it first, or restore with force. Stop ${service} on the Services page first, or tick “Restore over the running service” below; nothing was written.`,
    );
    expect(readFileSync(join(folder, kept), 'utf8')).toBe('changed after the backup\n');

    // Forced, after the confirmation.
    await dialog.getByLabel(/^Restore over the running service/).check();
    await dialog.getByRole('button', { name: 'Restore…' }).click();
    await dialog.getByText(`${service} is restored over even if it runs.`, { exact: false }).waitFor();
    await dialog.getByRole('button', { name: `Replace ${dry.targetPath}` }).click();
    const restored = runs(page).getByRole('status').filter({ hasText: `Restored backup #${backupId}` });
    await restored.waitFor();
    expect(await restored.textContent()).toMatch(new RegExp(`^Restored backup #${backupId} \\(service ${service}\\): ${dry.targetPath} now holds its ${dry.filesExtracted} files, exactly as backed up on .+\\.$`));
    expect(await dialog.count()).toBe(0);
    expect(readFileSync(join(folder, kept))).toEqual(keptBefore);
    expect(existsSync(join(folder, 'added-after-the-backup.txt'))).toBe(false);
    // The controller's own record of it.
    const audit = await json<{ entries: { action: string; actor: string; target: string }[] }>('/api/audit?action=BACKUP_RESTORED');
    expect(audit.entries[0]).toMatchObject({ action: 'BACKUP_RESTORED', target: service });
    await page.getByRole('log', { name: 'Backup events heard live' }).getByText(`Backup #${backupId} of ${service} was restored into ${dry.targetPath}`, { exact: false }).waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a download is the archive’s bytes as the API serves them, under its name', async () => {
    const served = await c.api(`/api/backups/${backupId}/download`);
    expect(served.status).toBe(200);
    const name = /filename="([^"]+)"/.exec(served.headers.get('content-disposition') ?? '')![1];
    const bytes = new Uint8Array(await served.arrayBuffer());
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openBackups(page);
    const downloading = page.waitForEvent('download');
    await row(page, backupId).getByRole('button', { name: new RegExp(`^Download backup #${backupId} \\(`) }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(name!);
    expect(new Uint8Array(readFileSync(await download.path()))).toEqual(bytes);
    await runs(page).getByRole('status').filter({ hasText: `Backup #${backupId} is downloaded as ${name}` }).waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('the configuration', () => {
  test('schedules edited from the page are what the API holds; a cron the API refuses is said in its words', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^400 PUT \/api\/backups\/config$|status of 400 \(Bad Request\)/);
    await openBackups(page);
    const schedules = section(page, 'Schedules');
    await schedules.locator('tbody tr[data-name="nightly"]').waitFor();
    expect(await schedules.locator('tbody tr[data-name="nightly"] td[data-label="When"]').textContent()).toStartWith('every day at 03:00');
    await schedules.getByRole('button', { name: 'Edit schedules' }).click();
    const editor = schedules.getByRole('form', { name: 'Edit schedules' });

    // A cron the page reads but the API refuses: its words, the field marked.
    const cron = editor.getByLabel('Cron expression').first();
    await cron.fill('0 25 * * *');
    await editor.getByRole('button', { name: 'Save schedules' }).click();
    const refused = editor.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/^Not saved: the controller refused schedule 1’s cron expression: "0 25 \* \* \*": .*hour.* \(BACKUP_CONFIG_INVALID\)$/);
    expect(await cron.getAttribute('aria-invalid')).toBe('true');
    expect((await config()).schedules[0]!.cron).toBe('0 3 * * *');

    await cron.fill('30 2 * * *');
    await editor.getByText('Runs every day at 02:30 (UTC).').waitFor();
    await editor.getByRole('button', { name: 'Add a schedule' }).click();
    // The new schedule's name has the keyboard.
    await waitForInPage(page, "document.activeElement?.id === 'bk-s-2-name'", 'the new schedule’s name focused');
    await page.keyboard.type('monthly-db');
    const added = editor.getByRole('group', { name: 'Schedule 3: monthly-db' });
    await added.getByLabel('Cron expression').fill('0 5 1 * *');
    await added.getByText('Runs on day 1 of every month at 05:00 (UTC).').waitFor();
    await added.getByLabel('Retention class').selectOption('monthly');
    const targets = added.getByRole('group', { name: 'Targets of monthly-db' });
    await targets.getByLabel('Everything in scope').uncheck();
    await targets.getByLabel('Database').check();
    await page.screenshot({ path: join(screenshotDir(), 'backups-schedules-edit-1280.png'), fullPage: true });
    await editor.getByRole('button', { name: 'Save schedules' }).click();
    await editor.getByRole('status').filter({ hasText: 'The schedules are saved' }).waitFor();

    const saved = await config();
    expect(saved.schedules).toEqual([
      { name: 'nightly', cron: '30 2 * * *', retentionClass: 'daily', targets: ['all'] },
      { name: 'weekly', cron: '0 4 * * 0', retentionClass: 'weekly', targets: ['services', 'database'] },
      { name: 'monthly-db', cron: '0 5 1 * *', retentionClass: 'monthly', targets: ['database'] },
    ]);
    // The rest of the configuration as it was.
    expect(saved.quiesceWaitSeconds).toBe(3);
    const views = await json<{ name: string; nextRunAt: string | null }[]>('/api/backups/schedules');
    const next = views.find((v) => v.name === 'monthly-db')!.nextRunAt!;
    expect(new Date(next).getUTCDate()).toBe(1);
    const shown = schedules.locator('tbody tr[data-name="monthly-db"]');
    await shown.waitFor();
    expect(await shown.locator('td[data-label="Next run"] time').getAttribute('datetime')).toBe(next);
    expect(await shown.locator('td[data-label="Targets"]').textContent()).toBe('database');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('retention edited from the page; a prune counts first, then deletes what it counted; a delete is asked first', async () => {
    // Two weekly database backups, one after the other.
    const made: number[] = [];
    for (let i = 0; i < 2; i++) {
      const started = await json<BackupList>('/api/backups/trigger', { method: 'POST', json: { targets: ['database'], scheduleClass: 'weekly' } }, 201);
      made.push(started.backups[0]!.id);
      expect((await ended(started.backups[0]!.id)).status).toBe('SUCCESS');
    }
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openBackups(page);
    const retention = section(page, 'Retention');
    await retention.getByLabel('Weekly kept').fill('1');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await retention.getByRole('status').filter({ hasText: 'Retention is saved' }).waitFor();
    expect((await config()).retention.weeklyKeep).toBe(1);

    const prune = retention.getByRole('group', { name: 'Prune now' });
    await prune.getByLabel('Which').selectOption('weekly');
    await prune.getByRole('button', { name: 'Dry run: count what would go' }).click();
    const counted = await json<{ deleted: number; freedBytes: number }>('/api/backups/prune', { method: 'POST', json: { dryRun: true, retentionClass: 'weekly' } });
    expect(counted.deleted).toBe(1);
    await prune.getByRole('status').filter({ hasText: 'Dry run of the weekly class: 1 backup would be deleted, freeing' }).waitFor();
    await prune.getByRole('button', { name: 'Prune…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Prune 1 backup' });
    await dialog.getByRole('button', { name: 'Delete 1 backup' }).click();
    await prune.getByRole('status').filter({ hasText: 'Pruned the weekly class: 1 backup deleted' }).waitFor();
    // The older one is gone, the newer kept.
    expect((await c.api(`/api/backups/${made[0]}`)).status).toBe(404);
    expect((await backupOf(made[1]!)).status).toBe('SUCCESS');
    await row(page, made[0]!).waitFor({ state: 'detached' });

    // Delete, asked first: the question names the backup and its archive.
    const kept = await backupOf(made[1]!);
    await row(page, kept.id).getByRole('button', { name: `Delete backup #${kept.id}` }).click();
    const ask = page.getByRole('dialog', { name: `Delete backup #${kept.id}` });
    expect(await ask.textContent()).toContain(`its archive ${kept.archivePath}`);
    // Cancel has the keyboard first: Enter there deletes nothing.
    await page.keyboard.press('Enter');
    await ask.waitFor({ state: 'detached' });
    expect((await backupOf(kept.id)).status).toBe('SUCCESS');
    await row(page, kept.id).getByRole('button', { name: `Delete backup #${kept.id}` }).click();
    await ask.getByRole('button', { name: 'Delete', exact: true }).click();
    await runs(page).getByRole('status').filter({ hasText: `Backup #${kept.id} deleted. Its archive is gone from the disk.` }).waitFor();
    expect((await c.api(`/api/backups/${kept.id}`)).status).toBe(404);
    expect(existsSync(join(dir, 'data', 'backups', kept.archivePath))).toBe(false);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('a session with .manage but not admin saves archiving; the archive folder and the login key stay the operator’s', async () => {
    const keeper = testPlayer(0x202, 'Keeper');
    await bringOnline(c, keeper, 'Elsewhere-1');
    await grant(c, keeper, ['svc.dashboard.backups.view', 'svc.dashboard.backups.manage']);
    const before = await config();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, keeper));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Backups', exact: true }).click();
    const archiving = section(page, 'Archiving');
    await archiving.getByLabel('Compression level').fill('5');
    expect(await archiving.getByLabel('Archive folder').getAttribute('readonly')).not.toBeNull();
    expect(await archiving.getByLabel('Database archives carry the login key').isDisabled()).toBe(true);
    await archiving.getByText('Only the operator changes this (an admin token or an admin session)', { exact: false }).first().waitFor();
    await archiving.getByRole('button', { name: 'Save archiving' }).click();
    await archiving.getByRole('status').filter({ hasText: 'Archiving is saved' }).waitFor();
    const after = await config();
    expect(after.compressionLevel).toBe(5);
    expect(after.localDestination).toBe(before.localDestination);
    expect(after.includeAuthKey).toBe(before.includeAuthKey);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('a session with only svc.dashboard.backups.view', () => {
  test('sees the page, is offered only the downloads it may take, and is refused changes in words', async () => {
    // Online somewhere else than the service backed up (a player on it would hold its stop up).
    await bringOnline(c, viewer, 'Elsewhere-1');
    await grant(c, viewer, ['svc.dashboard.backups.view']);
    // A database archive: it holds credentials.
    const database = (await json<BackupList>('/api/backups/trigger', { method: 'POST', json: { targets: ['database'] } }, 201)).backups[0]!;
    expect((await ended(database.id)).status).toBe('SUCCESS');
    const before = await json<BackupList>('/api/backups?limit=1');
    const retentionBefore = (await config()).retention;
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    problems.expect(/^403 (POST \/api\/backups\/trigger|PUT \/api\/backups\/config)$|status of 403 \(Forbidden\)/);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, viewer));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Backups', exact: true }).click();
    await page.getByRole('heading', { name: 'Backups', level: 1 }).waitFor();
    await page.getByRole('note').filter({ hasText: 'This account holds svc.dashboard.backups.view but not svc.dashboard.backups.manage' }).waitFor();
    await row(page, backupId).waitFor();

    // The service's archive may be downloaded with .view; the database's holds credentials.
    expect(await row(page, database.id).getByRole('button', { name: /^Download/ }).count()).toBe(0);
    expect(await row(page, database.id).getByText('No download: it holds credentials').count()).toBe(1);
    expect(await row(page, backupId).getByRole('button', { name: /^(Verify|Restore|Delete)/ }).count()).toBe(0);
    const downloading = page.waitForEvent('download');
    await row(page, backupId).getByRole('button', { name: new RegExp(`^Download backup #${backupId} \\(`) }).click();
    const download = await downloading;
    expect(new Uint8Array(readFileSync(await download.path()))).toEqual(new Uint8Array(await (await c.api(`/api/backups/${backupId}/download`)).arrayBuffer()));

    // Told beforehand, refused in words.
    const form = trigger(page);
    await form.getByText('Your account may not start backups: that needs the permission svc.dashboard.backups.manage, so the controller will refuse it.').waitFor();
    await form.getByLabel('Service', { exact: true }).fill(service);
    await form.getByRole('button', { name: 'Back up now' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'No backup was started: this account may look at backups but not change them; that needs the permission svc.dashboard.backups.manage. The controller said: “Missing permission: svc.dashboard.backups.manage (this dashboard session does not hold it).” Ask an admin of this network for it.',
    );
    expect((await json<BackupList>('/api/backups?limit=1')).total).toBe(before.total);

    const retention = section(page, 'Retention');
    await retention.getByLabel('Hourly kept').fill('5');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    const refused = retention.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toBe(
      'Not saved: this account may look at backups but not change them; that needs the permission svc.dashboard.backups.manage. The controller said: “Missing permission: svc.dashboard.backups.manage (this dashboard session does not hold it).” Ask an admin of this network for it.',
    );
    expect((await config()).retention).toEqual(retentionBefore);
    // The operator's settings are not editable here.
    expect(await section(page, 'Archiving').getByLabel('Archive folder').getAttribute('readonly')).not.toBeNull();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'backups-view-only-390.png'), fullPage: true });
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
      await openBackups(page);
      await section(page, 'Schedules').getByRole('button', { name: 'Edit schedules' }).click();
      await row(page, backupId).locator('summary').click();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(screenshotDir(), `backups-${width}-${scheme}.png`), fullPage: true });
      }
      // The restore dialog, by keyboard: its dry run, then Escape closes it.
      await row(page, backupId).getByRole('button', { name: `Restore backup #${backupId}` }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: `Restore backup #${backupId}` });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Dry run' }).focus();
      await page.keyboard.press('Enter');
      await dialog.getByRole('list', { name: 'Files the restore would write' }).waitFor();
      expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(screenshotDir(), `backups-restore-${width}-dark.png`) });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(problems.problems).toEqual([]);
      await page.close();
    }, 60_000);
  }
});

describe('uninstalled', () => {
  test('after POST /api/modules/uninstall/backup and a restart, the link is gone and /backups says the module does not run', async () => {
    await c.api(`/api/services/${service}/stop`, { method: 'POST' });
    await json('/api/modules/uninstall/backup', { method: 'POST' });
    child.kill('SIGTERM');
    await child.exited;
    const svc = await svcBinary();
    ({ url, child } = await startBinaryController(svc, dir, TOKEN, cleanups));
    c = { api: apiOf(url), service: SERVICE, master: TOKEN } as unknown as TestController;
    service = '';
    expect((await c.api('/api/backups')).status).toBe(404);
    await expectModulePageAbsent(browser, url, TOKEN, { link: 'Backups', path: '/backups', module: 'backup', screenshot: 'backups-uninstalled-1280.png' });
  }, 60_000);
});
