/**
 * The Files page in headless Chromium against the binary (issue 41): browsing the templates
 * root, a new folder, a folder of nested files uploaded through the folder picker and files
 * dropped on the list (each checked byte for byte through the API), a text file edited in
 * CodeMirror (loaded only then) and saved, a binary file refused in words, search by name, a
 * folder of 5,000 files listed and scrolled to its end, deletion of a file and of a folder
 * after confirming, an API refusal shown in words; at 1280 and 390 px wide. The tests run in
 * order and build on each other: the files uploaded by the first are edited, deleted and shown
 * at 390 px by the later ones.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir } from '../support/controller';

const TOKEN = 'dashboard-files-token-0123456789abcdef';
const BIG = 5000;
const PROPERTIES = '# server settings\nmotd=hello\nmax-players=20';
let browser: Browser;
let url: string;
let dir: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
/** The folder uploaded through the picker, on disk: pack/… */
let source: string;
const cleanups: (() => void)[] = [];

/** Files of the uploaded folder, relative to its parent (as the page names them): nested, text and binary. */
const PACK: Record<string, Uint8Array> = {
  'pack/readme.txt': new TextEncoder().encode('a pack of files\n'),
  'pack/config/server.properties': new TextEncoder().encode(PROPERTIES),
  'pack/config/deep/data.bin': new Uint8Array(randomBytes(2 * 1024 * 1024)),
  'pack/plugins/x/y/settings.yml': new TextEncoder().encode('enabled: true\nlist:\n  - one\n  - two\n'),
};

beforeAll(async () => {
  const svc = await svcBinary();
  const made = tempDir('svc-browser-files-');
  dir = made.dir;
  cleanups.push(made.remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  // A template folder made through the API; the 5,000 files straight on disk.
  const lobby = await api('/api/files/templates/lobby?mkdir', { method: 'POST', body: '{}' });
  if (lobby.status !== 201) throw new Error(`mkdir lobby: ${lobby.status} ${await lobby.text()}`);
  const big = join(dir, 'templates', 'big');
  mkdirSync(big);
  for (let i = 0; i < BIG; i++) writeFileSync(join(big, `file-${String(i).padStart(4, '0')}.txt`), `entry ${i}\n`);
  source = join(dir, 'upload-source');
  for (const [rel, bytes] of Object.entries(PACK)) {
    mkdirSync(join(source, rel, '..'), { recursive: true });
    writeFileSync(join(source, rel), bytes);
  }
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

/** The bytes of a file through the API (?raw=1: the file itself), or the status when it is not there. */
async function apiBytes(path: string): Promise<Uint8Array | number> {
  const response = await api(`/api/files/templates/${path}?raw=1`);
  return response.ok ? new Uint8Array(await response.arrayBuffer()) : response.status;
}

async function openFilesPage(page: Page): Promise<void> {
  await signIn(page, url, TOKEN);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Files', exact: true }).click();
  await page.getByRole('list', { name: 'Roots' }).waitFor();
}

/** Opens an entry of the list shown (a folder, or a file into the editor) by its name. */
async function openEntry(page: Page, name: string): Promise<void> {
  await page.getByRole('list', { name: 'Entries' }).getByRole('link', { name, exact: true }).click();
}

const crumbNow = (page: Page) => page.getByRole('navigation', { name: 'Folder path' }).locator('[aria-current]');
const status = (page: Page) => page.locator('.fm-count');
const uploadsStatus = (page: Page) => page.getByRole('region', { name: 'Uploads' }).getByRole('status');

describe('Files', () => {
  test('browse into templates, create a folder, upload a folder of nested files and dropped files: every byte arrives', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    const styles: string[] = [];
    page.on('request', (r) => /\/assets\/files-[^/]*\.css$/.test(r.url()) && styles.push(r.url()));
    await signIn(page, url, TOKEN);
    expect(styles).toEqual([]); // the page's styles come with the page, not with the first one
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Files', exact: true }).click();
    await page.getByRole('list', { name: 'Roots' }).waitFor();
    expect(styles.length).toBe(1);
    await page.screenshot({ path: join(screenshotDir(), 'files-roots-1280.png'), fullPage: true });
    await page.getByRole('list', { name: 'Roots' }).getByRole('link', { name: /Templates/ }).click();
    await status(page).getByText('2 entries').waitFor();
    await openEntry(page, 'lobby');
    expect(await crumbNow(page).textContent()).toBe('lobby');
    await page.getByText('This folder is empty.').waitFor();

    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('New folder name').fill('world');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('list', { name: 'Entries' }).getByRole('link', { name: 'world', exact: true }).waitFor();
    const world = (await (await api('/api/files/templates/lobby/world')).json()) as { entries: unknown[] };
    expect(world.entries).toEqual([]);

    // The folder picker (webkitdirectory): Playwright hands Chromium the folder on disk.
    await page.getByLabel('Folder to upload').setInputFiles(join(source, 'pack'));
    await uploadsStatus(page).getByText(`${Object.keys(PACK).length} of ${Object.keys(PACK).length} uploaded — finished`).waitFor({ timeout: 30_000 });
    const lines = page.locator('.fm-upload');
    expect(await lines.count()).toBe(Object.keys(PACK).length);
    expect(await page.locator('.fm-upload[data-state="done"]').count()).toBe(Object.keys(PACK).length);
    for (const [rel, bytes] of Object.entries(PACK)) {
      const arrived = await apiBytes(`lobby/${rel}`);
      expect(arrived instanceof Uint8Array ? Buffer.from(arrived).equals(Buffer.from(bytes)) : arrived).toBe(true);
      expect(Buffer.from(readFileSync(join(dir, 'templates', 'lobby', rel))).equals(Buffer.from(bytes))).toBe(true);
    }
    await page.getByRole('list', { name: 'Entries' }).getByRole('link', { name: 'pack', exact: true }).waitFor();

    // Dropped files: a drop event carrying two files, as the browser sends one.
    // (A string: the tests are type-checked without the DOM's types.)
    const transfer = await page.evaluateHandle(`(() => {
      const data = new DataTransfer();
      data.items.add(new File(['dropped one\\n'], 'drop-1.txt', { type: 'text/plain' }));
      data.items.add(new File([new Uint8Array([0, 1, 2, 255])], 'drop-2.dat'));
      return data;
    })()`);
    await page.locator('.fm-folder').dispatchEvent('drop', { dataTransfer: transfer });
    await uploadsStatus(page).getByText(`${Object.keys(PACK).length + 2} of ${Object.keys(PACK).length + 2} uploaded — finished`).waitFor({ timeout: 30_000 });
    expect(Buffer.from((await apiBytes('lobby/drop-1.txt')) as Uint8Array).toString()).toBe('dropped one\n');
    expect([...((await apiBytes('lobby/drop-2.dat')) as Uint8Array)]).toEqual([0, 1, 2, 255]);
    await page.getByRole('list', { name: 'Entries' }).getByRole('link', { name: 'drop-2.dat', exact: true }).waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'files-folder-1280.png'), fullPage: true });

    // Download: the file's own bytes, under its name.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download drop-1.txt' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('drop-1.txt');
    expect(readFileSync(await download.path()).toString()).toBe('dropped one\n');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 90_000);

  test('a text file opens in CodeMirror (loaded only then), is changed and saved; a binary file is said to be one', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    const codemirror: string[] = [];
    page.on('request', (r) => /\/assets\/codemirror-[^/]*\.js$/.test(r.url()) && codemirror.push(r.url()));
    await openFilesPage(page);
    await page.getByRole('list', { name: 'Roots' }).getByRole('link', { name: /Templates/ }).click();
    for (const name of ['lobby', 'pack', 'config']) {
      await openEntry(page, name);
      await crumbNow(page).getByText(name, { exact: true }).waitFor();
    }
    expect(codemirror).toEqual([]); // browsing never loads the editor
    await openEntry(page, 'server.properties');
    const content = page.getByLabel('Content of server.properties');
    await content.waitFor();
    expect(codemirror.length).toBe(1);
    expect(await page.locator('.cm-line').count()).toBe(3);
    expect(await page.locator('.cm-line span').count()).toBeGreaterThan(0); // the properties syntax marks the comment
    await content.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('motd=edited');
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText(/^Saved /).waitFor();
    const saved = await apiBytes('lobby/pack/config/server.properties');
    expect(Buffer.from(saved as Uint8Array).toString()).toBe(`${PROPERTIES}\nmotd=edited`);
    await page.screenshot({ path: join(screenshotDir(), 'files-editor-1280.png'), fullPage: true });

    // Ctrl-S saves too (the Save button has the focus now: back into the text first).
    await content.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('!');
    await page.getByText('Unsaved changes').waitFor();
    await page.keyboard.press('Control+s');
    await page.getByRole('status').getByText(/^Saved /).waitFor();
    expect(Buffer.from((await apiBytes('lobby/pack/config/server.properties')) as Uint8Array).toString()).toBe(`${PROPERTIES}\nmotd=edited!`);

    await page.getByRole('link', { name: 'Close' }).click();
    await openEntry(page, 'deep');
    await openEntry(page, 'data.bin');
    await page.getByText('data.bin is not a text file (2.0 MiB): it cannot be edited here. Download it instead.').waitFor();
    expect(await page.getByRole('button', { name: 'Download' }).isVisible()).toBe(true);
    expect(codemirror.length).toBe(1);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('5,000 files: listed, only a screenful rendered, scrolled to the last; search by name narrows the list', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openFilesPage(page);
    await page.getByRole('list', { name: 'Roots' }).getByRole('link', { name: /Templates/ }).click();
    await openEntry(page, 'big');
    await status(page).getByText(`${BIG} entries`).waitFor();
    const rows = page.locator('li.fm-row');
    expect(await rows.count()).toBeLessThan(60);
    expect(await rows.first().getAttribute('aria-setsize')).toBe(String(BIG));
    await page.getByTestId('file-list').evaluate((list) => list.scrollTo({ top: list.scrollHeight }));
    const last = page.getByRole('link', { name: 'file-4999.txt', exact: true });
    await last.waitFor();
    expect(await last.isVisible()).toBe(true);
    expect(await page.locator('li.fm-row', { has: last }).getAttribute('aria-posinset')).toBe(String(BIG));
    expect(await rows.count()).toBeLessThan(60);
    await page.screenshot({ path: join(screenshotDir(), 'files-big-1280.png'), fullPage: true });

    const search = page.getByLabel('Search by name in this folder');
    await search.fill('file-12');
    await status(page).getByText(`100 of ${BIG} entries match “file-12”`).waitFor();
    await page.getByRole('link', { name: 'file-1200.txt', exact: true }).waitFor(); // back at the top
    expect(await rows.first().getAttribute('aria-posinset')).toBe('1');
    await search.fill('FILE-4999');
    await status(page).getByText(`1 of ${BIG} entries match “FILE-4999”`).waitFor();
    expect(await rows.count()).toBe(1);
    await search.fill('nothing-like-this');
    await page.getByText('No name in this folder contains “nothing-like-this”.').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('delete asks first: Cancel keeps the file, Delete removes it; a folder goes with everything in it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await openFilesPage(page);
    await page.getByRole('list', { name: 'Roots' }).getByRole('link', { name: /Templates/ }).click();
    await openEntry(page, 'lobby');
    const dialog = page.getByRole('dialog');
    await page.getByRole('button', { name: 'Delete drop-1.txt' }).click();
    await dialog.getByText('lobby/drop-1.txt is deleted. This cannot be undone.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await apiBytes('lobby/drop-1.txt')).toBeInstanceOf(Uint8Array);

    await page.getByRole('button', { name: 'Delete drop-1.txt' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('link', { name: 'drop-1.txt', exact: true }).waitFor({ state: 'detached' });
    expect(await apiBytes('lobby/drop-1.txt')).toBe(404);

    await openEntry(page, 'pack');
    await page.getByRole('button', { name: 'Delete plugins' }).click();
    // plugins/x, plugins/x/y and settings.yml inside
    await dialog.getByText('Everything in it is deleted too: 3 entries. This cannot be undone.').waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'files-delete-1280.png') });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await (await api('/api/files/templates/lobby/pack/plugins')).json()).toMatchObject({ error: 'PATH_NOT_FOUND' });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('the API’s refusals are shown in its words (a listing, an upload); the groups root offers no writing', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    problems.expect(/404 GET \/api\/files\/templates\/no-such-folder/);
    problems.expect(/Failed to load resource: the server responded with a status of 404/);
    await signIn(page, url, TOKEN);
    await page.goto(`${url}/files?scope=templates&path=no-such-folder`);
    const refusal = page.getByRole('alert').filter({ hasText: 'This folder could not be listed' });
    await refusal.waitFor();
    const said = (await (await api('/api/files/templates/no-such-folder')).json()) as { message: string };
    expect(await refusal.locator('p').textContent()).toBe(`This folder could not be listed: ${said.message}`);
    await refusal.getByRole('link', { name: 'Go up' }).click();
    await status(page).waitFor();

    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('New folder name').fill('../escape');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page.getByRole('alert').getByText('A name cannot hold "/" or "\\": create one folder at a time.').waitFor();

    // A file named like a folder that is there: the upload's own line says why it failed.
    problems.expect(/409 POST \/api\/files\/templates$/);
    problems.expect(/Failed to load resource: the server responded with a status of 409/);
    await page.getByLabel('Files to upload').setInputFiles([{ name: 'lobby', mimeType: 'text/plain', buffer: Buffer.from('not a folder') }]);
    const failed = page.locator('.fm-upload[data-state="failed"]');
    await failed.waitFor();
    expect(await failed.getByRole('alert').textContent()).toBe('lobby is a directory; delete it first or choose another name');
    await uploadsStatus(page).getByText('0 of 1 uploaded, 1 failed — finished').waitFor();

    await page.getByRole('link', { name: 'All roots' }).click();
    await page.getByRole('list', { name: 'Roots' }).getByRole('link', { name: /Groups/ }).click();
    await page.getByText('The groups folder is read-only: change a group on the Groups page.').waitFor();
    expect(await page.getByRole('button', { name: 'Upload files' }).count()).toBe(0);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('390 px: the folder, the 5,000-file list and the editor fit without sideways scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await openFilesPage(page);
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.getByRole('list', { name: 'Roots' }).getByRole('link', { name: /Templates/ }).click();
    await openEntry(page, 'lobby');
    await openEntry(page, 'pack');
    await status(page).getByText('2 entries').waitFor(); // config and readme.txt (plugins was deleted above)
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'files-folder-390.png'), fullPage: true });
    await openEntry(page, 'readme.txt');
    await page.getByLabel('Content of readme.txt').waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'files-editor-390.png'), fullPage: true });
    await page.getByRole('link', { name: 'Templates' }).click();
    await openEntry(page, 'big');
    await status(page).getByText(`${BIG} entries`).waitFor();
    await page.getByTestId('file-list').evaluate((list) => list.scrollTo({ top: list.scrollHeight }));
    await page.getByRole('link', { name: 'file-4999.txt', exact: true }).waitFor();
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'files-big-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
