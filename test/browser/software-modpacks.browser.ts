/**
 * The group and dedicated forms' software pickers and the modpack import dialog in a real
 * browser, against the compiled binary, with every public service played by a local fake
 * (test/fixtures/upstream: PaperMC's Fill API, Fabric meta, Modrinth); Purpur, and every other
 * upstream, is a closed port: "down".
 *
 * First, without a browser: the import dialog's fields refuse what the import routes' schemas
 * refuse. Then in Chromium: the software select lists what GET /api/software lists; PAPER's
 * versions come from the fake, releases and snapshots apart, the latest chosen, and a group
 * created through the form has it; an edited group keeps a version the list lacks; FABRIC shows
 * the loader field with the loader's list; Purpur down is said in words and a typed version is
 * taken. A modpack looked up shows its facts, a refusal is said in the API's words, and the
 * import makes the group; a pack file uploaded (the upload throttled through the DevTools
 * protocol, so its progress can be seen) makes a dedicated service. Screenshots at 1280 and
 * 390 px (no sideways scrolling at 390).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir } from '../support/browser';
import { OFFLINE_UPSTREAM, tempDir, waitFor } from '../support/controller';
import { mrpackOf, zipOf } from '../fixtures/modpack-zip';
import { fakeFabric } from '../fixtures/upstream/fabric';
import { FakePackHosts } from '../fixtures/upstream/modpacks-hosts';
import { fakePaperMc } from '../fixtures/upstream/papermc';
import { fakeJar } from '../fixtures/upstream/serve';
import { fieldProblem, type RawValue, type RawValues, type Specs } from '../../src/dashboard/app/forms/fields';
import { DEDICATED_TARGET_SPECS, GROUP_TARGET_SPECS, OVERRIDE_DEFAULTS, OVERRIDE_SPECS, overrideBody, targetBody, targetCrossCheck, TARGET_DEFAULTS, type PackTarget } from '../../src/dashboard/app/pages/modpacks/rules';
import { DedicatedFinalizeBodySchema, FinalizeBodySchema, ImportBodySchema, NewDedicatedImportBodySchema } from '../../src/core/modpacks/model';
import { crossFieldProblem, groupDefaults, type Group } from '../../src/core/groups/model';

const TOKEN = 'software-modpacks-browser-token-0123456789';

// PaperMC: releases 1.21.4, 1.21.3, 1.20.6 and the pre-release 1.21.4-rc1.
const papermc = fakePaperMc({ paper: { versions: { '1.21': ['1.21.4', '1.21.4-rc1', '1.21.3'], '1.20': ['1.20.6'] } } });
// Fabric: 25w14a is a snapshot the version field cannot take (left out, and said so); 0.16.15-beta.1 is a pre-release loader.
const fabric = fakeFabric({
  games: [
    { version: '1.21.4', stable: true },
    { version: '25w14a', stable: false },
    { version: '1.21.3', stable: true },
  ],
  loaders: [
    { version: '0.16.15-beta.1', stable: false },
    { version: '0.16.14', stable: true },
    { version: '0.16.10', stable: true },
  ],
  installers: [{ version: '1.0.3', stable: true }],
  jar: fakeJar('fabric'),
});

// Modrinth: "Dash Pack", a Fabric pack of two server mods and a client-only one.
const hosts = new FakePackHosts('unused-curseforge-key-0123456789');
const bytesOf = (label: string, size = 4_000) => {
  const out = new Uint8Array(size);
  const seed = new TextEncoder().encode(label);
  for (let i = 0; i < size; i++) out[i] = (seed[i % seed.length]! * 31 + i) & 0xff;
  return out;
};
function indexFile(path: string, name: string, server: 'required' | 'unsupported') {
  const hosted = hosts.hostModrinthFile(name, bytesOf(name));
  return { path, hashes: { sha1: hosted.sha1, sha512: hosted.sha512 }, env: { client: 'required', server }, downloads: [hosted.url], fileSize: hosted.size };
}
const packFiles = [indexFile('mods/server-a.jar', 'server-a.jar', 'required'), indexFile('mods/server-b.jar', 'server-b.jar', 'required'), indexFile('mods/client.jar', 'client.jar', 'unsupported')];
const packIndex = (versionId: string) => ({ formatVersion: 1, game: 'minecraft', versionId, name: 'Dash Pack', files: packFiles, dependencies: { minecraft: '1.20.1', 'fabric-loader': '0.15.11' } });
hosts.addModrinthProject({
  id: 'DaSh0001',
  slug: 'dash-pack',
  title: 'Dash Pack',
  versions: [{ id: 'dashv002', versionNumber: '2.0.0', gameVersions: ['1.20.1'], loaders: ['fabric'], published: '2025-02-01T00:00:00Z', mrpack: mrpackOf(packIndex('2.0.0'), { 'overrides/config/a.toml': 'a = 1' }) }],
});
/** The uploaded pack: the same index, with 1.5 MiB of incompressible overrides (stored), so its upload can be watched. */
const bigPack = zipOf({ 'modrinth.index.json': JSON.stringify(packIndex('2.0.0')), 'overrides/world/region.bin': new Uint8Array(randomBytes(1536 * 1024)) }, 0);

describe('the import dialog checks what the import routes check', () => {
  const long = (n: number) => 'x'.repeat(n);
  function samples(spec: Specs[string]): RawValue[] {
    switch (spec.kind) {
      case 'bool':
        return [true, false];
      case 'choice':
        return [...spec.options, 'nope', 'fabric'];
      case 'int':
      case 'number':
        return ['0', '1', '-1', '1.5', 'abc', String(spec.min), String(spec.max), String(spec.max + 1), String(spec.min - 1)];
      case 'text':
        return ['', 'Pack', ' Pack ', 'dash pack', 'a/b', long(32), long(33), long(64), long(65), '1.20.1', '1.21.4-rc1', '1.x', '4G', '512m', '0G', '0.15.11'];
      case 'list':
        return [''];
    }
  }
  /** checkGroupTarget, src/core/modpacks/install-group.ts: the group rules on the target's fields. */
  const groupRules = (body: Record<string, unknown>) =>
    crossFieldProblem({ ...groupDefaults(), ...Object.fromEntries(Object.entries(body).filter(([k]) => ['type', 'minInstances', 'maxInstances'].includes(k))), name: 'x', software: 'FABRIC', version: '1.0' } as Group) === null;
  const apis: Record<PackTarget, { host: (b: Record<string, unknown>) => boolean; upload: (b: Record<string, unknown>) => boolean; base: RawValues; specs: Specs }> = {
    group: {
      host: (b) => Value.Check(ImportBodySchema, { source: 'dash-pack', ...b }) && groupRules(b),
      upload: (b) => Value.Check(FinalizeBodySchema, { uploadId: 'a'.repeat(32), ...b }) && groupRules(b),
      base: { ...TARGET_DEFAULTS.group, groupName: 'Pack' },
      specs: GROUP_TARGET_SPECS,
    },
    dedicated: {
      host: (b) => Value.Check(NewDedicatedImportBodySchema, { source: 'dash-pack', ...b }),
      upload: (b) => Value.Check(DedicatedFinalizeBodySchema, { uploadId: 'a'.repeat(32), ...b }),
      base: { ...TARGET_DEFAULTS.dedicated, name: 'Pack', port: '25600' },
      specs: DEDICATED_TARGET_SPECS,
    },
  };

  for (const target of ['group', 'dedicated'] as const) {
    test(`${target}: each value the dialog refuses the API refuses, and the other way round`, () => {
      const { host, upload, base, specs } = apis[target];
      const overrideSpecs: Specs = target === 'group' ? OVERRIDE_SPECS : { software: OVERRIDE_SPECS.software, version: OVERRIDE_SPECS.version };
      const disagreements: string[] = [];
      const browserOk = (values: RawValues, all: Specs) => Object.entries(all).every(([key, spec]) => fieldProblem(spec, values[key] ?? '') === null) && Object.keys(targetCrossCheck(target, values, [])).length === 0;
      for (const [key, spec] of Object.entries(specs)) {
        for (const value of samples(spec)) {
          const values = { ...base, [key]: value };
          const api = host(targetBody(target, values));
          if (browserOk(values, specs) !== api) disagreements.push(`${key}=${JSON.stringify(value)}: browser ${browserOk(values, specs)}, API ${api}`);
        }
      }
      for (const [key, spec] of Object.entries(overrideSpecs)) {
        for (const value of samples(spec)) {
          const values = { ...base, ...OVERRIDE_DEFAULTS, [key]: value };
          const api = upload({ ...targetBody(target, values), ...overrideBody(target, values) });
          const all = { ...specs, ...overrideSpecs };
          if (browserOk(values, all) !== api) disagreements.push(`override ${key}=${JSON.stringify(value)}: browser ${browserOk(values, all)}, API ${api}`);
        }
      }
      if (target === 'group') {
        const crossed = { ...base, minInstances: '3', maxInstances: '2' };
        expect([browserOk(crossed, specs), host(targetBody(target, crossed))]).toEqual([false, false]);
      }
      expect(disagreements).toEqual([]);
    });
  }
});

let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];
const json = async <T = Record<string, unknown>>(path: string) => (await (await api(path)).json()) as T;

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
  const temp = tempDir('svc-browser-software-');
  cleanups.push(temp.remove);
  const offline = ['purpur_url', 'pufferfish_url', 'leaf_url', 'forge_url', 'forge_promotions_url', 'neoforge_url', 'mojang_url', 'hangar_url', 'curseforge_url'].map((key) => `${key} = "${OFFLINE_UPSTREAM}"`);
  writeFileSync(
    join(temp.dir, 'svc.toml'),
    [
      '[network]',
      'name = "Software Network"',
      '[api]',
      'port = 0',
      '[services]',
      'isolation = "none"',
      '[software]',
      `papermc_url = "${papermc.url}"`,
      `fabric_url = "${fabric.url}"`,
      `modrinth_url = "${hosts.modrinth.url}"`,
      ...offline,
      '',
    ].join('\n'),
  );
  const controller = await startBinaryController(svc, temp.dir, TOKEN, cleanups);
  url = controller.url;
  api = controller.api;
  // A group whose version the upstream does not list (an edit keeps it).
  expect((await api('/api/groups', { method: 'POST', body: JSON.stringify({ name: 'Legacy', software: 'PAPER', version: '1.19.2', minInstances: 0, maxInstances: 1 }) })).status).toBe(201);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  const remove = cleanups.shift();
  cleanups.splice(0).reverse().forEach((f) => f());
  remove?.();
  for (const fake of [papermc, fabric]) fake.close();
  hosts.close();
});

async function signedIn(width: number, path: string): Promise<{ page: Page; problems: PageProblems }> {
  const page = await browser.newPage({ viewport: { width, height: width > 500 ? 900 : 844 } });
  const problems = new PageProblems(page);
  await page.goto(`${url}${path}`);
  await page.getByLabel('API token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  return { page, problems };
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshotDir(), `${name}.png`), fullPage: true });
/** A modal dialog is drawn over the viewport: the viewport is the picture. */
const dialogShot = (page: Page, name: string) => page.screenshot({ path: join(screenshotDir(), `${name}.png`) });
// Page-side code as strings (page.evaluate, which the page's CSP allows): this test is compiled without the DOM's types.
const optionValues = (page: Page, selector: string) => page.evaluate<string[]>(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((o) => o.value)`);
/** Until the select `id` holds `value` (the form chooses the latest once its list is in). */
const selected = (page: Page, id: string, value: string) => waitFor(async () => (await page.locator(`#${id}`).inputValue()) === value, { what: `${id} to hold ${value}`, intervalMs: 20 });

describe('software and version pickers', () => {
  test('the software GET /api/software lists; PAPER’s versions, the latest chosen, stored by create; an edit keeps an unlisted version', async () => {
    const { page, problems } = await signedIn(1280, '/groups?new');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await page.getByRole('heading', { name: 'New group' }).waitFor();

    const listed = (await json<{ software: { name: string }[] }>('/api/software')).software.map((s) => s.name);
    await waitFor(async () => (await page.locator('#group-software option').count()) === listed.length, { what: 'the software list', intervalMs: 20 });
    expect(await optionValues(page, '#group-software option')).toEqual(listed);
    expect(await field('Software').inputValue()).toBe('PAPER');
    expect(await page.locator('#group-software-hint').textContent()).toContain('downloads the PAPER server jar');
    // A software that takes no loader shows no loader field.
    expect(await page.locator('#group-modloaderVersion').count()).toBe(0);

    await selected(page, 'group-version', '1.21.4');
    expect(await optionValues(page, '#group-version optgroup[label="Releases"] option')).toEqual(['1.21.4', '1.21.3', '1.20.6']);
    expect(await optionValues(page, '#group-version optgroup[label="Snapshots and pre-releases"] option')).toEqual(['1.21.4-rc1']);
    expect(await page.locator('#group-version option:checked').textContent()).toBe('1.21.4 (latest)');

    await field('Name').fill('Lobby');
    await field('Min instances').fill('0');
    await shot(page, 'software-group-form-1280');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('rowheader', { name: 'Lobby', exact: true }).waitFor();
    expect(await json('/api/groups/Lobby')).toMatchObject({ name: 'Lobby', software: 'PAPER', version: '1.21.4', modloaderVersion: '' });

    // A pre-release chosen from its group is stored as chosen.
    await page.getByRole('button', { name: 'New group' }).click();
    await selected(page, 'group-version', '1.21.4');
    await field('Version').selectOption('1.21.4-rc1');
    await field('Name').fill('Preview');
    await field('Min instances').fill('0');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('rowheader', { name: 'Preview', exact: true }).waitFor();
    expect(await json('/api/groups/Preview')).toMatchObject({ software: 'PAPER', version: '1.21.4-rc1' });

    // Legacy runs 1.19.2, which the list lacks: it stays chosen, said so, and is not sent back.
    await page.getByRole('button', { name: 'Edit Legacy' }).click();
    await page.getByRole('heading', { name: 'Edit group Legacy' }).waitFor();
    await page.locator('#group-version option[value="1.21.3"]').waitFor({ state: 'attached' });
    expect(await field('Version').inputValue()).toBe('1.19.2');
    expect(await page.locator('#group-version option:checked').textContent()).toBe('1.19.2 (not in the upstream’s list)');
    await field('Memory').fill('2G');
    const put = page.waitForRequest((request) => request.method() === 'PUT');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(JSON.parse((await put).postData() ?? '{}')).toEqual({ memory: '2G' });
    await page.getByText('group Legacy updated').waitFor();
    expect(await json('/api/groups/Legacy')).toMatchObject({ version: '1.19.2', memory: '2G' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('FABRIC shows the loader field with its list; the chosen loader is stored; another software hides it', async () => {
    const { page, problems } = await signedIn(1280, '/groups?new');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await selected(page, 'group-version', '1.21.4');
    await field('Software').selectOption('FABRIC');
    expect(await page.locator('#group-software-hint').textContent()).toContain('FABRIC is a mod loader');
    await selected(page, 'group-version', '1.21.4');
    expect(await optionValues(page, '#group-version optgroup[label="Releases"] option')).toEqual(['1.21.4', '1.21.3']);
    // 25w14a is not a version a group takes: left out, and said so.
    expect(await page.locator('#group-version-note').textContent()).toBe('1 snapshot(s) svc cannot take as a version are not listed.');

    const loader = field('Modloader version');
    await page.locator('#group-modloaderVersion option[value="0.16.14"]').waitFor({ state: 'attached' });
    expect(await loader.inputValue()).toBe('');
    expect(await page.locator('#group-modloaderVersion option:checked').textContent()).toBe('Automatic (recommended today: 0.16.14)');
    expect(await optionValues(page, '#group-modloaderVersion optgroup[label="Releases"] option')).toEqual(['0.16.14', '0.16.10']);
    expect(await optionValues(page, '#group-modloaderVersion optgroup[label="Snapshots and pre-releases"] option')).toEqual(['0.16.15-beta.1']);
    await loader.selectOption('0.16.10');

    // Another game version: its own loader list, the loader back to Automatic.
    await field('Version').selectOption('1.21.3');
    await selected(page, 'group-modloaderVersion', '');
    await page.locator('#group-modloaderVersion option[value="0.16.10"]').waitFor({ state: 'attached' });
    await loader.selectOption('0.16.10');
    await field('Name').fill('Modded');
    await field('Min instances').fill('0');
    await shot(page, 'software-fabric-form-1280');

    // PAPER takes no loader: the field goes (and with it the chosen loader); back to FABRIC it is Automatic again.
    await field('Software').selectOption('PAPER');
    await page.locator('#group-modloaderVersion').waitFor({ state: 'detached' });
    await field('Software').selectOption('FABRIC');
    await selected(page, 'group-version', '1.21.4');
    await page.locator('#group-modloaderVersion option[value="0.16.14"]').waitFor({ state: 'attached' });
    expect(await loader.inputValue()).toBe('');
    await loader.selectOption('0.16.14');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('rowheader', { name: 'Modded', exact: true }).waitFor();
    expect(await json('/api/groups/Modded')).toMatchObject({ software: 'FABRIC', version: '1.21.4', modloaderVersion: '0.16.14' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('an upstream that is down is said next to the field, and a typed version is taken', async () => {
    const { page, problems } = await signedIn(1280, '/groups?new');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await selected(page, 'group-version', '1.21.4');
    problems.expect(/^503 GET \/api\/software\/PURPUR\/versions$/);
    problems.expect(/status of 503/);
    await field('Software').selectOption('PURPUR');
    const note = page.locator('#group-version-note');
    await note.getByText('could not be loaded').waitFor();
    expect(await note.textContent()).toBe(
      `The PURPUR versions could not be loaded: Purpur API (${OFFLINE_UPSTREAM}/v2/purpur) could not be reached: connection refused. Type the version by hand. Try again`,
    );
    // The note describes the field, so a screen reader says it too.
    expect(await field('Version').getAttribute('aria-describedby')).toContain('group-version-note');
    await field('Version').fill('1.21.1');
    await field('Name').fill('Purple');
    await field('Min instances').fill('0');
    await shot(page, 'software-upstream-down-1280');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('rowheader', { name: 'Purple', exact: true }).waitFor();
    expect(await json('/api/groups/Purple')).toMatchObject({ software: 'PURPUR', version: '1.21.1' });

    // With a list, a version it lacks can be typed too ("Another version").
    await page.getByRole('button', { name: 'New group' }).click();
    await selected(page, 'group-version', '1.21.4');
    await field('Version').selectOption('(type)');
    await page.getByRole('button', { name: 'Choose from the list' }).waitFor();
    expect(await page.evaluate<string>('document.activeElement ? document.activeElement.id : ""')).toBe('group-version');
    await field('Version').fill('1.21.2');
    await field('Name').fill('Typed');
    await field('Min instances').fill('0');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('rowheader', { name: 'Typed', exact: true }).waitFor();
    expect(await json('/api/groups/Typed')).toMatchObject({ software: 'PAPER', version: '1.21.2' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('the dedicated form: the same pickers, CUSTOM typed', async () => {
    const port = await freePort();
    const { page, problems } = await signedIn(1280, '/dedicated?new');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await selected(page, 'dedicated-version', '1.21.4');
    expect(await page.locator('#dedicated-software-hint').textContent()).toContain('svc downloads nothing for a dedicated service');
    expect(await page.locator('#dedicated-modloaderVersion').count()).toBe(0);
    await field('Software').selectOption('CUSTOM');
    expect(await page.locator('#dedicated-software-hint').textContent()).toContain('Jar name');
    // CUSTOM has no list: a text box, emptied for the new software.
    expect(await page.locator('input#dedicated-version').inputValue()).toBe('');
    await field('Software').selectOption('PAPER');
    await selected(page, 'dedicated-version', '1.21.4');
    await field('Version').selectOption('1.20.6');
    await field('Name').fill('Survival');
    await field('Port').fill(String(port));
    await page.getByRole('button', { name: 'Create service' }).click();
    await page.getByRole('rowheader', { name: 'Survival', exact: true }).waitFor();
    expect(await json('/api/dedicated/Survival')).toMatchObject({ software: 'PAPER', version: '1.20.6', port });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('modpack import', () => {
  test('look a pack up (a refusal in the API’s words), see its facts, import it as a group; a slow import followed as a job', async () => {
    const { page, problems } = await signedIn(1280, '/groups');
    await page.getByRole('button', { name: 'Import modpack' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a modpack as a new group' });
    await dialog.waitFor();
    // Nothing to import before a look-up.
    expect(await dialog.getByRole('button', { name: 'Import as group' }).isDisabled()).toBe(true);

    problems.expect(/^404 POST \/api\/modpacks\/resolve$/);
    problems.expect(/status of 404/);
    await dialog.getByLabel('Modpack', { exact: true }).fill('nowhere-pack');
    await dialog.getByRole('button', { name: 'Look up' }).click();
    const lookFailure = dialog.locator('#mp-source-problem');
    await lookFailure.waitFor();
    // MODPACK_NOT_FOUND, its message as the controller words it (CurseForge is not asked: no [packhost] api_key).
    expect(await lookFailure.textContent()).toBe('Modrinth has no project "nowhere-pack"');
    expect(await dialog.getByLabel('Modpack', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await dialog.getByLabel('Modpack', { exact: true }).fill('https://modrinth.com/modpack/dash-pack');
    await dialog.getByRole('button', { name: 'Look up' }).click();
    const facts = dialog.getByRole('region', { name: 'The modpack' });
    await facts.waitFor();
    const fact = async (term: string) => (await facts.locator('div', { has: page.locator('dt', { hasText: term }) }).locator('dd').textContent())?.trim();
    expect(await facts.getByRole('heading').textContent()).toBe('Dash Pack');
    expect(await fact('Pack version')).toBe('2.0.0');
    expect(await fact('Minecraft')).toBe('1.20.1');
    expect(await fact('Loader')).toBe('FABRIC 0.15.11');
    expect(await fact('Mods and files')).toBe('2 for the server, of 3 listed');
    expect(await fact('From')).toBe('Modrinth, a Modrinth pack');
    // The name follows the pack's until one is typed.
    expect(await dialog.getByLabel('Group name', { exact: true }).inputValue()).toBe('DashPack');
    await dialogShot(page, 'modpack-facts-1280');

    // A name the API refuses (Lobby exists): said in its words, nothing made.
    problems.expect(/^409 POST \/api\/modpacks\/import$/);
    problems.expect(/status of 409/);
    await dialog.getByLabel('Group name', { exact: true }).fill('Lobby');
    await dialog.getByRole('button', { name: 'Import as group' }).click();
    await dialog.getByText(/^The controller refused: .*Lobby/).waitFor();

    await dialog.getByLabel('Group name', { exact: true }).fill('DashGroup');
    await dialog.getByLabel('Max instances', { exact: true }).fill('2');
    await dialog.getByRole('button', { name: 'Import as group' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByRole('status').textContent()).toContain('group DashGroup created from');
    await page.getByRole('rowheader', { name: 'DashGroup', exact: true }).waitFor();
    expect(await json('/api/groups/DashGroup')).toMatchObject({ name: 'DashGroup', type: 'STATIC', software: 'FABRIC', version: '1.20.1', modloaderVersion: '0.15.11', memory: '4G', minInstances: 0, maxInstances: 2 });

    // An import the host keeps waiting past the controller's few seconds goes on as a job (202): the dialog says so and follows it to its end.
    await page.getByRole('button', { name: 'Import modpack' }).click();
    await dialog.getByLabel('Modpack', { exact: true }).fill('dash-pack');
    await dialog.getByRole('button', { name: 'Look up' }).click();
    await facts.waitFor();
    await dialog.getByLabel('Group name', { exact: true }).fill('DashLater');
    const release = hosts.holdDownloads();
    try {
      const accepted = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/modpacks/import');
      await dialog.getByRole('button', { name: 'Import as group' }).click();
      expect((await accepted).status()).toBe(202);
      await dialog.getByText(/^This takes a while: the controller goes on with it/).waitFor();
    } finally {
      release();
    }
    await dialog.waitFor({ state: 'detached', timeout: 20_000 });
    expect(await page.getByRole('status').textContent()).toContain('group DashLater created from');
    expect(await json('/api/groups/DashLater')).toMatchObject({ software: 'FABRIC', version: '1.20.1' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('upload a pack file: its progress shown, a new dedicated service made', async () => {
    const port = await freePort();
    const { page, problems } = await signedIn(1280, '/dedicated');
    await page.getByRole('button', { name: 'Import modpack' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a modpack as a new dedicated service' });
    await dialog.getByLabel('A file from this computer').check();
    await dialog.getByLabel('Modpack file').setInputFiles({ name: 'big-pack-2.0.mrpack', mimeType: 'application/octet-stream', buffer: Buffer.from(bigPack) });
    expect(await dialog.getByLabel('Service name', { exact: true }).inputValue()).toBe('BigPack20');

    // The port is required, and checked before anything is sent.
    await dialog.getByRole('button', { name: 'Upload and import as dedicated service' }).click();
    await dialog.locator('#mp-port-problem').waitFor();
    expect(await dialog.locator('#mp-port-problem').textContent()).toBe('Port is required.');
    await dialog.getByLabel('Port', { exact: true }).fill(String(port));

    // About 6 s at 256 KiB/s: the progress is seen between its ends.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    const request = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/dedicated/modpack/upload');
    await dialog.getByRole('button', { name: 'Upload and import as dedicated service' }).click();
    const query = new URL((await request).url()).searchParams;
    expect(Object.fromEntries(query)).toEqual({ fileName: 'big-pack-2.0.mrpack', name: 'BigPack20', port: String(port), memory: '4G', proxyEnabled: 'true' });
    const bar = dialog.getByRole('progressbar', { name: 'Upload progress' });
    await waitFor(
      async () => {
        const [value, max] = await bar.evaluate((element) => [(element as unknown as { value: number }).value, (element as unknown as { max: number }).max]);
        return value! > 0 && value! < max! * 0.9;
      },
      { what: 'the upload under way', intervalMs: 20, timeoutMs: 10_000 },
    );
    expect(await dialog.getByText(/^Uploading big-pack-2\.0\.mrpack: .* of 1\.5 MiB \(\d+%\)$/).count()).toBe(1);
    await dialogShot(page, 'modpack-upload-progress-1280');

    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await page.getByRole('status').textContent()).toContain('dedicated service BigPack20 created');
    await page.getByRole('rowheader', { name: 'BigPack20', exact: true }).waitFor();
    expect(await json('/api/dedicated/BigPack20')).toMatchObject({ name: 'BigPack20', port, software: 'FABRIC', version: '1.20.1', memory: '4G', proxyEnabled: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('390 px wide', () => {
  test('the pickers and the import dialog fit without sideways scrolling', async () => {
    const { page, problems } = await signedIn(390, '/groups?new');
    const field = (label: string) => page.getByLabel(label, { exact: true });
    await selected(page, 'group-version', '1.21.4');
    await field('Software').selectOption('FABRIC');
    await page.locator('#group-modloaderVersion option[value="0.16.14"]').waitFor({ state: 'attached' });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await shot(page, 'software-fabric-form-390');

    problems.expect(/^503 GET \/api\/software\/PURPUR\/versions$/);
    problems.expect(/status of 503/);
    await field('Software').selectOption('PURPUR');
    await page.locator('#group-version-note').getByText('could not be loaded').waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await shot(page, 'software-upstream-down-390');

    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Import modpack' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a modpack as a new group' });
    await dialog.getByLabel('Modpack', { exact: true }).fill('dash-pack');
    await dialog.getByRole('button', { name: 'Look up' }).click();
    await dialog.getByRole('region', { name: 'The modpack' }).waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(true);
    await dialogShot(page, 'modpack-facts-390');
    await dialog.getByLabel('A file from this computer').check();
    await dialog.getByText('Loader and Minecraft version').click();
    await dialog.getByLabel('Loader', { exact: true }).scrollIntoViewIfNeeded();
    expect(await dialog.getByLabel('Loader', { exact: true }).locator('option:checked').textContent()).toBe('The one the pack names');
    expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(true);
    await page.emulateMedia({ colorScheme: 'dark' });
    await dialogShot(page, 'modpack-upload-390-dark');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
