/**
 * The Groups and Dedicated pages in a real browser (issue 41), against the compiled binary.
 *
 * First, without a browser: each form field refuses exactly what the API refuses (the form's
 * table against the server's TypeBox schemas and cross-field rules, value by value), so the
 * browser's checks cannot drift from the API's. Then, in Chromium: a group created through the
 * form (what the browser refuses is said at the field and nothing is sent; what the API refuses
 * anyway is shown in its words), edited (only the changed fields are sent) and deleted after a
 * confirmation; a delete refused with 409 while a fake-paper instance runs, explained; a
 * dedicated service created, started, refused deletion while it runs, stopped, edited and
 * deleted. Screenshots of both pages' list and form at 1280 and 390 px (no sideways scrolling).
 * Every upstream is a closed port, so the version lists answer 503 and the forms take typed
 * versions (the lists themselves: software-modpacks.browser.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import type { Browser, Page } from 'playwright-core';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, screenshotDir } from '../support/browser';
import { OFFLINE_UPSTREAM, tempDir, waitFor } from '../support/controller';
import { FAKE_PAPER, fakePaperGroup } from '../fixtures/fake-paper-group';
import { bodyOf, fieldProblem, type Problems, type RawValue, type RawValues, type Specs } from '../../src/dashboard/app/forms/fields';
import { GROUP_DEFAULTS, GROUP_KEYS, GROUP_SPECS, groupCrossCheck } from '../../src/dashboard/app/pages/groups/rules';
import { DEDICATED_DEFAULTS, DEDICATED_KEYS, DEDICATED_SPECS, dedicatedCrossCheck } from '../../src/dashboard/app/pages/dedicated/rules';
import { bodyValues, crossFieldProblem, GROUP_FIELDS, GroupBodySchema, groupDefaults, normalizeGroup, type Group } from '../../src/core/groups/model';
import { DEDICATED_FIELDS, DedicatedBodySchema, dedicatedBodyValues, dedicatedDefaults, dedicatedProblem, type Dedicated } from '../../src/core/dedicated/model';

const TOKEN = 'groups-dedicated-browser-token-0123456789';

describe('the forms check what the API checks', () => {
  const long = (n: number) => 'x'.repeat(n);
  /** Values every kind of field is tried with: inside, on and past each limit, and malformed. */
  function samples(key: string, specs: Specs): RawValue[] {
    const spec = specs[key]!;
    switch (spec.kind) {
      case 'bool':
        return [true, false];
      case 'choice':
        return [...spec.options, 'nope', '', spec.options[0]!.toLowerCase()];
      case 'int':
      case 'number':
        // An empty number is refused by the form (it always holds one); the API would take its default.
        return ['0', '1', '-1', '0.5', '1.5', 'abc', '1e3', String(spec.min), String(spec.max), String(spec.max + 1), String(spec.min - 1)];
      case 'text':
        return ['', 'Lobby', ' Lobby ', 'bed wars', 'a/b', '.hidden', 'server.jar', long(32), long(33), long(64), long(65), long(128), long(129), long(256), long(257), long(1025), '1.21', '1.21.4', '1.21.4-rc1', '1.x', '2G', '512m', '0G', '12', '(', '[a-z]+ done'];
      case 'list':
        return ['', 'a', 'a\n\nb', 'ok-name\n.hidden', 'a/b', long(256), long(257), long(4097), Array.from({ length: 65 }, (_, i) => `a${i}`).join('\n'), Array.from({ length: 64 }, (_, i) => `a${i}`).join('\n')];
    }
  }

  function agree(specs: Specs, values: RawValues, cross: (v: RawValues) => Problems, api: (body: Record<string, unknown>) => boolean, keys: readonly string[]) {
    const browserOk = keys.every((key) => fieldProblem(specs[key]!, values[key] ?? '') === null) && Object.keys(cross(values)).length === 0;
    return { browserOk, apiOk: api(bodyOf(specs, values, keys)) };
  }

  const groupApi = (body: Record<string, unknown>) => {
    if (!Value.Check(GroupBodySchema, body)) return false;
    return crossFieldProblem(normalizeGroup({ ...groupDefaults(), ...bodyValues(body as never) } as Group)) === null;
  };
  const dedicatedApi = (body: Record<string, unknown>) => Value.Check(DedicatedBodySchema, body) && dedicatedProblem({ ...dedicatedDefaults(), ...dedicatedBodyValues(body as never) } as Dedicated) === null;
  const groupBase: RawValues = { ...GROUP_DEFAULTS, name: 'Lobby', version: '1.21.4' };
  const dedicatedBase: RawValues = { ...DEDICATED_DEFAULTS, name: 'Survival', port: '25570', version: '1.21.4' };

  test('a group field for every field the API takes, in its order, with its defaults', () => {
    expect(GROUP_KEYS).toEqual(Object.keys(GROUP_FIELDS) as typeof GROUP_KEYS);
    const sent = bodyOf(GROUP_SPECS, GROUP_DEFAULTS, GROUP_KEYS);
    for (const [key, field] of Object.entries(GROUP_FIELDS)) if (key !== 'name' && key !== 'version') expect([key, sent[key]]).toEqual([key, field.default]);
  });

  test('a dedicated field for every field the API takes, in its order, with its defaults', () => {
    expect(DEDICATED_KEYS).toEqual(Object.keys(DEDICATED_FIELDS) as typeof DEDICATED_KEYS);
    const sent = bodyOf(DEDICATED_SPECS, DEDICATED_DEFAULTS, DEDICATED_KEYS);
    for (const [key, field] of Object.entries(DEDICATED_FIELDS)) if (!['name', 'port', 'version'].includes(key)) expect([key, sent[key]]).toEqual([key, field.default]);
  });

  test('each group value the browser refuses the API refuses, and the other way round', () => {
    const disagreements: string[] = [];
    for (const key of GROUP_KEYS) {
      for (const value of samples(key, GROUP_SPECS)) {
        const { browserOk, apiOk } = agree(GROUP_SPECS, { ...groupBase, [key]: value }, groupCrossCheck, groupApi, GROUP_KEYS);
        if (browserOk !== apiOk) disagreements.push(`${key}=${JSON.stringify(value)}: browser ${browserOk}, API ${apiOk}`);
      }
    }
    // The rules across fields, both ways.
    const combos: RawValues[] = [
      { minInstances: '5', maxInstances: '4' },
      { minInstances: '4', maxInstances: '4' },
      { software: 'CUSTOM' },
      { software: 'CUSTOM', jarName: 'server.jar' },
      { software: 'CUSTOM', startCommand: 'java\n-jar' },
      { readyPattern: '(unclosed' },
    ];
    for (const combo of combos) {
      const { browserOk, apiOk } = agree(GROUP_SPECS, { ...groupBase, ...combo }, groupCrossCheck, groupApi, GROUP_KEYS);
      if (browserOk !== apiOk) disagreements.push(`${JSON.stringify(combo)}: browser ${browserOk}, API ${apiOk}`);
    }
    expect(disagreements).toEqual([]);
    // The samples reach both answers for the limits that matter (a sample list that passes everything proves nothing).
    expect(fieldProblem(GROUP_SPECS.maxInstances, '1001')).toBe('Max instances must be between 0 and 1000.');
    expect(groupCrossCheck({ ...groupBase, minInstances: '3', maxInstances: '2' })).toEqual({ maxInstances: 'Max instances must be at least Min instances (3).' });
  });

  test('each dedicated value the browser refuses the API refuses, and the other way round', () => {
    const disagreements: string[] = [];
    const cross = dedicatedCrossCheck([], null);
    for (const key of DEDICATED_KEYS) {
      for (const value of samples(key, DEDICATED_SPECS)) {
        const { browserOk, apiOk } = agree(DEDICATED_SPECS, { ...dedicatedBase, [key]: value }, cross, dedicatedApi, DEDICATED_KEYS);
        if (browserOk !== apiOk) disagreements.push(`${key}=${JSON.stringify(value)}: browser ${browserOk}, API ${apiOk}`);
      }
    }
    for (const combo of [{ software: 'CUSTOM' }, { software: 'CUSTOM', startCommand: 'java' }, { port: '65535' }, { port: '65536' }] as RawValues[]) {
      const { browserOk, apiOk } = agree(DEDICATED_SPECS, { ...dedicatedBase, ...combo }, cross, dedicatedApi, DEDICATED_KEYS);
      if (browserOk !== apiOk) disagreements.push(`${JSON.stringify(combo)}: browser ${browserOk}, API ${apiOk}`);
    }
    expect(disagreements).toEqual([]);
    // DEDICATED_PORT_IN_USE, mirrored from the list the page holds (an edit keeps its own port).
    expect(dedicatedCrossCheck([{ name: 'Other', port: 25570 }], null)(dedicatedBase)).toEqual({ port: 'Port 25570 is already the port of dedicated service Other.' });
    expect(dedicatedCrossCheck([{ name: 'Survival', port: 25570 }], 'Survival')(dedicatedBase)).toEqual({});
  });
});

let browser: Browser;
let url: string;
let dir: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];

const json = async <T = Record<string, unknown>>(path: string) => (await (await api(path)).json()) as T;
const status = async (path: string) => (await api(path)).status;

/** A port nothing listens on now (the OS picks it), for the dedicated service. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const svc = await svcBinary();
  const temp = tempDir('svc-browser-groups-');
  dir = temp.dir;
  cleanups.push(temp.remove);
  // Every upstream at a closed port: the forms' version lists answer 503 and fall back to typing (software-modpacks.browser.ts has the lists).
  const offline = ['papermc_url', 'purpur_url', 'pufferfish_url', 'leaf_url', 'fabric_url', 'forge_url', 'forge_promotions_url', 'neoforge_url', 'mojang_url', 'modrinth_url', 'hangar_url', 'curseforge_url'].map((key) => `${key} = "${OFFLINE_UPSTREAM}"`);
  writeFileSync(join(dir, 'svc.toml'), ['[network]', 'name = "Groups Network"', '[api]', 'port = 0', '[services]', 'isolation = "none"', '[software]', ...offline, ''].join('\n'));
  const controller = await startBinaryController(svc, dir, TOKEN, cleanups);
  url = controller.url;
  api = controller.api;
  // Arena: a group with one fake-paper instance running, so its delete is refused (409).
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(fakePaperGroup('Arena', { minInstances: 0, maxInstances: 1 })) })).status).toBe(201);
  expect((await api('/api/services/Arena/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await json<{ activeInstances: number }>('/api/groups/Arena')).activeInstances === 1, { timeoutMs: 20_000, intervalMs: 100, what: 'Arena-1 running' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  const listed = await json<{ services?: { pid: number | null }[] }>('/api/services').catch(() => ({ services: [] }));
  const pids = (listed.services ?? []).map((s) => s.pid).filter((p): p is number => p !== null);
  const remove = cleanups.shift();
  cleanups.splice(0).reverse().forEach((f) => f());
  if (dir) killGameServers(dir, pids);
  remove?.();
});

/** The dashboard at `path`, signed in through the login form with the token. */
async function signedIn(width: number, path: string): Promise<{ page: Page; problems: PageProblems; writes: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: width > 500 ? 900 : 844 } });
  const problems = new PageProblems(page);
  const writes: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  await page.goto(`${url}${path}`);
  await page.getByLabel('API token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  writes.length = 0;
  // The forms ask for their software's versions; with every upstream down the controller answers 503 (the form says so and takes a typed version).
  problems.expect(/^503 GET \/api\/software\/[A-Z]+\/versions$/);
  problems.expect(/status of 503/);
  return { page, problems, writes };
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshotDir(), `${name}.png`), fullPage: true });
const fitsWidth = async (page: Page) => expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

describe('Groups page', () => {
  test('create through the form (browser and API refusals said at the field), edit, delete after confirming', async () => {
    const { page, problems, writes } = await signedIn(1280, '/groups');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await page.getByRole('rowheader', { name: 'Arena', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New group' }).click();
    await page.getByRole('heading', { name: 'New group' }).waitFor();

    // What the browser refuses: a name with a space, max below min. Said at each field; nothing sent.
    await field('Name').fill('Bed Wars');
    await field('Software').selectOption('PURPUR');
    await field('Version').fill('1.21.4');
    await field('Memory').fill('2G');
    await field('Min instances').fill('3');
    await field('Max instances').fill('2');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.locator('#group-maxInstances-problem').waitFor();
    expect(await page.locator('#group-maxInstances-problem').textContent()).toBe('Max instances must be at least Min instances (3).');
    expect(await page.locator('#group-name-problem').textContent()).toBe('Name may use only letters, digits, _ and -, 1 to 64 of them.');
    expect(await field('Max instances').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('alert').textContent()).toBe('2 fields need fixing (marked above); nothing was sent.');
    await waitFor(async () => (await page.evaluate<string>('document.activeElement ? document.activeElement.id : ""')) === 'group-name', { what: 'the first refused field focused', intervalMs: 20 });
    await shot(page, 'groups-form-1280');
    expect(writes).toEqual([]);

    // Fixing a field clears its message as it is typed; min 0 also clears max's.
    await field('Name').fill('arena');
    await field('Min instances').fill('0');
    await field('Max instances').fill('5');
    await page.locator('#group-name-problem').waitFor({ state: 'detached' });
    expect(await page.locator('#group-maxInstances-problem').count()).toBe(0);

    // What only the API knows: "arena" is taken (names differ only in case). Its words, shown.
    problems.expect(/^409 POST \/api\/groups$/);
    problems.expect(/status of 409/);
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByText('The controller refused: group "Arena" already exists (names differ only in case)').waitFor();
    expect(writes).toEqual(['POST /api/groups']);

    await field('Name').fill('BedWars');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('rowheader', { name: 'BedWars', exact: true }).waitFor();
    expect(await page.getByRole('status').textContent()).toBe('group BedWars created');
    expect(await json(`/api/groups/BedWars`)).toMatchObject({ name: 'BedWars', type: 'DYNAMIC', software: 'PURPUR', version: '1.21.4', memory: '2G', minInstances: 0, maxInstances: 5, maxPlayers: 50, jvmArgs: [] });
    await shot(page, 'groups-list-1280');

    // Edit: the form loads the group; only the changed fields are sent; the name cannot change.
    await page.getByRole('button', { name: 'Edit BedWars' }).click();
    await page.getByRole('heading', { name: 'Edit group BedWars' }).waitFor();
    expect(await field('Name').inputValue()).toBe('BedWars');
    expect(await field('Name').getAttribute('readonly')).not.toBeNull();
    expect(await field('Memory').inputValue()).toBe('2G');
    await field('Memory').fill('3G');
    await field('Max instances').fill('8');
    await page.getByText('Launch: templates, jar, command, JVM').click();
    await field('JVM args').fill('-Xss1M\n-XX:+UseZGC');
    const put = page.waitForRequest((request) => request.method() === 'PUT');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(Object.keys(JSON.parse((await put).postData() ?? '{}')).sort()).toEqual(['jvmArgs', 'maxInstances', 'memory']);
    await page.getByText('group BedWars updated').waitFor();
    expect(await json(`/api/groups/BedWars`)).toMatchObject({ software: 'PURPUR', version: '1.21.4', memory: '3G', minInstances: 0, maxInstances: 8, jvmArgs: ['-Xss1M', '-XX:+UseZGC'] });

    // Delete, after the confirmation.
    await page.getByRole('button', { name: 'Delete BedWars' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete group BedWars?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Its template folders stay');
    await dialog.getByRole('button', { name: 'Delete BedWars' }).click();
    await page.getByRole('rowheader', { name: 'BedWars', exact: true }).waitFor({ state: 'detached' });
    await dialog.waitFor({ state: 'detached' });
    expect(await status('/api/groups/BedWars')).toBe(404);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('deleting a group whose service runs is refused (409) and the dialog says what to do', async () => {
    const { page, problems } = await signedIn(1280, '/groups');
    const arena = page.getByRole('row', { name: /Arena/ });
    await arena.getByText('1 running').waitFor();
    await page.getByRole('button', { name: 'Delete Arena' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete group Arena?' });
    problems.expect(/^409 DELETE \/api\/groups\/Arena$/);
    problems.expect(/status of 409/);
    await dialog.getByRole('button', { name: 'Delete Arena' }).click();
    const why = dialog.getByRole('alert');
    await why.waitFor();
    const text = await why.textContent();
    expect(text).toContain('Arena still has running services');
    expect(text).toContain('group Arena has 1 running instance(s): stop them first');
    expect(text).toContain('Stop its services first (Services page)');
    expect(await dialog.getByRole('button', { name: 'Delete Arena' }).count()).toBe(0);
    await shot(page, 'groups-delete-refused-1280');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await status('/api/groups/Arena')).toBe(200);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('Dedicated page', () => {
  test('create (refusals said), start, delete refused while it runs, stop, edit, delete', async () => {
    const port = await freePort();
    const { page, problems, writes } = await signedIn(1280, '/dedicated');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await page.getByText('No dedicated services yet').waitFor();
    await page.getByRole('button', { name: 'New dedicated service' }).click();
    await page.getByRole('heading', { name: 'New dedicated service' }).waitFor();

    // CUSTOM without a jar or a command: refused at Jar name, whose shut section opens.
    await field('Name').fill('Arena');
    await field('Port').fill(String(port));
    await field('Software').selectOption('CUSTOM');
    await field('Version').fill('1.21.1');
    await page.getByRole('button', { name: 'Create service' }).click();
    await page.locator('#dedicated-jarName-problem').waitFor();
    expect(await page.locator('#dedicated-jarName-problem').textContent()).toBe('CUSTOM software has no jar of its own: give a jar name, or a start command.');
    expect(writes).toEqual([]);
    await field('Start command').fill(`${process.execPath}\n${FAKE_PAPER}`);
    await shot(page, 'dedicated-form-1280');

    // The API's refusal: a group is named Arena.
    problems.expect(/^400 POST \/api\/dedicated$/);
    problems.expect(/status of 400/);
    await page.getByRole('button', { name: 'Create service' }).click();
    await page.getByText(`The controller refused: "Arena" is the name of group "Arena"; a dedicated service needs a name of its own`).waitFor();

    await field('Name').fill('Survival');
    await page.getByRole('button', { name: 'Create service' }).click();
    const row = page.getByRole('row', { name: /Survival/ });
    await row.getByText('stopped', { exact: true }).waitFor();
    expect(await json('/api/dedicated/Survival')).toMatchObject({ name: 'Survival', port, software: 'CUSTOM', version: '1.21.1', memory: '2G', proxyEnabled: true, startCommand: [process.execPath, FAKE_PAPER], state: null });

    await page.getByRole('button', { name: 'Start Survival' }).click();
    await row.getByText('READY', { exact: true }).waitFor({ timeout: 30_000 });
    await shot(page, 'dedicated-list-1280');

    problems.expect(/^409 DELETE \/api\/dedicated\/Survival$/);
    problems.expect(/status of 409/);
    await page.getByRole('button', { name: 'Delete Survival' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete dedicated service Survival?' });
    await dialog.getByRole('button', { name: 'Delete Survival' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').textContent()).toContain('Stop it first with its Stop button');
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await status('/api/dedicated/Survival')).toBe(200);

    await page.getByRole('button', { name: 'Stop Survival' }).click();
    await row.getByText('stopped', { exact: true }).waitFor({ timeout: 30_000 });

    // Edit: memory only; the start command the form did not touch stays.
    await page.getByRole('button', { name: 'Edit Survival' }).click();
    await page.getByRole('heading', { name: 'Edit Survival' }).waitFor();
    await field('Memory').fill('1G');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('dedicated service Survival updated').waitFor();
    expect(await json('/api/dedicated/Survival')).toMatchObject({ memory: '1G', port, startCommand: [process.execPath, FAKE_PAPER] });

    await page.getByRole('button', { name: 'Delete Survival' }).click();
    await dialog.getByRole('button', { name: 'Delete Survival' }).click();
    await page.getByRole('rowheader', { name: 'Survival', exact: true }).waitFor({ state: 'detached' });
    expect(await status('/api/dedicated/Survival')).toBe(404);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);
});

describe('390 px wide', () => {
  test('both pages, list and form, fit without sideways scrolling', async () => {
    const created = await api('/api/dedicated', { method: 'POST', body: JSON.stringify({ name: 'Creative', port: await freePort(), software: 'PAPER', version: '1.21.4' }) });
    expect(created.status).toBe(201);
    const { page, problems } = await signedIn(390, '/groups');
    await page.getByRole('button', { name: 'New group' }).waitFor();
    await page.getByText('Arena', { exact: true }).waitFor();
    await fitsWidth(page);
    await shot(page, 'groups-list-390');
    await page.getByRole('button', { name: 'New group' }).click();
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.locator('#group-version-problem').waitFor();
    await fitsWidth(page);
    await shot(page, 'groups-form-390');

    await page.getByRole('link', { name: 'Dedicated', exact: true }).click();
    await page.getByText('Creative', { exact: true }).waitFor();
    await fitsWidth(page);
    await shot(page, 'dedicated-list-390');
    await page.getByRole('button', { name: 'New dedicated service' }).click();
    await page.getByText('Launch: jar, command, JVM').click();
    await page.getByRole('button', { name: 'Create service' }).click();
    await page.locator('#dedicated-port-problem').waitFor();
    await fitsWidth(page);
    await shot(page, 'dedicated-form-390');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'dedicated-form-390-dark');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
