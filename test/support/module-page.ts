import { join } from 'node:path';
import { expect } from 'bun:test';
import type { Browser } from 'playwright-core';
import { PageProblems, screenshotDir, signIn } from './browser';

/**
 * A module's page where the module does not run (uninstalled, the controller restarted): signed
 * in with `token`, the navigation has no link named `link`, and `path` opened directly says the
 * module does not run and how to install it; a screenshot named `screenshot`; nothing went wrong
 * on the page.
 */
export async function expectModulePageAbsent(browser: Browser, url: string, token: string, page: { link: string; path: string; module: string; screenshot: string }): Promise<void> {
  const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = new PageProblems(tab);
  await signIn(tab, url, token);
  const nav = tab.getByRole('navigation', { name: 'Pages' });
  await nav.getByRole('link', { name: 'Overview', exact: true }).waitFor();
  expect(await nav.getByRole('link', { name: page.link, exact: true }).count()).toBe(0);
  await tab.goto(`${url}${page.path}`);
  const alert = tab.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe(`The ${page.module} module does not run on this controller: install it (POST /api/modules/install/${page.module}) and restart the controller.`);
  await tab.screenshot({ path: join(screenshotDir(), page.screenshot) });
  expect(problems.problems).toEqual([]);
  await tab.close();
}
