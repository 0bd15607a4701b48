/**
 * GET /api/loadbalancer and the load balancer's wiring in the controller: started after the
 * API with `[loadbalancer] enabled = true`, fed by the READY proxy services, its metrics on
 * /api/metrics, stopped with the controller; a port it cannot bind costs only the balancer.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { defaultPortRanges } from '../../src/core/ports';
import { newRecord } from '../../src/core/services/registry';
import { startLoadBalancer } from '../../src/loadbalancer/start';
import { parseExposition } from '../core/metrics/exposition';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';
import { connectClient, startPeer, type Peer } from '../loadbalancer/support';

const LB_TOML = '[loadbalancer]\nenabled = true\nbind = "127.0.0.1"\nport = 0\n';

describe('with [loadbalancer] enabled', () => {
  let c: TestController;
  let echo: Peer;
  beforeAll(async () => {
    echo = startPeer('echo');
    c = await startController({ toml: LB_TOML });
  });
  afterAll(async () => {
    await c?.stop();
    echo?.stop();
  });

  test('GET /api/loadbalancer: the configuration and no backends while no proxy is READY', async () => {
    const res = await c.api('/api/loadbalancer');
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toEqual({
      enabled: true,
      bind: '127.0.0.1',
      port: c.controller.kernel.loadBalancer!.port,
      strategy: 'least-players',
      proxyProtocol: false,
      totalConnections: 0,
      activeConnections: 0,
      rejectedConnections: 0,
      backends: [],
    });
    expect(body.port).toBeGreaterThan(0);
  });

  test('a READY proxy service becomes a backend; a client through the balancer reaches it; the route and metrics count it', async () => {
    const { kernel } = c.controller;
    const proxy = newRecord({ name: 'Proxy-1', group: 'Proxy', port: echo.port, workDir: '/nonexistent/Proxy-1', isStatic: false, isProxy: true, memoryMaxMb: 512, restartCount: 0 });
    Object.assign(proxy, { state: 'READY', playerCount: 2 });
    kernel.services.add(proxy);
    // not READY, not a proxy: neither is a backend
    const starting = newRecord({ name: 'Proxy-2', group: 'Proxy', port: 1, workDir: '/nonexistent/Proxy-2', isStatic: false, isProxy: true, memoryMaxMb: 512, restartCount: 0 });
    kernel.services.add(starting);
    const backend = newRecord({ name: 'Lobby-1', group: 'Lobby', port: 2, workDir: '/nonexistent/Lobby-1', isStatic: false, isProxy: false, memoryMaxMb: 512, restartCount: 0 });
    Object.assign(backend, { state: 'READY' });
    kernel.services.add(backend);

    const client = await connectClient(kernel.loadBalancer!.port);
    client.socket.write('through the controller');
    await waitFor(() => client.text === 'through the controller', { what: 'the echo through the balancer' });

    const body = await readJson(await c.api('/api/loadbalancer'));
    expect(body).toMatchObject({ totalConnections: 1, activeConnections: 1, rejectedConnections: 0 });
    expect(body.backends).toEqual([{ name: 'Proxy-1', host: '127.0.0.1', port: echo.port, playerCount: 2, health: 'healthy', connectionCount: 1 }]);

    const metrics = await c.api('/api/metrics', { token: c.service });
    const parsed = parseExposition(await metrics.text());
    expect(parsed.families.get('svc_loadbalancer_connections_active')?.type).toBe('gauge');
    expect(parsed.families.get('svc_loadbalancer_connections_total')?.type).toBe('counter');
    expect(parsed.families.get('svc_loadbalancer_connections_rejected_total')?.type).toBe('counter');
    expect(parsed.value('svc_loadbalancer_connections_active')).toBe(1);
    expect(parsed.value('svc_loadbalancer_connections_total')).toBe(1);
    expect(parsed.value('svc_loadbalancer_connections_rejected_total')).toBe(0);
    expect(parsed.value('svc_loadbalancer_connections_failed_total')).toBe(0);
    expect(parsed.value('svc_loadbalancer_backend_healthy', { backend: 'Proxy-1' })).toBe(1);
    expect(parsed.value('svc_loadbalancer_backend_connections', { backend: 'Proxy-1' })).toBe(1);

    client.socket.end();
    await waitFor(() => kernel.loadBalancer!.activeConnections === 0, { what: 'the relay finished' });
    for (const name of ['Proxy-1', 'Proxy-2', 'Lobby-1']) kernel.services.remove(name);
  });

  test('401 without a token, 403 with the service token', async () => {
    const none = await c.api('/api/loadbalancer', { token: null });
    expect(none.status).toBe(401);
    expect((await expectErrorBody(none)).error).toBe('UNAUTHORIZED');
    const service = await c.api('/api/loadbalancer', { token: c.service });
    expect(service.status).toBe(403);
    expect((await expectErrorBody(service)).error).toBe('FORBIDDEN');
  });

  test('the controller stopping stops the balancer: its port is free again', async () => {
    const d = await startController({ toml: LB_TOML });
    const port = d.controller.kernel.loadBalancer!.port;
    const client = await connectClient(port);
    await d.stop();
    await waitFor(() => client.closed || client.ended, { what: 'the client closed by the stop' });
    const probe = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } });
    probe.stop(true);
  });
});

describe('with [loadbalancer] off', () => {
  let c: TestController;
  beforeAll(async () => {
    c = await startController();
  });
  afterAll(() => c?.stop());

  test('404 LOAD_BALANCER_NOT_ENABLED, and no load-balancer metrics', async () => {
    const res = await c.api('/api/loadbalancer');
    expect(res.status).toBe(404);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('LOAD_BALANCER_NOT_ENABLED');
    expect(body.message).toContain('not enabled');
    const text = await (await c.api('/api/metrics', { token: c.service })).text();
    expect(text).not.toContain('svc_loadbalancer_');
    expect(c.controller.kernel.loadBalancer).toBeUndefined();
  });
});

describe('with [loadbalancer] enabled on a port already taken', () => {
  test('the controller runs on; the error is logged; the route says why', async () => {
    const holder = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const c = await startController({ toml: `[loadbalancer]\nenabled = true\nbind = "127.0.0.1"\nport = ${holder.port}\n` });
    try {
      expect((await c.api('/api/health', { token: null })).status).toBe(200);
      expect(c.logs.some((line) => line.includes(`[loadbalancer] cannot listen on 127.0.0.1:${holder.port}`))).toBe(true);
      const res = await c.api('/api/loadbalancer');
      expect(res.status).toBe(404);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('LOAD_BALANCER_NOT_ENABLED');
      expect(body.message).toContain('not running');
      // The same start again, watched: the failure is published as API_WARNING.
      const warnings: string[] = [];
      const unsubscribe = c.controller.kernel.bus.subscribe((event) => event.type === 'API_WARNING' && warnings.push(event.data.message ?? ''));
      expect(startLoadBalancer(c.controller.kernel)).toBeUndefined();
      unsubscribe();
      expect(warnings).toEqual([expect.stringContaining(`[loadbalancer] cannot listen on 127.0.0.1:${holder.port}`)]);
    } finally {
      await c.stop();
      holder.stop(true);
    }
  });
});

describe('port ranges', () => {
  test('with the load balancer on, proxies lease from the backend range (the balancer has 25565)', () => {
    expect(defaultPortRanges(30000, 19132, false).proxy).toEqual({ first: 25565, last: 25664 });
    expect(defaultPortRanges(30000, 19132, true).proxy).toEqual({ first: 30000, last: 39999 });
    expect(defaultPortRanges(30000, 19132, true).backend).toEqual({ first: 30000, last: 39999 });
  });
});
