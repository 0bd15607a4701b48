import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import { t } from '../../src/http/t';
import { RateLimiter } from '../../src/http/rate-limit';
import { clientIp, splitUrl } from '../../src/http/request';
import { defineRoute } from '../../src/http/route';
import type { SvcModule } from '../../src/modules/module';
import { createHash } from 'node:crypto';
import { TENANT_TOKEN_PREFIX, type TenantIdentity } from '../../src/core/auth';
import { BUILTIN_MODULES } from '../../src/modules/builtin';
import { expectErrorBody, startController, type TestController } from '../support/controller';
import { loginAs, testPlayer } from '../support/dashboard-login';

describe('RateLimiter (pure, fake clock)', () => {
  test('allows a burst of max, then refills at max per window', () => {
    let now = 0;
    const limiter = new RateLimiter(120, 60_000, () => now);
    for (let i = 0; i < 120; i++) expect(limiter.take('a').ok).toBe(true);
    const refused = limiter.take('a');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.take('b').ok).toBe(true); // per key
    now += 500; // one token every 500 ms at 120/min
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
  });

  test('Retry-After grows with a slow refill', () => {
    let now = 0;
    const limiter = new RateLimiter(5, 60_000, () => now);
    for (let i = 0; i < 5; i++) limiter.take('x');
    expect(limiter.take('x')).toEqual({ ok: false, retryAfterSeconds: 12 });
    now += 6_000;
    expect(limiter.take('x')).toEqual({ ok: false, retryAfterSeconds: 6 });
  });

  test('a clock that runs back an hour neither locks the key out nor waits longer than one token takes', () => {
    let now = 10_000_000;
    const limiter = new RateLimiter(120, 60_000, () => now);
    for (let i = 0; i < 120; i++) limiter.take('a');
    now -= 3_600_000;
    // One token comes back every 500 ms: the wait is never more than that, never "3538 s".
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now += 500;
    expect(limiter.take('a').ok).toBe(true);
    // And when the clock returns, the hour it "gained" refills at most a full bucket, never more.
    now += 3_600_000;
    for (let i = 0; i < 120; i++) expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
  });

  test('the default clock is monotonic: a wall-clock step changes nothing', () => {
    const limiter = new RateLimiter(2, 60_000);
    const wall = spyOn(Date, 'now');
    try {
      wall.mockReturnValue(Date.UTC(2030, 0, 1));
      expect(limiter.take('k').ok).toBe(true);
      expect(limiter.take('k').ok).toBe(true);
      wall.mockReturnValue(Date.UTC(2029, 11, 31, 23));
      expect(limiter.take('k')).toEqual({ ok: false, retryAfterSeconds: 30 });
      wall.mockReturnValue(Date.UTC(2030, 0, 2));
      expect(limiter.take('k').ok).toBe(false); // a day "passed" on the wall: no fresh budget
    } finally {
      wall.mockRestore();
    }
  });

  test('0 means off; sweep forgets refilled buckets', () => {
    expect(new RateLimiter(0).take('k').ok).toBe(true);
    let now = 0;
    const limiter = new RateLimiter(2, 1000, () => now);
    limiter.take('k');
    expect(limiter.size).toBe(1);
    limiter.sweep();
    expect(limiter.size).toBe(1);
    now += 1000;
    limiter.sweep();
    expect(limiter.size).toBe(0);
  });
});

describe('splitUrl', () => {
  test('path and query without a URL object', () => {
    expect(splitUrl('http://a:1/api/x?y=1#z')).toEqual({ pathname: '/api/x', search: 'y=1' });
    expect(splitUrl('http://a/api')).toEqual({ pathname: '/api', search: '' });
    expect(splitUrl('http://[::1]:80/p/%2e%2e?')).toEqual({ pathname: '/p/%2e%2e', search: '' });
    expect(splitUrl('http://h/?t=a')).toEqual({ pathname: '/', search: 't=a' });
  });
});

describe('clientIp', () => {
  const req = (xff?: string) => new Request('http://x/', { headers: xff ? { 'x-forwarded-for': xff } : {} });
  test('ignores X-Forwarded-For unless trusted', () => {
    expect(clientIp(req('1.2.3.4'), '127.0.0.1', false)).toBe('127.0.0.1');
  });
  test('when trusted, takes the right-most entry (the one the proxy added)', () => {
    expect(clientIp(req('6.6.6.6, 1.2.3.4'), '127.0.0.1', true)).toBe('1.2.3.4');
    expect(clientIp(req(), '127.0.0.1', true)).toBe('127.0.0.1');
  });
});

/** A module route with the per-route limit hook (the stress routes use 5/min). */
const limitedModule: SvcModule = {
  id: 'limited',
  name: 'Limited',
  version: '1.0.0',
  description: 'test module with a rate-limited route',
  routes: () => [
    defineRoute({
      method: 'POST',
      path: '/api/limited/go',
      auth: 'admin',
      tag: 'test',
      summary: 'rate limited',
      rateLimit: { max: 5, windowMs: 60_000 },
      response: { 200: t.Object({ ok: t.Boolean() }) },
      handler: () => ({ ok: true }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/limited/chunk',
      auth: 'admin',
      tag: 'test',
      summary: 'a bulk transfer route',
      budget: 'bulk',
      response: { 200: t.Object({ ok: t.Boolean() }) },
      handler: () => ({ ok: true }),
    }),
  ],
};

describe('HTTP rate limits', () => {
  let c: TestController;
  beforeAll(async () => {
    c = await startController({ rateLimit: 10, apiToml: 'service_rate_limit = 30\ntrust_forwarded_for = true', modules: [limitedModule] });
  });
  afterAll(() => c.stop());

  test('the public budget answers 429 with the error body and Retry-After', async () => {
    const ip = { 'x-forwarded-for': '10.0.0.1' };
    for (let i = 0; i < 10; i++) expect((await c.api('/api/health', { token: null, headers: ip })).status).toBe(200);
    const res = await c.api('/api/health', { token: null, headers: ip });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('RATE_LIMITED');
    // Another client is not affected; invalid tokens count against the public budget too.
    expect((await c.api('/api/health', { token: null, headers: { 'x-forwarded-for': '10.0.0.2' } })).status).toBe(200);
  });

  test('service and cluster tokens have their own, larger budget on the same address', async () => {
    const ip = { 'x-forwarded-for': '10.0.0.3' };
    for (let i = 0; i < 10; i++) await c.api('/api/health', { token: null, headers: ip });
    expect((await c.api('/api/health', { token: null, headers: ip })).status).toBe(429);
    for (let i = 0; i < 30; i++) expect((await c.api('/api/metrics', { token: c.service, headers: ip })).status).toBe(200);
    expect((await c.api('/api/metrics', { token: c.service, headers: ip })).status).toBe(429);
    // The master token (the proxy bridge holds it) shares the network components' budget.
    expect((await c.api('/api/config', { headers: ip })).status).toBe(429);
    const other = { 'x-forwarded-for': '10.0.0.7' };
    for (let i = 0; i < 10; i++) await c.api('/api/health', { token: null, headers: other });
    expect((await c.api('/api/health', { token: null, headers: other })).status).toBe(429);
    for (let i = 0; i < 30; i++) expect((await c.api('/api/config', { headers: other })).status).toBe(200);
    expect((await c.api('/api/config', { headers: other })).status).toBe(429);
  });

  test('bulk-transfer routes spend the larger budget for authenticated callers only', async () => {
    const ip = { 'x-forwarded-for': '10.0.0.5' };
    for (let i = 0; i < 10; i++) await c.api('/api/health', { token: null, headers: ip });
    expect((await c.api('/api/health', { token: null, headers: ip })).status).toBe(429);
    for (let i = 0; i < 30; i++) expect((await c.api('/api/limited/chunk', { method: 'POST', headers: ip })).status).toBe(200);
    expect((await c.api('/api/limited/chunk', { method: 'POST', headers: ip })).status).toBe(429);
    const other = { 'x-forwarded-for': '10.0.0.6' };
    for (let i = 0; i < 10; i++) await c.api('/api/limited/chunk', { method: 'POST', token: null, headers: other });
    expect((await c.api('/api/limited/chunk', { method: 'POST', token: null, headers: other })).status).toBe(429);
  });

  test('a route can carry a tighter limit of its own', async () => {
    const ip = { 'x-forwarded-for': '10.0.0.4' };
    for (let i = 0; i < 5; i++) expect((await c.api('/api/limited/go', { method: 'POST', headers: ip })).status).toBe(200);
    const res = await c.api('/api/limited/go', { method: 'POST', headers: ip });
    expect(res.status).toBe(429);
    expect((await expectErrorBody(res)).message).toContain('5 requests per minute');
    expect(Number(res.headers.get('retry-after'))).toBe(12);
  });
});

describe('budgets of sessions and servers’ own credentials', () => {
  let c: TestController;
  const tenantToken = (name: string) => `${TENANT_TOKEN_PREFIX}budget-${name}-0123456789abcdefghij`;
  beforeAll(async () => {
    c = await startController({ rateLimit: 10, apiToml: 'service_rate_limit = 30\ntrust_forwarded_for = true', modules: BUILTIN_MODULES });
    const tenants = new Map<string, TenantIdentity>();
    for (const service of ['Lobby-1', 'Lobby-2']) tenants.set(createHash('sha256').update(tenantToken(service)).digest('hex'), { service, role: 'backend' });
    c.controller.kernel.auth.useTenants({ identify: (hash) => tenants.get(hash) });
  });
  afterAll(() => c.stop());

  test('a session spends the larger budget only where it may call: a session without nodes gets the public one everywhere', async () => {
    const none = await loginAs(c, testPlayer(1, 'NoNodes'), []);
    const ip = { 'x-forwarded-for': '10.1.0.1' };
    for (let i = 0; i < 10; i++) expect((await c.api('/api/health', { token: none, headers: ip })).status).toBe(200);
    expect((await c.api('/api/health', { token: none, headers: ip })).status).toBe(429);
    const other = { 'x-forwarded-for': '10.1.0.2' };
    for (let i = 0; i < 10; i++) expect((await c.api('/api/services', { token: none, headers: other })).status).toBe(403);
    expect((await c.api('/api/services', { token: none, headers: other })).status).toBe(429);
  });

  test('a session holding the node spends the larger budget on that route, and the public one on public routes', async () => {
    const viewer = await loginAs(c, testPlayer(2, 'Viewer'), ['svc.dashboard.services.view']);
    const ip = { 'x-forwarded-for': '10.1.0.3' };
    for (let i = 0; i < 10; i++) await c.api('/api/health', { token: viewer, headers: ip });
    expect((await c.api('/api/health', { token: viewer, headers: ip })).status).toBe(429);
    for (let i = 0; i < 30; i++) expect((await c.api('/api/services', { token: viewer, headers: ip })).status).toBe(200);
    expect((await c.api('/api/services', { token: viewer, headers: ip })).status).toBe(429);
  });

  test('each server’s own credential has a budget of its own: one flooding the API does not starve its neighbours', async () => {
    const ip = { 'x-forwarded-for': '10.1.0.4' };
    for (let i = 0; i < 30; i++) expect((await c.api('/api/services', { token: tenantToken('Lobby-1'), headers: ip })).status).toBe(200);
    expect((await c.api('/api/services', { token: tenantToken('Lobby-1'), headers: ip })).status).toBe(429);
    expect((await c.api('/api/services', { token: tenantToken('Lobby-2'), headers: ip })).status).toBe(200);
    expect((await c.api('/api/metrics', { token: c.service, headers: ip })).status).toBe(200);
  });
});
