import { chromium, type Browser, type Page } from 'playwright-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './controller';

/** Debian's chromium (.ci/run installs it when missing); CHROMIUM names another binary. */
export function chromiumPath(): string {
  const path = process.env.CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!path) throw new Error('no chromium: apt-get install chromium (or set CHROMIUM to its binary)');
  return path;
}

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's own sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * What a page did wrong while a test drove it: console errors, uncaught exceptions, requests
 * that failed (not those the browser cancelled), and answers of 400 or more (a test that provokes one on purpose says which it
 * expects with `expect(...)`).
 */
export class PageProblems {
  readonly problems: string[] = [];
  private readonly expected: RegExp[] = [];

  constructor(page: Page) {
    page.on('console', (message) => {
      if (message.type() === 'error' && !this.isExpected(message.text())) this.problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.problems.push(`uncaught: ${error.message}`));
    page.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText;
      // ERR_ABORTED is a cancel on the browser's side (a test's page.goto while the last page's
      // queries were in flight, or the app's own AbortController), never an answer the server gave.
      if (reason === 'net::ERR_ABORTED') return;
      this.problems.push(`request failed: ${request.method()} ${request.url()} (${reason})`);
    });
    page.on('response', (response) => {
      const line = `${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`;
      if (response.status() >= 400 && !this.isExpected(line)) this.problems.push(`answer: ${line}`);
    });
  }

  /** A problem the test provokes on purpose (matched against the line it would add, and a console error's text). */
  expect(pattern: RegExp): void {
    this.expected.push(pattern);
  }

  private isExpected(line: string): boolean {
    return this.expected.some((p) => p.test(line));
  }
}

/** Where screenshots go (SVC_SCREENSHOTS, else a folder under the system's temp dir), made if missing. */
export function screenshotDir(): string {
  const dir = process.env.SVC_SCREENSHOTS ?? join(process.env.TMPDIR ?? '/tmp', 'svc-screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Opens the dashboard and signs in with `token` through the login form; resolves on the Overview. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}

/** Whether the page scrolls sideways at its current width (the 390 px rule: it must not). */
export async function pageScrollWidth(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth');
}

/**
 * Waits until the in-page `expression` is true, read every 20 ms through page.evaluate (never
 * page.waitForFunction with a string: it evaluates the text in the page, which the dashboard's
 * CSP refuses as `unsafe-eval`, so it fails now and then instead of waiting).
 */
export async function waitForInPage(page: Page, expression: string, what: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(() => page.evaluate<boolean>(`Boolean(${expression})`), { timeoutMs, intervalMs: 20, what: `${what} (${expression})` });
}
