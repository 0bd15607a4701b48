/**
 * The Scaling page (issue 42) in headless Chromium against the binary, each step checked
 * through the API: a DYNAMIC group's schedule (its file, `scaling reload`) is drawn on the week
 * grid as GET /api/scaling/schedules/{group} answers it, hour by hour, and the keyboard moves
 * over it and opens the rule there; the players chart draws the history and the predictions
 * the API answers (seeded into the module's tables), named with their sample counts; the
 * warm-up settings and a rule covering now with a higher minimum, made in the page's forms, are
 * saved through PUT /api/scaling/schedules/{group} (answered 200, said in words, written to the
 * group's file) and the rule raises the effective minimum at once: GET /api/scaling/status and
 * the page show it, the fake-paper instances start, and the decisions log lists the scale-up
 * with its reason as the API stores it; a rule changed from the page reaches another page open
 * on the group through SMART_SCHEDULE_SAVED. A bad rule is refused at its field before anything
 * is sent; what the controller refuses all the same (a zone this browser knows and it does not)
 * is said in the API's words at the field it names, and nothing changes; a file the module
 * cannot use is named in the API's words; a session holding only svc.dashboard.scaling.view is
 * told it may not change schedules, and one that lost .manage while the page was open is refused
 * the save (403) in words. With the module uninstalled and the controller restarted, the link is
 * gone and /scaling says the module does not run. 1280 and 390 px, light and dark.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn, waitForInPage } from '../support/browser';
import { tempDir, waitFor, type TestController } from '../support/controller';
import { binaryController, grant, loginCode, bringOnline, testPlayer } from '../support/dashboard-login';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { expectModulePageAbsent } from '../support/module-page';

const TOKEN = 'dashboard-scaling-token-0123456789abcdef';

interface Rule {
  name: string;
  days: string[];
  from: string;
  to: string;
  minInstances: number;
  maxInstances: number | null;
}
interface Schedule {
  group: string;
  enabled: boolean;
  timezone: string;
  warmup: { enabled: boolean; leadTimeMinutes: number };
  prediction: { enabled: boolean; percentile: number };
  rules: Rule[];
}
interface GroupStatus {
  group: string;
  enabled: boolean;
  activeRule: { name: string; minInstances: number; maxInstances: number | null; isWarmup: boolean } | null;
  minInstances: number;
  effectiveMinInstances: number;
  effectiveSource: string | null;
  problem: string | null;
}
interface Decision {
  timestamp: string;
  group: string;
  action: string;
  reason: string;
  source: string;
  servicesStarted: number;
}
interface History {
  snapshots: { timestamp: string; playerCount: number; peakPlayerCount: number; samples: number }[];
}
interface Predictions {
  percentile: number;
  predictions: { predictedPlayers: number; dataPoints: number }[];
}

let browser: Browser;
let url: string;
let dir: string;
let child: { kill: (signal?: number | NodeJS.Signals) => void; exited: Promise<number> };
let c: TestController;
const cleanups: (() => void)[] = [];

async function json<T>(path: string, init: { method?: string; json?: unknown; token?: string | null } = {}, status = 200): Promise<T> {
  const response = await c.api(path, init);
  const text = await response.text();
  if (response.status !== status) throw new Error(`${init.method ?? 'GET'} ${path} answered ${response.status} (wanted ${status}): ${text}`);
  return JSON.parse(text) as T;
}

const statusOf = async (group: string) => (await json<{ groups: GroupStatus[] }>('/api/scaling/status')).groups.find((g) => g.group === group)!;
const scheduleOf = (group: string) => json<Schedule>(`/api/scaling/schedules/${group}`);
const readyOf = async (group: string) => (await json<{ services: { groupName: string; state: string }[] }>('/api/services')).services.filter((s) => s.groupName === group && s.state === 'READY').length;
const fileOf = (group: string) => join(dir, 'config', 'modules', 'scaling', `${group}.toml`);

/** A group's file written as an operator would: put in place, then `scaling reload`. */
async function putInPlace(group: string, text: string): Promise<void> {
  writeFileSync(fileOf(group), text);
  const reload = await json<{ lines: { text: string }[] }>('/api/commands/scaling/execute', { method: 'POST', json: { args: ['reload'] } });
  expect(JSON.stringify(reload.lines)).toContain('in use');
}

/** A fixed timetable: weekday evenings, a Friday night past midnight overlapping them, a weekend of 24-hour windows. */
const SKYWARS = `[schedule]
enabled = true
timezone = "Europe/Berlin"

[[schedule.rules]]
name = "evenings"
days = ["MON", "TUE", "WED", "THU", "FRI"]
from = "18:00"
to = "23:00"
min_instances = 1
max_instances = 2

[[schedule.rules]]
name = "friday night"
days = ["FRI"]
from = "22:00"
to = "02:00"
min_instances = 2

[[schedule.rules]]
name = "weekend"
days = ["SAT", "SUN"]
from = "10:00"
to = "10:00"
min_instances = 1

[warmup]
enabled = true
lead_time_minutes = 30

[prediction]
enabled = false
percentile = 90
`;

/** A file the module refuses: the rule's maximum is below its minimum. */
const DUELS_BROKEN = `[schedule]
enabled = true
timezone = "UTC"

[[schedule.rules]]
name = "late"
days = ["MON"]
from = "20:00"
to = "22:00"
min_instances = 3
max_instances = 1
`;

/** A day's curve of players, the same each day (the hour of the day decides it). */
const playersAt = (minute: number) => Math.round(12 + 10 * Math.sin(((minute % 1440) / 1440) * 2 * Math.PI));

/**
 * Per-minute samples of `group` as the module stores them (each with its hour's aggregate): the
 * last 24 hours, and from an hour before now to 7 hours after in each of the last 4 weeks (what
 * the predictions read).
 */
function seedSamples(dbFile: string, group: string, now: number): void {
  const db = new Database(dbFile);
  try {
    db.run('INSERT OR IGNORE INTO scaling_groups (name) VALUES (?)', [group]);
    const id = db.query<{ id: number }, [string]>('SELECT id FROM scaling_groups WHERE name = ?').get(group)!.id;
    const insert = db.prepare('INSERT OR IGNORE INTO scaling_samples (group_id, minute, players, services) VALUES (?, ?, ?, ?)');
    const hourly = db.prepare(
      `INSERT INTO scaling_hourly (group_id, hour, samples, players_sum, players_max, services_sum) VALUES (?1, ?2, 1, ?3, ?3, ?4)
       ON CONFLICT (group_id, hour) DO UPDATE SET samples = samples + 1, players_sum = players_sum + ?3, players_max = max(players_max, ?3), services_sum = services_sum + ?4`,
    );
    const add = (minute: number, players: number, services: number) => {
      if (insert.run(id, minute, players, services).changes > 0) hourly.run(id, Math.floor(minute / 60), players, services);
    };
    const nowMinute = Math.floor(now / 60_000);
    db.transaction(() => {
      for (let m = nowMinute - 24 * 60; m < nowMinute; m++) add(m, playersAt(m), 1);
      for (let week = 1; week <= 4; week++) {
        const start = nowMinute - week * 7 * 1440;
        for (let m = start - 60; m < start + 7 * 60; m++) add(m, playersAt(m) + 4 * week, 2);
      }
    })();
    insert.finalize();
    hourly.finalize();
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const svc = await svcBinary();
  const made = tempDir('svc-browser-scaling-');
  dir = made.dir;
  cleanups.push(made.remove);
  // A small tick: a rule's minimum is acted on within a second.
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n[controller]\nscaling_tick_interval = 1\n');
  // The first start makes the module's tables; the history is seeded into them while the controller is stopped.
  const first = await startBinaryController(svc, dir, TOKEN, cleanups);
  first.child.kill('SIGTERM');
  await first.child.exited;
  seedSamples(join(dir, 'data', 'svc.db'), 'Arena', Date.now());
  ({ url, child } = await startBinaryController(svc, dir, TOKEN, cleanups));
  c = binaryController(url, TOKEN);
  const body = { type: 'DYNAMIC', minInstances: 0, playersPerInstance: 10, scaleThreshold: 0.8 };
  for (const [name, max] of [['Arena', 3], ['Skywars', 2], ['Duels', 1]] as const) {
    expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup(name, { ...body, maxInstances: max }) })).status).toBe(201);
  }
  await putInPlace('Skywars', SKYWARS);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  const listed = await json<{ services?: { pid: number | null }[] }>('/api/services').catch(() => ({ services: [] }));
  const pids = (listed.services ?? []).map((s) => s.pid).filter((p): p is number => p !== null);
  // The folder goes last, after the controller and every game server it started.
  const remove = cleanups.shift();
  cleanups.splice(0).reverse().forEach((f) => f());
  if (dir) killGameServers(dir, pids);
  remove?.();
});

/** Signs in with the API token and opens the page (on `group`) through the navigation. */
async function openScaling(page: Page, group?: string): Promise<void> {
  await signIn(page, url, TOKEN);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Scaling', exact: true }).click();
  await page.getByRole('heading', { name: 'Scaling', level: 1 }).waitFor();
  await page.getByRole('region', { name: 'Groups now' }).locator('tbody tr').first().waitFor();
  if (group) await page.getByLabel('Group', { exact: true }).selectOption(group);
  await page.getByRole('grid').or(page.getByRole('region', { name: /^Timetable of/ }).getByRole('alert')).first().waitFor();
}

const grid = (page: Page) => page.getByRole('grid');
const cell = (page: Page, name: string) => grid(page).getByRole('gridcell', { name, exact: true });
const timetable = (page: Page) => page.getByRole('region', { name: /^Timetable of/ });
const ruleForm = (page: Page) => page.getByRole('region', { name: /^(Add a rule to|Edit rule)/ });
const groupRow = (page: Page, group: string) => page.getByRole('region', { name: 'Groups now' }).locator(`tbody tr[data-group="${group}"]`);
const focusedCell = (page: Page) => page.evaluate<string | null>("document.activeElement?.getAttribute('role') === 'gridcell' ? document.activeElement.textContent : null");

/** The answer to the page's next save of `group`'s schedule (PUT /api/scaling/schedules/{group}). */
const nextSave = (page: Page, group: string): Promise<Response> =>
  page.waitForResponse((r) => r.request().method() === 'PUT' && new URL(r.url()).pathname === `/api/scaling/schedules/${group}`, { timeout: 15_000 });

describe('the week grid', () => {
  test('a DYNAMIC group’s schedule is drawn hour by hour as the API answers it, and the keyboard moves over it', async () => {
    const held = await scheduleOf('Skywars');
    expect(held.rules.map((r) => [r.name, r.days, r.from, r.to, r.minInstances, r.maxInstances])).toEqual([
      ['evenings', ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'], '18:00', '23:00', 1, 2],
      ['friday night', ['FRIDAY'], '22:00', '02:00', 2, null],
      ['weekend', ['SATURDAY', 'SUNDAY'], '10:00', '10:00', 1, null],
    ]);
    expect(held.warmup).toEqual({ enabled: true, leadTimeMinutes: 30 });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openScaling(page, 'Skywars');
    expect(await grid(page).getAttribute('aria-label')).toBe('Week of Skywars: rules by day and hour, times in Europe/Berlin');
    // Every hour of the week says what covers it: the overlap, the part past midnight on the next day, the warm-up strips, the 24-hour windows.
    const expected: [string, string][] = [
      ['Monday 18:00 to 19:00', 'rule evenings (at least 1, at most 2)'],
      ['Monday 17:00 to 18:00', 'warm-up for rule evenings from 17:30'],
      ['Monday 09:00 to 10:00', 'rule weekend (at least 1)'],
      ['Monday 10:00 to 11:00', 'no rule'],
      ['Thursday 12:00 to 13:00', 'no rule'],
      ['Friday 21:00 to 22:00', 'rule evenings (at least 1, at most 2); warm-up for rule friday night from 21:30'],
      ['Friday 22:00 to 23:00', 'rule evenings (at least 1, at most 2); rule friday night (at least 2)'],
      ['Friday 23:00 to 24:00', 'rule friday night (at least 2)'],
      ['Saturday 01:00 to 02:00', 'rule friday night (at least 2)'],
      ['Saturday 02:00 to 03:00', 'no rule'],
      ['Saturday 09:00 to 10:00', 'warm-up for rule weekend from 09:30'],
      ['Sunday 03:00 to 04:00', 'rule weekend (at least 1)'],
    ];
    const names = await grid(page).getByRole('gridcell').allTextContents();
    expect(names).toHaveLength(7 * 24);
    for (const [hour, what] of expected) expect(names).toContain(`${hour}: ${what}`);
    expect(await cell(page, 'Friday 22:00 to 23:00: rule evenings (at least 1, at most 2); rule friday night (at least 2)').count()).toBe(1);
    // The blocks: Friday night drawn twice (Friday's evening, Saturday's early hours), beside the evenings where they overlap.
    const night = page.locator('.sc-block[data-rule="friday night"][data-kind="rule"]');
    expect(await night.count()).toBe(2);
    const [evening, overlap] = await Promise.all([page.locator('.sc-week-day').nth(4).locator('.sc-block[data-rule="evenings"][data-kind="rule"]').boundingBox(), night.first().boundingBox()]);
    expect(overlap!.x).toBeGreaterThanOrEqual(evening!.x + evening!.width - 1);
    // The rules as a list, in the API's order.
    expect(await timetable(page).locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule')))).toEqual(held.rules.map((r) => r.name));

    // The keyboard: from Thursday noon to Friday 22:00, then Enter opens the rule with the highest minimum there.
    await cell(page, 'Thursday 12:00 to 13:00: no rule').focus();
    await page.keyboard.press('ArrowRight');
    expect(await focusedCell(page)).toBe('Friday 12:00 to 13:00: no rule');
    await page.keyboard.press('PageDown');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    expect(await focusedCell(page)).toBe('Friday 22:00 to 23:00: rule evenings (at least 1, at most 2); rule friday night (at least 2)');
    await page.keyboard.press('Enter');
    const form = ruleForm(page);
    await form.getByRole('heading', { name: 'Edit rule “friday night”' }).waitFor();
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('sc-rule-name');
    expect(await form.getByLabel('Name').inputValue()).toBe('friday night');
    expect(await form.getByLabel('Opens at').inputValue()).toBe('22:00');
    expect(await form.getByLabel('Closes at').inputValue()).toBe('02:00');
    await form.getByText('Open 22:00 to 02:00 the next day.').waitFor();
    expect(await form.getByLabel('Friday').isChecked()).toBe(true);
    expect(await form.getByLabel('Saturday').isChecked()).toBe(false);
    expect(await form.getByLabel('Minimum instances').inputValue()).toBe('2');
    expect(await form.getByLabel('Maximum instances').inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
    await waitForInPage(page, "document.activeElement?.getAttribute('data-day') === '4' && document.activeElement?.getAttribute('data-hour') === '22'", 'the hour cell Fri 22:00 focused');
    // An empty hour: Enter adds a rule there.
    await page.keyboard.press('Home');
    await page.keyboard.press('PageUp');
    expect(await focusedCell(page)).toBe('Monday 16:00 to 17:00: no rule');
    await page.keyboard.press('Enter');
    await form.getByRole('heading', { name: 'Add a rule to Skywars' }).waitFor();
    expect(await form.getByLabel('Monday').isChecked()).toBe(true);
    expect([await form.getByLabel('Opens at').inputValue(), await form.getByLabel('Closes at').inputValue()]).toEqual(['16:00', '17:00']);
    await form.getByRole('button', { name: 'Cancel' }).click();
    // A block clicked edits its rule.
    await page.locator('.sc-block[data-rule="weekend"][data-kind="rule"]').first().click();
    await form.getByRole('heading', { name: 'Edit rule “weekend”' }).waitFor();
    await form.getByText('Open 24 hours from 10:00.').waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'scaling-grid-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('the chart', () => {
  test('players actual and predicted draw in one chart, named with the samples behind them', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openScaling(page, 'Arena');
    const chart = page.getByRole('img', { name: /^Players of Arena: / });
    await chart.locator('canvas').first().waitFor();
    // The name says what the API answers (a sample is added each minute: read both until they agree).
    const expected = async () => {
      const history = await json<History>('/api/scaling/history/Arena?hours=24');
      const ahead = await json<Predictions>('/api/scaling/predictions/Arena');
      const hours = history.snapshots;
      const samples = hours.reduce((n, h) => n + h.samples, 0);
      const basis = ahead.predictions.reduce((n, p) => n + p.dataPoints, 0);
      expect(hours.length).toBeGreaterThanOrEqual(24);
      expect(basis).toBeGreaterThanOrEqual(4 * 5 * 60);
      return (
        `Players of Arena: actual players in ${hours.length} hours of the last 24 from ${samples} samples ` +
        `(latest hour ${hours.at(-1)!.playerCount}, peak ${Math.max(...hours.map((h) => h.peakPlayerCount))}); ` +
        `predicted players for the next ${ahead.predictions.length} hours from ${basis} samples (p${ahead.percentile}), up to ${Math.max(...ahead.predictions.map((p) => p.predictedPlayers))}.`
      );
    };
    let last = '';
    await waitFor(
      async () => {
        const [want, shown] = await Promise.all([expected(), chart.getAttribute('aria-label')]);
        last = `${shown} ≠ ${want}`;
        if (shown === want) return true;
        await page.getByRole('button', { name: 'Read again' }).click();
        return false;
      },
      { timeoutMs: 20_000, intervalMs: 500, what: 'the chart named with the API’s figures' },
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${last}`);
    });
    // uPlot's three series: the mean, the peak and the prediction.
    expect(await page.locator('.sc-chart .u-legend .u-series').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Players (hourly mean)'), expect.stringContaining('Peak'), expect.stringContaining('Predicted')]));
    const box = await chart.locator('canvas').first().boundingBox();
    expect(box!.width).toBeGreaterThan(600);
    await page.screenshot({ path: join(screenshotDir(), 'scaling-chart-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('a schedule edit', () => {
  test('warm-up settings and a rule covering now with a higher minimum are saved from the page (200, in words, in the group’s file); the effective minimum rises, instances start, the log says why', async () => {
    expect(await statusOf('Arena')).toMatchObject({ enabled: false, minInstances: 0, effectiveMinInstances: 0, effectiveSource: null, problem: null });
    const zone = (await scheduleOf('Arena')).timezone;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openScaling(page, 'Arena');
    expect(await groupRow(page, 'Arena').locator('td[data-field="min"]').textContent()).toBe('0 the group’s own');

    // The settings: the rules apply, warm-up 5 minutes ahead.
    const settings = page.getByRole('region', { name: 'Warm-up and prediction of Arena' });
    await settings.getByLabel('The rules apply').check();
    await settings.getByLabel('Minutes ahead').fill('5');
    const settingsSaved = nextSave(page, 'Arena');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    expect((await settingsSaved).status()).toBe(200);
    await settings.getByRole('status').filter({ hasText: `Settings of Arena saved: the rules apply, times in ${zone}, warm-up 5 min ahead, no prediction.` }).waitFor();
    expect(await settings.getByRole('alert').count()).toBe(0);
    expect(await scheduleOf('Arena')).toMatchObject({ enabled: true, timezone: zone, warmup: { enabled: true, leadTimeMinutes: 5 }, rules: [] });
    // Written as the group's file, which the module reads.
    expect(readFileSync(fileOf('Arena'), 'utf8')).toMatch(/^lead_time_minutes = 5$/m);
    // The form holds what was saved: nothing left to save.
    expect(await settings.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true);
    expect(await settings.getByLabel('Minutes ahead').inputValue()).toBe('5');

    // A rule covering every hour of the week, with a minimum of 2.
    await timetable(page).getByRole('button', { name: 'Add a rule' }).click();
    const form = ruleForm(page);
    await form.getByLabel('Name').fill('rush');
    await form.getByRole('button', { name: 'Every day' }).click();
    await form.getByLabel('Opens at').fill('00:00');
    await form.getByLabel('Closes at').fill('00:00');
    await form.getByText('Open all day.').waitFor();
    await form.getByLabel('Minimum instances').fill('2');
    const ruleSaved = nextSave(page, 'Arena');
    await form.getByRole('button', { name: 'Add rule' }).click();
    const answer = await ruleSaved;
    expect(answer.status()).toBe(200);
    const rush = { name: 'rush', days: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'], from: '00:00', to: '00:00', minInstances: 2, maxInstances: null };
    expect(((await answer.json()) as Schedule).rules).toEqual([rush]);
    // Said in words where the form was; the form has done its work.
    await timetable(page).getByRole('status').filter({ hasText: 'Rule “rush” added to Arena: every day, all day, at least 2 instances. The controller uses it from now on.' }).waitFor();
    expect(await ruleForm(page).count()).toBe(0);
    await page.screenshot({ path: join(screenshotDir(), 'scaling-saved-1280.png'), fullPage: true });

    // The API: the rule is held (in the group's file too), in force, and raises the minimum the engine works with at once.
    expect((await scheduleOf('Arena')).rules).toEqual([rush]);
    expect(readFileSync(fileOf('Arena'), 'utf8')).toContain('[[schedule.rules]]\nname = "rush"\n');
    expect(await statusOf('Arena')).toMatchObject({ activeRule: { name: 'rush', minInstances: 2, isWarmup: false }, minInstances: 0, effectiveMinInstances: 2, effectiveSource: 'schedule rule "rush"' });
    // The engine starts them (a tick a second).
    await waitFor(async () => (await readyOf('Arena')) === 2, { timeoutMs: 45_000, intervalMs: 250, what: 'two Arena instances READY' });

    // The page, kept current by the events of the start: the minimum, the rule in force, the running instances, the grid.
    const min = groupRow(page, 'Arena').locator('td[data-field="min"]');
    await waitFor(async () => (await min.textContent()) === '2 raised from 0 by schedule rule "rush"', { timeoutMs: 15_000, intervalMs: 100, what: 'the page’s minimum of Arena raised to 2' });
    expect(await groupRow(page, 'Arena').locator('td[data-label="Rule"]').textContent()).toBe('in force: rush');
    await groupRow(page, 'Arena').locator('td[data-label="Running"]').filter({ hasText: /^2$/ }).waitFor({ timeout: 15_000 });
    await cell(page, 'Wednesday 13:00 to 14:00: rule rush (at least 2)').waitFor();
    await timetable(page).getByText('In force now: rush (at least 2).').waitFor();

    // The decisions log: the scale-up with its reason, as the API stored it, and smart scaling's own line.
    const stored = (await json<{ decisions: Decision[] }>('/api/scaling/decisions?group=Arena')).decisions;
    const up = stored.find((d) => d.action === 'scale_up')!;
    expect(up).toMatchObject({ group: 'Arena', source: 'engine', servicesStarted: 2 });
    expect(up.reason).toBe('below the minimum of schedule rule "rush" (0 of 2)');
    const smart = stored.find((d) => d.action === 'smart_schedule')!;
    expect(smart.reason).toBe('schedule "rush" active (min=2, had 0)');
    const log = page.getByRole('region', { name: 'Decisions' });
    const upRow = log.locator('tbody tr[data-action="scale_up"][data-group="Arena"]').first();
    await upRow.waitFor({ timeout: 15_000 });
    expect(await upRow.locator('td[data-label="Why"]').textContent()).toBe(up.reason);
    expect(await upRow.locator('td[data-label="Decision"]').textContent()).toBe('Scale-up by the autoscaler');
    expect(await upRow.locator('td[data-label="Started"]').textContent()).toBe('2');
    expect(await upRow.locator('time').getAttribute('datetime')).toBe(up.timestamp);
    const smartRow = log.locator('tbody tr[data-action="smart_schedule"][data-group="Arena"]').first();
    expect(await smartRow.locator('td[data-label="Why"]').textContent()).toBe(smart.reason);
    expect(await smartRow.locator('td[data-label="Decision"]').textContent()).toBe('Schedule start by a schedule rule');
    // Only Arena's.
    await log.getByLabel('Of', { exact: true }).selectOption('selected');
    await log.getByText(`the newest ${stored.length} of ${stored.length} decision${stored.length === 1 ? '' : 's'}`).waitFor();
    expect(await log.locator('tbody tr[data-group]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-group')))).toEqual(stored.map(() => 'Arena'));
    await page.screenshot({ path: join(screenshotDir(), 'scaling-edited-1280.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 120_000);
});

describe('refusals', () => {
  test('a bad rule is refused at its field before anything is sent; a file the module cannot use is named in the API’s words', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    const writes: string[] = [];
    page.on('request', (request) => request.method() !== 'GET' && request.url().includes('/api/scaling') && writes.push(`${request.method()} ${request.url()}`));
    await openScaling(page, 'Arena');
    await timetable(page).getByRole('button', { name: 'Add a rule' }).click();
    const form = ruleForm(page);
    await form.getByLabel('Name').fill('RUSH');
    await form.getByLabel('Minimum instances').fill('3');
    await form.getByLabel('Maximum instances').fill('1');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.getByRole('alert').filter({ hasText: 'Not saved: some fields need a change (marked above).' }).waitFor();
    const name = form.getByLabel('Name');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#sc-rule-name-hint').textContent()).toBe('Another rule is already named “RUSH”: names must be unique (ignoring case).');
    expect(await form.getByLabel('Maximum instances').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#sc-rule-max-hint').textContent()).toBe('The maximum (1) is below the minimum (3).');
    // The first field with a problem has the focus, so its words are read out.
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('sc-rule-name');
    await form.getByLabel('Maximum instances').fill('');
    await form.getByLabel('Minimum instances').fill('20000');
    expect(await page.locator('#sc-rule-min-hint').textContent()).toBe('A whole number from 0 to 10000.');
    await page.screenshot({ path: join(screenshotDir(), 'scaling-refused-1280.png') });
    expect(writes).toEqual([]);

    // A file the module cannot use: GET /api/scaling/status names the rule and the key, and the page says it in those words.
    await putInPlace('Duels', DUELS_BROKEN);
    const duels = await statusOf('Duels');
    expect(duels.problem).toBe('schedule.rules[1] ("late").max_instances (1) is below min_instances (3)');
    await page.getByRole('button', { name: 'Read again' }).click();
    await groupRow(page, 'Duels').getByRole('note').filter({ hasText: `Smart scaling is off for Duels: ${duels.problem}` }).waitFor();
    await page.getByLabel('Group', { exact: true }).selectOption('Duels');
    const alert = timetable(page).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`Smart scaling is off for Duels: ${duels.problem}. Fix the file on the controller, then run “scaling reload” in its console.`);
    expect(writes).toEqual([]);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('a dashboard session', () => {
  test('holding only svc.dashboard.scaling.view, it reads the page and is told it may not change schedules', async () => {
    const viewer = testPlayer(0x301, 'Watcher');
    await bringOnline(c, viewer);
    await grant(c, viewer, ['svc.dashboard.scaling.view']);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, viewer));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Scaling', exact: true }).click();
    await page.getByRole('heading', { name: 'Scaling', level: 1 }).waitFor();
    await page.getByLabel('Group', { exact: true }).selectOption('Arena');
    await grid(page).waitFor();
    await timetable(page).getByText('Your account may not change schedules: that needs the permission svc.dashboard.scaling.manage.').waitFor();
    await page.getByText('Not kept current by events: the live event stream needs the permission svc.dashboard.overview.', { exact: false }).waitFor();
    // What it may not do is said, not offered.
    expect(await page.getByRole('button', { name: /^(Add a rule|Edit rule|Save settings|Add rule)/ }).count()).toBe(0);
    expect(await page.getByLabel('The rules apply').isDisabled()).toBe(true);
    expect(await grid(page).getAttribute('aria-readonly')).toBe('true');
    await cell(page, 'Tuesday 08:00 to 09:00: rule rush (at least 2)').focus();
    await page.keyboard.press('Enter');
    expect(await ruleForm(page).count()).toBe(0);
    // The minimum now, without the groups' own figures (it may not read groups: nothing is asked for them).
    expect(await groupRow(page, 'Arena').locator('td[data-field="min"]').textContent()).toBe('2 raised from 0 by schedule rule "rush"');
    expect(await page.getByRole('columnheader', { name: 'Running' }).count()).toBe(0);
    // Through the API: the session reads, and may not save a schedule (the schedule as it is, refused for who sends it).
    const token = await page.evaluate<string | null>("localStorage.getItem('svc.token')");
    expect((await c.api('/api/scaling/status', { token })).status).toBe(200);
    const { group: _, ...held } = await scheduleOf('Arena');
    const put = await c.api('/api/scaling/schedules/Arena', { method: 'PUT', token, json: held });
    expect(put.status).toBe(403);
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'scaling-session-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('layout', () => {
  for (const [width, height] of [
    [1280, 900],
    [390, 844],
  ] as const) {
    test(`${width} px, light and dark: nothing scrolls sideways but the week grid’s own box on a phone`, async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      const problems = new PageProblems(page);
      await openScaling(page, 'Skywars');
      await page.getByRole('img', { name: /^Players of Skywars: / }).locator('canvas').first().waitFor();
      await timetable(page).getByRole('button', { name: 'Edit rule friday night' }).click();
      await ruleForm(page).waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await pageScrollWidth(page)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: join(screenshotDir(), `scaling-${width}-${scheme}.png`), fullPage: true });
      }
      // Every control of the page has a name: its text, its label or aria-label.
      const unnamed = await page.evaluate<string[]>(`[...document.querySelectorAll('.sc-page button, .sc-page input, .sc-page select, .sc-page textarea, .sc-page a, .sc-page [role="gridcell"]')]
        .filter((el) => !((el.labels && el.labels.length > 0) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.textContent.trim() !== ''))
        .map((el) => el.outerHTML.slice(0, 120))`);
      expect(unnamed).toEqual([]);
      const box = await page.locator('.sc-week-box').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      if (width === 390) expect(box.scroll).toBeGreaterThan(box.client);
      else expect(box.scroll).toBeLessThanOrEqual(box.client);
      expect(problems.problems).toEqual([]);
      await page.close();
    }, 60_000);
  }
});

describe('saving through PUT /api/scaling/schedules/{group}', () => {
  test('a rule covering now changed from the page is answered 200: the effective minimum rises at once (the API and the page), the instances start, and another page open on the group follows from SMART_SCHEDULE_SAVED', async () => {
    expect(await statusOf('Arena')).toMatchObject({ activeRule: { name: 'rush', minInstances: 2 }, effectiveMinInstances: 2 });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const other = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = [new PageProblems(page), new PageProblems(other)];
    await openScaling(page, 'Arena');
    await openScaling(other, 'Arena');
    await cell(other, 'Wednesday 13:00 to 14:00: rule rush (at least 2)').waitFor();

    // The minimum of the rule in force, from 2 to 3 (the group's maximum).
    await timetable(page).getByRole('button', { name: 'Edit rule rush' }).click();
    const form = ruleForm(page);
    await form.getByRole('heading', { name: 'Edit rule “rush”' }).waitFor();
    await form.getByLabel('Minimum instances').fill('3');
    const saved = nextSave(page, 'Arena');
    await form.getByRole('button', { name: 'Save rule' }).click();
    const answer = await saved;
    expect(answer.status()).toBe(200);
    expect(((await answer.json()) as Schedule).rules).toEqual([expect.objectContaining({ name: 'rush', minInstances: 3, maxInstances: null })]);
    await timetable(page).getByRole('status').filter({ hasText: 'Rule “rush” of Arena saved: every day, all day, at least 3 instances. The controller uses it from now on.' }).waitFor();
    expect(await ruleForm(page).count()).toBe(0);
    // In force at once: the held schedule, its file, the minimum the engine works with.
    expect((await scheduleOf('Arena')).rules.map((r) => [r.name, r.minInstances, r.maxInstances])).toEqual([['rush', 3, null]]);
    expect(readFileSync(fileOf('Arena'), 'utf8')).toMatch(/^min_instances = 3$/m);
    expect(await statusOf('Arena')).toMatchObject({ activeRule: { name: 'rush', minInstances: 3, isWarmup: false }, minInstances: 0, effectiveMinInstances: 3, effectiveSource: 'schedule rule "rush"' });
    const audit = await json<{ entries: { actor: string; action: string; target: string }[] }>('/api/audit?action=SMART_SCHEDULE_SAVED');
    expect(audit.entries[0]).toMatchObject({ action: 'SMART_SCHEDULE_SAVED', target: 'Arena' });
    // The page says the new minimum, and the third instance starts.
    const min = groupRow(page, 'Arena').locator('td[data-field="min"]');
    await waitFor(async () => (await min.textContent()) === '3 raised from 0 by schedule rule "rush"', { timeoutMs: 15_000, intervalMs: 100, what: 'the page’s minimum of Arena raised to 3' });
    await cell(page, 'Wednesday 13:00 to 14:00: rule rush (at least 3)').waitFor();
    await waitFor(async () => (await readyOf('Arena')) === 3, { timeoutMs: 45_000, intervalMs: 250, what: 'three Arena instances READY' });
    await groupRow(page, 'Arena').locator('td[data-label="Running"]').filter({ hasText: /^3$/ }).waitFor({ timeout: 15_000 });
    await timetable(page).getByText('In force now: rush (at least 3).').waitFor();

    // A change that starts nothing (a maximum of 3 with 3 running): the other page, never read
    // again by hand, follows from SMART_SCHEDULE_SAVED alone.
    await cell(other, 'Wednesday 13:00 to 14:00: rule rush (at least 3)').waitFor({ timeout: 15_000 });
    await timetable(page).getByRole('button', { name: 'Edit rule rush' }).click();
    await form.getByLabel('Maximum instances').fill('3');
    const capped = nextSave(page, 'Arena');
    await form.getByRole('button', { name: 'Save rule' }).click();
    expect((await capped).status()).toBe(200);
    await timetable(page).getByRole('status').filter({ hasText: 'Rule “rush” of Arena saved: every day, all day, at least 3 instances, at most 3. The controller uses it from now on.' }).waitFor();
    await cell(other, 'Wednesday 13:00 to 14:00: rule rush (at least 3, at most 3)').waitFor({ timeout: 15_000 });
    await timetable(other).getByText('In force now: rush (at least 3, at most 3).').waitFor({ timeout: 15_000 });
    expect(await readyOf('Arena')).toBe(3);
    await other.screenshot({ path: join(screenshotDir(), 'scaling-followed-390.png'), fullPage: true });
    expect(problems.flatMap((p) => p.problems)).toEqual([]);
    await page.close();
    await other.close();
  }, 120_000);

  test('a time zone this browser knows but the controller does not is refused (400) in the API’s words at the field it names; nothing changes', async () => {
    const before = await scheduleOf('Arena');
    const file = readFileSync(fileOf('Arena'), 'utf8');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/^400 PUT \/api\/scaling\/schedules\/Arena$|status of 400 \(Bad Request\)/);
    await openScaling(page, 'Arena');
    // Names outside the IANA list that Chromium's zone data still takes (the page's own check lets them through).
    const zone = await page.evaluate<string | undefined, string[]>(
      (names) =>
        names.find((z) => {
          try {
            new Intl.DateTimeFormat('en-US', { timeZone: z });
            return true;
          } catch {
            return false;
          }
        }),
      ['SystemV/EST5', 'Factory', 'SystemV/PST8PDT'],
    );
    expect(zone).toBeDefined();
    const settings = page.getByRole('region', { name: 'Warm-up and prediction of Arena' });
    const field = settings.getByLabel('Time zone');
    await field.fill(zone!);
    const sent = nextSave(page, 'Arena');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    const answer = await sent;
    expect(answer.status()).toBe(400);
    const refusal = (await answer.json()) as { success: boolean; error: string; message: string };
    expect(refusal).toEqual({ success: false, error: 'VALIDATION_FAILED', message: `schedule.timezone must be an IANA time zone such as "Europe/Berlin" or "UTC", not "${zone}"` });
    // Its words at the field it names (which takes the focus), and the form says where they are.
    await settings.getByRole('alert').filter({ hasText: 'Not saved: the controller refused a setting (its words are at the field).' }).waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#sc-set-zone-hint').textContent()).toBe(`Not saved (VALIDATION_FAILED): ${refusal.message}.`);
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('sc-set-zone');
    await page.screenshot({ path: join(screenshotDir(), 'scaling-refused-zone-1280.png') });
    // Nothing changed: the schedule, its file, the page's timetable.
    expect(await scheduleOf('Arena')).toEqual(before);
    expect(readFileSync(fileOf('Arena'), 'utf8')).toBe(file);
    expect(await grid(page).getAttribute('aria-label')).toBe(`Week of Arena: rules by day and hour, times in ${before.timezone}`);
    // Changed back, the refusal is gone with it.
    await settings.getByRole('button', { name: 'Undo changes' }).click();
    await settings.getByRole('alert').waitFor({ state: 'detached' });
    expect(await field.inputValue()).toBe(before.timezone);
    expect(await field.getAttribute('aria-invalid')).toBe('false');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('a session that holds only svc.dashboard.scaling.view by the time it saves is refused (403) in words; nothing changes', async () => {
    // .view for good, .manage through a group of its own, taken away while the page is open.
    const planner = testPlayer(0x302, 'Planner');
    await bringOnline(c, planner);
    await grant(c, planner, ['svc.dashboard.scaling.view']);
    await json('/api/permissions/groups', { method: 'POST', json: { name: 'scalingplanners' } }, 201);
    await json('/api/permissions/groups/scalingplanners/permissions', { method: 'POST', json: { permission: 'svc.dashboard.scaling.manage' } });
    await json(`/api/permissions/players/${planner.uuid}/groups`, { method: 'POST', json: { group: 'scalingplanners' } });
    const before = await scheduleOf('Arena');
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    problems.expect(/^403 PUT \/api\/scaling\/schedules\/Arena$|status of 403 \(Forbidden\)/);
    await page.goto(`${url}/`);
    await page.getByLabel('Code', { exact: true }).fill(await loginCode(c, planner));
    await page.getByRole('button', { name: 'Sign in with the code' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Scaling', exact: true }).click();
    await page.getByRole('heading', { name: 'Scaling', level: 1 }).waitFor();
    await page.getByLabel('Group', { exact: true }).selectOption('Arena');
    await timetable(page).getByRole('button', { name: 'Edit rule rush' }).click();
    const form = ruleForm(page);
    await form.getByRole('heading', { name: 'Edit rule “rush”' }).waitFor();
    await form.getByLabel('Minimum instances').fill('1');

    await json(`/api/permissions/players/${planner.uuid}/groups`, { method: 'DELETE', json: { group: 'scalingplanners' } });
    const token = await page.evaluate<string | null>("localStorage.getItem('svc.token')");
    const me = await json<{ permissions: string[]; isAdmin: boolean }>('/api/auth/me', { token });
    expect(me.isAdmin).toBe(false);
    expect(me.permissions).toContain('svc.dashboard.scaling.view');
    expect(me.permissions).not.toContain('svc.dashboard.scaling.manage');

    const sent = nextSave(page, 'Arena');
    await form.getByRole('button', { name: 'Save rule' }).click();
    const answer = await sent;
    expect(answer.status()).toBe(403);
    const refusal = (await answer.json()) as { message: string };
    expect(refusal.message).toContain('svc.dashboard.scaling.manage');
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`Not saved: your account may not do this. ${refusal.message.replace(/[^.!?]$/, '$&.')} Ask an admin of this network for that permission.`);
    // The form stays with the change, so nothing typed is lost; nothing changed on the controller.
    expect(await form.getByLabel('Minimum instances').inputValue()).toBe('1');
    expect(await scheduleOf('Arena')).toEqual(before);
    expect((await statusOf('Arena')).effectiveMinInstances).toBe(3);
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'scaling-forbidden-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('uninstalled', () => {
  test('after POST /api/modules/uninstall/scaling and a restart, the link is gone and /scaling says the module does not run', async () => {
    await json('/api/modules/uninstall/scaling', { method: 'POST' });
    child.kill('SIGTERM');
    await child.exited;
    const svc = await svcBinary();
    ({ url, child } = await startBinaryController(svc, dir, TOKEN, cleanups));
    c = binaryController(url, TOKEN);
    expect((await c.api('/api/scaling/status')).status).toBe(404);
    await expectModulePageAbsent(browser, url, TOKEN, { link: 'Scaling', path: '/scaling', module: 'scaling', screenshot: 'scaling-uninstalled-1280.png' });
  }, 60_000);
});
