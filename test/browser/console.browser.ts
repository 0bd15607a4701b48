/**
 * The Console page in headless Chromium against the binary (issue 41): the controller's console
 * in a terminal (xterm.js, loaded when the page is first shown). A command typed in the Command
 * field is answered in the log region (its accessible copy, and xterm's own rows on screen); ↑
 * brings the last command back and ↓ the line being typed; Tab fills in the one candidate the
 * controller offers for a prefix and lists several; the search finds a line in the output, and
 * says when nothing matches. The page's CSP (no inline styles) is kept: no violation is reported.
 * Screenshots at 1280 and 390 px, and nothing scrolls sideways at 390. The terminal's pure parts
 * (the per-frame batching, the history, what Tab does with candidates) are tested without a
 * browser first.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor } from '../support/controller';
import { applyCompletion } from '../../src/dashboard/app/terminal/completion';
import { CommandHistory } from '../../src/dashboard/app/terminal/history';
import { PIECE_LINES, TerminalOutput } from '../../src/dashboard/app/terminal/output';

const TOKEN = 'dashboard-console-token-0123456789abcdef';
let browser: Browser;
let url: string;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-console-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url } = await startBinaryController(svc, dir, TOKEN, cleanups));
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

/** A line of the log region's accessible copy that contains `text`. */
const logLine = (page: Page, text: string) => page.getByRole('log', { name: 'Console output' }).getByRole('listitem').filter({ hasText: text });

describe('the Console page', () => {
  test('a reply in the log, ↑ and ↓ through the history, Tab completion, search; 1280 and 390 px', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Console', exact: true }).click();
    await page.getByRole('heading', { name: 'Console', exact: true }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor({ timeout: 10_000 });

    const command = page.getByLabel('Command', { exact: true });
    await command.fill('version');
    await command.press('Enter');
    await logLine(page, 'runtime: Bun').waitFor({ state: 'attached' });
    expect(await logLine(page, '> version').count()).toBe(1);
    expect(await command.inputValue()).toBe('');
    // xterm drew it too: the screen's rows hold the reply.
    await waitFor(async () => (await page.locator('.xterm-rows').textContent())?.includes('runtime: Bun'), { what: 'the reply on the terminal screen' });

    // History: ↑ brings back the last command, ↓ returns to what was being typed.
    await command.fill('hel');
    await command.press('ArrowUp');
    expect(await command.inputValue()).toBe('version');
    await command.press('ArrowDown');
    expect(await command.inputValue()).toBe('hel');

    // Tab: one candidate is filled in, then run.
    await command.fill('vers');
    await command.press('Tab');
    await waitFor(async () => (await command.inputValue()) === 'version ', { what: 'the completed command' });
    expect(await command.evaluate((input) => input === input.ownerDocument.activeElement)).toBe(true);
    // Several are listed; picking one fills it in.
    await command.fill('re');
    await command.press('Tab');
    const completions = page.getByRole('list', { name: 'Completions' });
    await completions.waitFor();
    const offered = await completions.getByRole('button').allTextContents();
    expect(offered).toEqual(expect.arrayContaining(['reload', 'restart']));
    expect(offered.every((word) => word.startsWith('re'))).toBe(true);
    await completions.getByRole('button', { name: 'restart', exact: true }).click();
    expect(await command.inputValue()).toBe('restart ');
    await completions.waitFor({ state: 'detached' });
    // A prefix nothing starts with says so.
    await command.fill('zzz');
    await command.press('Tab');
    await page.getByText('No completions for “zzz”').waitFor();

    // The search box finds a line of the output; a word that is not there is said to be missing.
    const search = page.getByRole('search', { name: 'Search console output' });
    await search.getByLabel('Search output').fill('runtime: Bun');
    await search.getByLabel('Search output').press('Enter');
    await waitFor(async () => (await page.locator('.xterm-selection div').count()) > 0, { what: 'the match selected' });
    expect(await search.getByRole('status').textContent()).toBe('');
    await search.getByLabel('Search output').fill('no-such-words-anywhere');
    await search.getByRole('button', { name: 'Next match' }).click();
    await search.getByText('No match').waitFor();

    await page.screenshot({ path: join(screenshotDir(), 'console-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await command.fill('help');
    await command.press('Enter');
    await logLine(page, 'commands (help <command> for details)').waitFor({ state: 'attached' });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'console-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('the terminal’s parts', () => {
  /** A TerminalOutput whose frames run when the test says, and a writer that records its calls. */
  function harness(capacity: number) {
    const frames: (() => void)[] = [];
    const output = new TerminalOutput(capacity, (run) => frames.push(run));
    const writes: { chunk: string; done: () => void }[] = [];
    output.attach((chunk, done) => writes.push({ chunk, done }));
    const frame = () => frames.splice(0).forEach((run) => run());
    return { output, writes, frame, frames };
  }

  test('lines are written once a frame, the next batch only once xterm has parsed the last', () => {
    const { output, writes, frame, frames } = harness(5000);
    const batches: number[] = [];
    output.onBatch((lines) => batches.push(lines.length));
    for (let i = 0; i < 600; i++) output.line(`line ${i}`);
    expect(writes).toEqual([]);
    expect(frames.length).toBe(1); // one frame asked for, however many lines
    frame();
    // 600 lines in pieces of PIECE_LINES, in order, every line ended.
    expect(writes.length).toBe(Math.ceil(600 / PIECE_LINES));
    expect(writes.map((w) => w.chunk).join('')).toBe(Array.from({ length: 600 }, (_, i) => `line ${i}\r\n`).join(''));
    expect(batches).toEqual([600]);
    output.line('later');
    expect(frames.length).toBe(0); // xterm still parsing: nothing is scheduled
    writes.at(-1)!.done();
    expect(frames.length).toBe(1);
    frame();
    expect(writes.at(-1)!.chunk).toBe('later\r\n');
  });

  test('what waits is bounded by the scrollback; the skipped lines are counted in a note', () => {
    const frames: (() => void)[] = [];
    const output = new TerminalOutput(100, (run) => frames.push(run));
    for (let i = 0; i < 1000; i++) output.line(`line ${i}`);
    expect(output.waiting).toBeLessThan(200);
    const writes: string[] = [];
    output.attach((chunk) => writes.push(chunk));
    frames.splice(0).forEach((run) => run());
    expect(writes[0]).toContain('900 lines skipped');
    expect(writes.slice(1).join('')).toBe(Array.from({ length: 100 }, (_, i) => `line ${900 + i}\r\n`).join(''));
  });

  test('the history walks back and forth, keeps the line being typed, skips repeats and is stored', () => {
    const stored = new Map<string, string>();
    const storage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) };
    const history = new CommandHistory('key', storage);
    history.add('list');
    history.add('help');
    history.add('help');
    expect(history.older('draft')).toBe('help');
    expect(history.older('help')).toBe('list');
    expect(history.older('list')).toBeNull();
    expect(history.newer()).toBe('help');
    expect(history.newer()).toBe('draft');
    expect(history.newer()).toBeNull();
    expect(new CommandHistory('key', storage).older('')).toBe('help'); // read back from storage
  });

  test('Tab: one candidate completes the word with a space, several extend it to what they share', () => {
    expect(applyCompletion('vers', 4, ['version'])).toEqual({ text: 'version ', cursor: 8, shown: [] });
    expect(applyCompletion('start Lo', 8, ['Lobby', 'Lodge'])).toEqual({ text: 'start Lo', cursor: 8, shown: ['Lobby', 'Lodge'] });
    expect(applyCompletion('start L', 7, ['Lobby-1', 'Lobby-2'])).toEqual({ text: 'start Lobby-', cursor: 12, shown: ['Lobby-1', 'Lobby-2'] });
    expect(applyCompletion('st Lobby', 2, ['start'])).toEqual({ text: 'start Lobby', cursor: 6, shown: [] });
    expect(applyCompletion('zzz', 3, [])).toEqual({ text: 'zzz', cursor: 3, shown: [] });
  });
});
