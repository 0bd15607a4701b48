/**
 * The Nodes page in headless Chromium against the binary (issue 41): a real agent (the same
 * executable, `svc agent`) joins and its card shows it connected with its machine's facts, its
 * budget in MB and its runtime; with the load balancer off its card is absent (the 404 it
 * answers is expected, not a failure); with the cluster off the page says how to turn it on.
 * The load balancer on and the join card: nodes-cluster.browser.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor } from '../support/controller';
import { freePort } from '../support/ports';

const TOKEN = 'dashboard-nodes-token-0123456789abcdef';
const CLUSTER_TOKEN = 'dashboard-nodes-cluster-token-0123456789';
let browser: Browser;
let svc: string;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  svc = await svcBinary();
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

describe('Nodes', () => {
  test('an agent that joined is shown connected, with its machine', async () => {
    const { dir, remove } = tempDir('svc-browser-nodes-');
    cleanups.push(remove);
    const controllerDir = join(dir, 'controller');
    const agentDir = join(dir, 'agent');
    mkdirSync(controllerDir);
    mkdirSync(agentDir);
    writeFileSync(
      join(controllerDir, 'svc.toml'),
      `[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[cluster]\nenabled = true\ntoken = "${CLUSTER_TOKEN}"\nagent_port = ${freePort()}\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\nheartbeat_interval = 300\n[services]\nisolation = "none"\n`,
    );
    const { url, api } = await startBinaryController(svc, controllerDir, TOKEN, cleanups);
    writeFileSync(join(agentDir, 'agent.toml'), `[agent]\ncontroller = "${url}"\ntoken = "${CLUSTER_TOKEN}"\nnode_name = "node-a"\npublic_host = "127.0.0.1"\n[services]\nisolation = "none"\n`);
    const agent = Bun.spawn([svc, 'agent', '--dir', agentDir], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json' }, stdout: 'ignore', stderr: 'ignore', stdin: 'ignore' });
    cleanups.push(() => agent.kill('SIGKILL'));
    await waitFor(async () => ((await (await api('/api/nodes')).json()) as { nodes: { nodeId: string; isConnected: boolean }[] }).nodes.some((n) => n.nodeId === 'node-a' && n.isConnected), { what: 'node-a connected', timeoutMs: 30_000 });

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    // The load balancer is off: the card asks once, hears 404 LOAD_BALANCER_NOT_ENABLED and shows nothing.
    problems.expect(/^404 GET \/api\/loadbalancer$/);
    problems.expect(/status of 404/);
    await signIn(page, url, TOKEN);
    const lbAnswer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/loadbalancer');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Nodes', exact: true }).click();
    const card = page.getByRole('article', { name: 'Node node-a' });
    await card.waitFor();
    expect(await card.textContent()).toContain('connected');
    expect(await card.textContent()).toContain(hostname());
    // agent.toml's default max_memory = "8G": the budget with its unit; the runtime as the node reports it.
    expect(await card.textContent()).toContain('services may take 8192 MB (8.0 GiB)');
    expect(await card.textContent()).toMatch(/RuntimeBun \d+\.\d+/);
    const answer = await lbAnswer;
    expect(answer.status()).toBe(404);
    expect(((await answer.json()) as { error: string }).error).toBe('LOAD_BALANCER_NOT_ENABLED');
    expect(await page.getByRole('region', { name: /^Load balancer/ }).count()).toBe(0);
    expect(await page.getByText('Load balancer').count()).toBe(0);
    await page.getByRole('region', { name: 'Join an agent' }).waitFor();
    await page.screenshot({ path: join(screenshotDir(), 'nodes-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'nodes-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
    agent.kill('SIGTERM');
    await agent.exited;
  }, 90_000);

  test('with the cluster off, the page says how to turn it on', async () => {
    const { dir, remove } = tempDir('svc-browser-nodes-off-');
    cleanups.push(remove);
    writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n[services]\nisolation = "none"\n');
    const { url } = await startBinaryController(svc, dir, TOKEN, cleanups);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = new PageProblems(page);
    problems.expect(/^404 GET \/api\/nodes$/);
    problems.expect(/^404 GET \/api\/loadbalancer$/);
    problems.expect(/status of 404/);
    await signIn(page, url, TOKEN);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Nodes', exact: true }).click();
    await page.getByText('the cluster is off').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('[cluster] enabled = true');
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
