/**
 * The Audit and Doctor pages in headless Chromium against the binary (issue 41): the audit log
 * filtered by action and paged (what the API holds, newest first), the doctor's sections with
 * their findings and hints; both at 1280 and 390 px wide.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir } from '../support/controller';

const TOKEN = 'dashboard-audit-token-0123456789abcdef';
const GROUPS = 55; // more than one page of 50
let browser: Browser;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const { dir, remove } = tempDir('svc-browser-audit-');
  cleanups.push(remove);
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  ({ url, api } = await startBinaryController(svc, dir, TOKEN, cleanups));
  for (let i = 1; i <= GROUPS; i++) {
    const body = { name: `Audit${String(i).padStart(2, '0')}`, software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: ['true'], minInstances: 0, maxInstances: 1 };
    const created = await api('/api/groups', { method: 'POST', body: JSON.stringify(body) });
    if (created.status !== 201) throw new Error(`group ${i}: ${created.status} ${await created.text()}`);
  }
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

describe('Audit', () => {
  test('filtered by action, newest first, paged by 50; the counts are the API’s', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Audit', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    await page.getByLabel('Action').fill('GROUP_CREATED');
    const pager = page.getByRole('navigation', { name: 'Audit pages' });
    await pager.getByText(`1–50 of ${GROUPS}`).waitFor();
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(50);
    expect(await rows.first().textContent()).toContain(`Audit${GROUPS}`); // newest first
    await page.screenshot({ path: join(screenshotDir(), 'audit-1280.png'), fullPage: true });
    await pager.getByRole('button', { name: 'Older' }).click();
    await pager.getByText(`51–${GROUPS} of ${GROUPS}`).waitFor();
    expect(await rows.count()).toBe(GROUPS - 50);
    expect(await rows.last().textContent()).toContain('Audit01');
    expect(await pager.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await page.getByLabel('Action').fill('NO_SUCH_ACTION');
    await page.getByText('Nothing recorded for this filter.').waitFor();
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('Doctor', () => {
  test('the sections and their findings, as GET /api/doctor reports them; checked again on demand', async () => {
    const report = (await (await api('/api/doctor')).json()) as { sections: { name: string }[]; failCount: number; warnCount: number };
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Doctor', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'failure(s)' }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'failure(s)' }).textContent()).toBe(`${report.failCount} failure(s), ${report.warnCount} warning(s)`);
    for (const section of report.sections) expect(await page.getByRole('heading', { name: section.name, exact: true }).count()).toBe(1);
    await page.screenshot({ path: join(screenshotDir(), 'doctor-1280.png'), fullPage: true });
    const doctorCalls: string[] = [];
    page.on('request', (r) => r.url().endsWith('/api/doctor') && doctorCalls.push(r.url()));
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/doctor'));
    await page.getByRole('button', { name: 'Check again' }).click();
    await answered;
    expect(doctorCalls.length).toBe(1);
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('390 px: Audit and Doctor fit without horizontal scrolling', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    for (const name of ['Audit', 'Doctor']) {
      // Through the navigation (a full page load would cut the Overview's request short).
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name, exact: true }).waitFor();
      if (name === 'Doctor') await page.getByRole('status').filter({ hasText: 'failure(s)' }).waitFor();
      else await page.locator('tbody tr').first().waitFor();
      expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(screenshotDir(), `${name.toLowerCase()}-390.png`), fullPage: true });
    }
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
