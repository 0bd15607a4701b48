/**
 * The Nodes page with the cluster and the load balancer on, in headless Chromium against the
 * binary: the load balancer card shows GET /api/loadbalancer's figures (a connection made
 * through it counted there too) and a READY proxy (fake-paper as a VELOCITY group: it answers
 * the balancer's Server List Ping, so it is healthy) as a backend with a green "healthy"; the
 * join card shows the bootstrap's fingerprint, its Copy puts the PEM on the clipboard, and the
 * agent.toml lines it gives (the token filled in) make a real `svc agent` join, whose card then
 * shows its budget in MB and its runtime. Screenshots at 1280 and 390 px, light and dark.
 * A game account's dashboard session may see the page but not the bootstrap route (API tokens
 * only): the page never asks it and says where to read the certificate instead.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { launchChromium, PageProblems, pageScrollWidth, screenshotDir, signIn } from '../support/browser';
import { tempDir, waitFor } from '../support/controller';
import { FAKE_PAPER } from '../fixtures/fake-paper-group';

const TOKEN = 'dashboard-nodes-cluster-token-0123456789ab';
const CLUSTER_TOKEN = 'dashboard-nodes-cluster-secret-0123456789';
/** A proxy group whose one instance is fake-paper: READY on its Done line, answering pings. */
const PROXY = { name: 'Proxy', software: 'VELOCITY', version: '3.4.0', memory: '256M', minInstances: 1, maxInstances: 1, drainTimeout: 0, placementNode: 'local', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--max-lifetime-ms', '240000'] };

interface LoadBalancerStatus {
  bind: string;
  port: number;
  strategy: string;
  totalConnections: number;
  activeConnections: number;
  rejectedConnections: number;
  backends: { name: string; host: string; port: number; playerCount: number; connectionCount: number; health: string }[];
}
interface Bootstrap {
  fingerprint: string;
  certPem: string;
  wsUrl: string;
  validUntil: string;
  sans: string[];
}

let browser: Browser;
let dir: string;
let url: string;
let api: (path: string, init?: RequestInit) => Promise<Response>;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  const svc = await svcBinary();
  const temp = tempDir('svc-browser-nodes-cluster-');
  cleanups.push(temp.remove);
  dir = temp.dir;
  mkdirSync(join(dir, 'controller'));
  writeFileSync(
    join(dir, 'controller', 'svc.toml'),
    [
      '[api]',
      'port = 0',
      'rate_limit = 0',
      'service_rate_limit = 0',
      '[network]',
      'bind = "127.0.0.1"',
      '[cluster]',
      'enabled = true',
      `token = "${CLUSTER_TOKEN}"`,
      'agent_port = 0',
      'bind = "127.0.0.1"',
      'public_host = "127.0.0.1"',
      '[loadbalancer]',
      'enabled = true',
      'bind = "127.0.0.1"',
      'port = 0',
      'health_check_interval = 1',
      // No look for a newer Velocity build on the internet.
      '[proxy]',
      'update_check = false',
      '[services]',
      'isolation = "none"',
      '',
    ].join('\n'),
  );
  ({ url, api } = await startBinaryController(svc, join(dir, 'controller'), TOKEN, cleanups));
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  // The proxy first (the controller's SIGKILL would leave it running), then the rest.
  await api?.('/api/services/Proxy-1/stop', { method: 'POST' }).catch(() => undefined);
  cleanups.splice(0).reverse().forEach((f) => f());
  if (dir) killGameServers(dir, []);
}, 30_000);

async function json<T>(path: string): Promise<T> {
  const response = await api(path);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** The value a <dl> gives for `term` (the <dd> after its <dt>, or inside the same <div>). */
async function fact(card: Locator, term: string): Promise<string> {
  const dd = card.locator('dt', { hasText: new RegExp(`^${term.replace(/[()]/g, '\\$&')}$`) }).locator('xpath=following-sibling::dd[1]');
  return ((await dd.textContent()) ?? '').trim();
}

/** What the clipboard holds after pressing the Copy button named `name` (its block then says Copied.). */
async function copied(page: Page, name: string): Promise<string> {
  const button = page.getByRole('button', { name, exact: true });
  await button.click();
  await page.locator('.nd-copy', { has: button }).getByRole('status').getByText('Copied.', { exact: true }).waitFor();
  return page.evaluate<string>('navigator.clipboard.readText()');
}

async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(screenshotDir(), `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(screenshotDir(), `${name}-390.png`), fullPage: true });
}

describe('Nodes: load balancer and joining an agent', () => {
  test('the balancer card shows its figures and the READY proxy; the join card pins the certificate, copies it, and its lines make an agent join', async () => {
    expect((await api('/api/groups', { method: 'POST', body: JSON.stringify(PROXY) })).status).toBe(201);
    // The READY proxy is a backend, and the balancer's own ping found it healthy.
    await waitFor(async () => (await json<LoadBalancerStatus>('/api/loadbalancer')).backends.some((b) => b.name === 'Proxy-1' && b.health === 'healthy'), { what: 'Proxy-1 a healthy backend', timeoutMs: 30_000, intervalMs: 100 });
    const boot = await json<Bootstrap>('/api/cluster/bootstrap');

    const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await context.newPage();
    const problems = new PageProblems(page);
    await signIn(page, url, TOKEN);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Nodes', exact: true }).click();

    // The load balancer: where it listens, how it picks, and the READY proxy with its health.
    const lb = page.getByRole('region', { name: /^Load balancer/ });
    await lb.waitFor();
    let status = await json<LoadBalancerStatus>('/api/loadbalancer');
    expect(await fact(lb, 'Listens on')).toBe(`${status.bind}:${status.port}`);
    expect(await fact(lb, 'Strategy')).toBe(status.strategy);
    expect(await fact(lb, 'PROXY protocol')).toBe('off');
    const backend = status.backends.find((b) => b.name === 'Proxy-1')!;
    const row = lb.getByRole('row', { name: /Proxy-1/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual(['Proxy-1', `${backend.host}:${backend.port}`, String(backend.playerCount), String(backend.connectionCount), 'healthy']);
    expect(await row.locator('.nd-healthy').textContent()).toBe('healthy');

    // A client through the balancer counts; the card catches up by its own polling and shows the API's figures.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(status.port, '127.0.0.1', () => socket.end());
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    status = await waitFor(async () => {
      const now = await json<LoadBalancerStatus>('/api/loadbalancer');
      return now.totalConnections >= 1 && now.activeConnections === 0 ? now : null;
    }, { what: 'the connection counted and closed', timeoutMs: 10_000, intervalMs: 100 });
    await waitFor(async () => (await fact(lb, 'Total connections')) === String(status.totalConnections), { what: 'the card to show the new total', timeoutMs: 15_000, intervalMs: 100 });
    expect([await fact(lb, 'Total connections'), await fact(lb, 'Active'), await fact(lb, 'Rejected')]).toEqual([status.totalConnections, status.activeConnections, status.rejectedConnections].map(String));

    // Joining an agent: the bootstrap's facts, the PEM copied as the API gives it.
    const joinCard = page.getByRole('region', { name: 'Join an agent' });
    await page.getByText('No agent has joined yet').waitFor();
    expect(await fact(joinCard, 'Fingerprint (SHA-256)')).toBe(boot.fingerprint);
    expect(await fact(joinCard, 'Agent channel')).toBe(boot.wsUrl);
    expect(await fact(joinCard, 'Names (SANs)')).toBe(boot.sans.join(', '));
    expect(await joinCard.locator('time').getAttribute('datetime')).toBe(boot.validUntil);
    expect(await joinCard.getByLabel('Certificate (PEM)', { exact: true }).textContent()).toBe(boot.certPem);
    expect(await copied(page, 'Copy certificate (pem)')).toBe(boot.certPem);

    // The agent.toml lines, with the token filled in, are all a fresh agent needs.
    const toml = await copied(page, 'Copy agent.toml');
    expect(toml).toContain(`controller = "${url}"`);
    expect(toml).toContain(`fingerprint = "${boot.fingerprint}"`);
    expect(toml).toContain(`cluster_url = "${boot.wsUrl}"`);
    expect(toml).toContain('node_name = "node-1"');
    const agentDir = join(dir, 'agent');
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, 'agent.toml'), `${toml.replace('<cluster token>', CLUSTER_TOKEN)}\n[services]\nisolation = "none"\n`);
    const agent = Bun.spawn([await svcBinary(), 'agent', '--dir', agentDir], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json' }, stdout: 'ignore', stderr: 'ignore', stdin: 'ignore' });
    cleanups.push(() => agent.kill('SIGKILL'));

    // It joins; its card (live, from NODE_ events) shows the budget in MB and the runtime the node reports.
    const card = page.getByRole('article', { name: 'Node node-1' });
    await card.getByText('connected', { exact: true }).waitFor({ timeout: 30_000 });
    const node = (await json<{ nodes: { nodeId: string; maxMemoryMb: number; system: { runtimeVersion: string; processCpuLoad: number } }[] }>('/api/nodes')).nodes.find((n) => n.nodeId === 'node-1')!;
    const text = (await card.textContent()) ?? '';
    expect(text).toContain(`services may take ${node.maxMemoryMb} MB (${(node.maxMemoryMb / 1024).toFixed(1)} GiB)`);
    expect(text).toContain(`Runtime${node.system.runtimeVersion}`);
    // An agent does not report its own process (-1): no such row.
    expect(node.system.processCpuLoad).toBe(-1);
    expect(text).not.toContain('Process CPU');
    // The next example name moves on.
    await waitFor(async () => (await joinCard.getByLabel('agent.toml', { exact: true }).textContent())?.includes('node_name = "node-2"'), { what: 'the example to name node-2', intervalMs: 100 });

    await screenshots(page, 'nodes-cluster');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshots(page, 'nodes-cluster-dark');
    expect(problems.problems).toEqual([]);
    await context.close();
    agent.kill('SIGTERM');
    await agent.exited;
  }, 120_000);

  // After the test above: its Proxy-1 is READY (the player's proxy, and the balancer's backend).
  test('a dashboard session is not offered the bootstrap route: the page says where to read it and never asks', async () => {
    // A player online (the bridge's event, with the derived service token), holding only the nodes of the
    // Overview (where the sign-in lands) and the Nodes page, signed in by a login code.
    const service = createHmac('sha256', TOKEN).update('svc-service-token').digest('hex');
    const asService = (path: string, body: unknown) => api(path, { method: 'POST', headers: { authorization: `Bearer ${service}` }, body: JSON.stringify(body) });
    const player = { uuid: '00000000-0000-4000-8000-000000000d0e', name: 'Nodie' };
    expect((await asService('/api/proxy/events', { type: 'PLAYER_CONNECTED', player: player.name, uuid: player.uuid, service: 'Proxy-1' })).status).toBe(200);
    expect((await api('/api/permissions/groups', { method: 'POST', body: JSON.stringify({ name: 'nodeviewers' }) })).status).toBe(201);
    for (const permission of ['svc.dashboard.overview', 'svc.dashboard.nodes.view']) {
      expect((await api('/api/permissions/groups/nodeviewers/permissions', { method: 'POST', body: JSON.stringify({ permission }) })).status).toBe(200);
    }
    expect((await api(`/api/permissions/players/${player.uuid}/groups`, { method: 'POST', body: JSON.stringify({ group: 'nodeviewers' }) })).status).toBe(200);
    const { code } = (await (await asService('/api/auth/generate-code', player)).json()) as { code: string };
    const login = await fetch(`${url}/api/auth/consume-challenge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: code }) });
    const session = ((await login.json()) as { token: string }).token;
    // What the page would have been refused: the route is for API tokens whatever the session holds.
    expect((await fetch(`${url}/api/cluster/bootstrap`, { headers: { authorization: `Bearer ${session}` } })).status).toBe(403);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = new PageProblems(page);
    // A session token pasted into the API token field: the sign-in tells it from an API token by the route only API tokens may call.
    problems.expect(/^403 GET \/api\/ws-ticket$/);
    problems.expect(/status of 403/);
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await signIn(page, url, session);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Nodes', exact: true }).click();
    const joinCard = page.getByRole('region', { name: 'Join an agent' });
    await joinCard.getByText('a dashboard session cannot read it').waitFor();
    expect(await joinCard.getByLabel('Ask the controller with the cluster token', { exact: true }).textContent()).toBe(`curl -s -H "Authorization: Bearer $SVC_CLUSTER_TOKEN" ${url}/api/cluster/bootstrap`);
    expect(await joinCard.getByLabel('Fingerprint from the file', { exact: true }).textContent()).toContain('data/cluster/cluster.crt');
    const toml = (await joinCard.getByLabel('agent.toml', { exact: true }).textContent()) ?? '';
    expect(toml).toContain(`controller = "${url}"`);
    expect(toml).not.toContain('fingerprint');
    // The session may read the load balancer (svc.dashboard.nodes.view): its card is there too.
    await page.getByRole('region', { name: /^Load balancer/ }).getByRole('row', { name: /Proxy-1/ }).waitFor();
    expect(asked).not.toContain('/api/cluster/bootstrap');
    await page.screenshot({ path: join(screenshotDir(), 'nodes-cluster-session-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(screenshotDir(), 'nodes-cluster-session-390.png'), fullPage: true });
    expect(problems.problems).toEqual([]);
    await page.close();
  }, 60_000);
});
