import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONFIG_TEXT } from '../../src/config/load';
import { startController, expectErrorBody, readJson, waitFor, type TestController } from '../support/controller';
import { BUILTIN_MODULES } from '../../src/modules/builtin';

let c: TestController;
beforeAll(async () => {
  c = await startController();
});
afterAll(() => c.stop());

describe('GET /api/health', () => {
  test('answers without a token with the version from package.json', async () => {
    const res = await c.api('/api/health', { token: null });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    const pkg = JSON.parse(readFileSync(join(import.meta.dir, '../../package.json'), 'utf8'));
    expect(body).toEqual({ status: 'ok', version: pkg.version, uptimeSeconds: expect.any(Number), services: 0, apiEnabled: true });
    expect(pkg.version).toBe('0.13.0');
  });
});

describe('unknown routes', () => {
  test('404 with the error body', async () => {
    const res = await c.api('/api/nope');
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).error).toBe('ROUTE_NOT_FOUND');
  });

  test('a trailing slash is another URL: 404, not the route without it', async () => {
    expect(await readJson(await c.api('/api/groups'))).toHaveProperty('groups');
    const res = await c.api('/api/groups/');
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).error).toBe('ROUTE_NOT_FOUND');
  });

  test('a plain GET to a WebSocket endpoint is 426 naming it, with Upgrade: websocket', async () => {
    const res = await c.api('/api/events');
    expect(res.status).toBe(426);
    expect(res.headers.get('upgrade')).toBe('websocket');
    expect((await expectErrorBody(res)).message).toContain('/api/events is a WebSocket endpoint');
  });

  test('HEAD is answered like GET, without a body', async () => {
    const res = await c.api('/api/health', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('application/json');
    expect(await res.text()).toBe('');
  });
});

describe('POST /api/tokens and GET /api/tokens/scopes', () => {
  test('scopes are the sorted spec list without INSUFFICIENT_SCOPE-era extras', async () => {
    const body = await readJson(await c.api('/api/tokens/scopes'));
    expect(body.scopes).toEqual([
      'admin', 'audit:read', 'cluster:read', 'cluster:write', 'config:read', 'config:write', 'files:read',
      'files:write', 'groups:read', 'groups:write', 'metrics:read', 'services:read', 'services:write',
    ]);
  });

  test('mints a JWT that opens exactly what its scopes allow', async () => {
    const res = await c.api('/api/tokens', { method: 'POST', json: { subject: 'grafana', scopes: ['metrics:read'], expiresInSeconds: 600 } });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, subject: 'grafana', scopes: ['metrics:read'] });
    expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    expect((await c.api('/api/metrics', { token: body.token })).status).toBe(200);
    const refused = await c.api('/api/config', { token: body.token });
    expect(refused.status).toBe(403);
    expect((await expectErrorBody(refused)).error).toBe('FORBIDDEN');
    const audit = await readJson(await c.api('/api/audit?action=TOKEN_ISSUED'));
    expect(audit.entries[0]).toMatchObject({ actor: 'api:admin', action: 'TOKEN_ISSUED', target: 'grafana' });
    expect(audit.entries[0].details).not.toContain(body.token);
  });

  test('route scopes: config:read opens GET /api/config but not PATCH', async () => {
    const { token } = await c.controller.kernel.auth.mintJwt('reader', ['config:read'], 600);
    expect((await c.api('/api/config', { token })).status).toBe(200);
    expect((await c.api('/api/config', { token, method: 'PATCH', json: { networkName: 'x' } })).status).toBe(403);
  });

  test.each([
    [{ subject: 's', scopes: ['admin'], expiresInSeconds: 59 }, 'expiresInSeconds'],
    [{ subject: 's', scopes: ['root'], expiresInSeconds: 600 }, 'unknown scope "root"'],
    [{ subject: 's', scopes: [], expiresInSeconds: 600 }, 'scopes'],
    [{ scopes: ['admin'], expiresInSeconds: 600 }, '"subject" is required'],
    [{ subject: 's', scopes: ['admin'], expiresInSeconds: '600' }, '"expiresInSeconds" must be an integer'],
  ])('rejects %j naming the problem', async (json, fragment) => {
    const res = await c.api('/api/tokens', { method: 'POST', json });
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toContain(fragment);
  });

  test('needs jwt_enabled', async () => {
    const off = await startController({ jwt: false });
    try {
      const res = await off.api('/api/tokens', { method: 'POST', json: { subject: 's', scopes: ['admin'], expiresInSeconds: 600 } });
      expect(res.status).toBe(409);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('AUTH_DISABLED');
      expect(body.message).toContain('jwt_enabled');
      // With JWTs off a JWT-shaped token is just a wrong token.
      const { token } = await c.controller.kernel.auth.mintJwt('x', ['admin'], 600);
      expect((await expectErrorBody(await off.api('/api/config', { token }))).error).toBe('AUTH_FAILED');
    } finally {
      await off.stop();
    }
  });

  test('needs admin', async () => {
    const res = await c.api('/api/tokens', { token: c.service, method: 'POST', json: { subject: 's', scopes: ['admin'], expiresInSeconds: 600 } });
    expect(res.status).toBe(403);
  });
});

describe('GET and PATCH /api/config', () => {
  test('GET shows the config without any secret', async () => {
    const res = await c.api('/api/config');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(c.master);
    expect(text).not.toContain(c.cluster);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ networkName: 'svc', consoleColored: true, consoleLogEvents: true, hasToken: true });
    expect(body.sections.api.has_token).toBe(true);
    expect(body.sections.api.token).toBeUndefined();
    expect(body.sections.cluster.has_token).toBe(true);
    expect(body.sections.database.has_password).toBe(false);
  });

  test('PATCH changes the live value and rewrites only its line of svc.toml', async () => {
    const file = join(c.dir, 'svc.toml');
    const before = readFileSync(file, 'utf8');
    const res = await c.api('/api/config', { method: 'PATCH', json: { networkName: 'Skyblock Network', consoleLogEvents: false } });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, updated: ['networkName', 'consoleLogEvents'] });
    expect(body.config).toMatchObject({ networkName: 'Skyblock Network', consoleLogEvents: false });
    const after = readFileSync(file, 'utf8');
    expect(after).toContain('name = "Skyblock Network"');
    expect(after).toContain('log_events = false');
    // The harness file had no [network]/[console] sections: they were appended, the rest kept.
    expect(after.startsWith(before.trimEnd())).toBe(true);
    expect((await readJson(await c.api('/api/config'))).networkName).toBe('Skyblock Network');
    const audit = await readJson(await c.api('/api/audit?action=CONFIG_UPDATED'));
    expect(audit.entries[0]).toMatchObject({ actor: 'api:admin', details: 'networkName=Skyblock Network, consoleLogEvents=false' });
  });

  test('PATCH on the default file changes one line and keeps every comment', async () => {
    const d = await startController();
    try {
      const file = join(d.dir, 'svc.toml');
      await Bun.write(file, DEFAULT_CONFIG_TEXT.replace('port = 8080', 'port = 0').replace('token = ""', `token = "${d.master}"`).replace('rate_limit = 120', 'rate_limit = 0'));
      const before = readFileSync(file, 'utf8').split('\n');
      expect((await d.api('/api/config', { method: 'PATCH', json: { consoleColored: false } })).status).toBe(200);
      const after = readFileSync(file, 'utf8').split('\n');
      expect(after.length).toBe(before.length);
      expect(after.filter((line, i) => line !== before[i])).toEqual(['colored = false']);
    } finally {
      await d.stop();
    }
  });

  test('PATCH with nothing patchable is NO_FIELDS_TO_UPDATE and leaves the file alone', async () => {
    const file = join(c.dir, 'svc.toml');
    const before = readFileSync(file, 'utf8');
    for (const json of [{}, { apiPort: 9 }]) {
      const res = await c.api('/api/config', { method: 'PATCH', json });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).error).toBe('NO_FIELDS_TO_UPDATE');
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('PATCH refuses control characters and lone surrogates, and the file stays patchable', async () => {
    for (const networkName of ['\ud800', 'a\u007fb', 'line\nbreak']) {
      const res = await c.api('/api/config', { method: 'PATCH', json: { networkName } });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).message).toContain('printable');
    }
    expect((await c.api('/api/config', { method: 'PATCH', json: { networkName: 'a\u2028b' } })).status).toBe(200);
    expect((await c.api('/api/config', { method: 'PATCH', json: { networkName: 'after' } })).status).toBe(200);
    expect((await readJson(await c.api('/api/config'))).networkName).toBe('after');
  });

  test('PATCH validation names the field', async () => {
    const res = await c.api('/api/config', { method: 'PATCH', json: { networkName: '' } });
    const body = await expectErrorBody(res);
    expect(res.status).toBe(400);
    expect(body.message).toContain('"networkName"');
  });
});

describe('GET /api/audit', () => {
  test('pages newest first with clamped limit and exact filters', async () => {
    const bus = c.controller.kernel.bus;
    for (let i = 0; i < 3; i++) bus.publish('GROUP_CREATED', { group: `G${i}` }, 'api:admin');
    bus.publish('GROUP_DELETED', { group: 'G0' }, 'console');
    bus.publish('SERVICE_READY', { service: 'Lobby-1', group: 'Lobby' }); // never audited
    bus.publish('SERVICE_STOPPING', { service: 'Lobby-1' }); // audited only with an actor
    bus.publish('SERVICE_STOPPING', { service: 'Lobby-2' }, 'api:service');

    const created = await readJson(await c.api('/api/audit?action=GROUP_CREATED&limit=2'));
    expect(created.limit).toBe(2);
    expect(created.total).toBe(3);
    expect(created.entries.map((e: { target: string }) => e.target)).toEqual(['G2', 'G1']);
    const next = await readJson(await c.api('/api/audit?action=GROUP_CREATED&limit=2&offset=2'));
    expect(next.entries.map((e: { target: string }) => e.target)).toEqual(['G0']);

    const byConsole = await readJson(await c.api('/api/audit?actor=console'));
    expect(byConsole.entries).toEqual([{ timestamp: expect.any(String), actor: 'console', action: 'GROUP_DELETED', target: 'G0', details: 'group=G0' }]);
    expect((await readJson(await c.api('/api/audit?action=SERVICE_READY'))).total).toBe(0);
    const stopping = await readJson(await c.api('/api/audit?action=SERVICE_STOPPING'));
    expect(stopping.entries.map((e: { target: string }) => e.target)).toEqual(['Lobby-2']);
    expect((await readJson(await c.api('/api/audit?action=GROUP&actor=api:admin'))).total).toBe(0);

    expect((await readJson(await c.api('/api/audit?limit=0'))).limit).toBe(1);
    expect((await readJson(await c.api('/api/audit?limit=100000'))).limit).toBe(500);
    expect((await readJson(await c.api('/api/audit'))).limit).toBe(50);
  });

  test('a huge offset is an empty page, not an error', async () => {
    for (const offset of ['1e21', '99999999999999999999']) {
      const res = await c.api(`/api/audit?offset=${offset}`);
      expect(res.status).toBe(200);
      expect((await readJson(res)).entries).toEqual([]);
    }
  });

  test('rejects a non-integer limit', async () => {
    const res = await c.api('/api/audit?limit=ten');
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).message).toContain('"limit"');
  });
});

describe('request bodies', () => {
  test('deep nesting is refused at once with the error body', async () => {
    for (const depth of [33, 10_000, 40_000]) {
      const res = await c.api('/api/config', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: `{"consoleColored":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).message).toContain('nests deeper than 32');
    }
  });

  test('a body at the nesting limit is judged by its schema', async () => {
    const res = await c.api('/api/config', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: `{"consoleColored":${'['.repeat(30)}${']'.repeat(30)}}` });
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).message).toContain('"consoleColored" must be true or false');
  });
});

describe('GET /api/metrics', () => {
  test('text exposition of the base series, for service tokens', async () => {
    const res = await c.api('/api/metrics', { token: c.service });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/plain');
    const text = await res.text();
    expect(text).toContain('svc_info{version="0.13.0"} 1');
    expect(text).toMatch(/\nsvc_uptime_seconds \d+\n/);
    expect(text).toContain('\nsvc_services_total 0\n');
    expect(text).toContain('# TYPE svc_services_total gauge');
  });
});

describe('GET /api/modules', () => {
  test('lists every module of the build; a first start installs and loads them all', async () => {
    const { modules } = await readJson(await c.api('/api/modules'));
    expect(modules.map((m: { id: string }) => m.id)).toEqual(BUILTIN_MODULES.map((m) => m.id));
    for (const m of modules) expect(m).toMatchObject({ status: 'active', loaded: true, installed: true, restartRequired: false });
    expect((await c.api('/api/modules', { token: c.service })).status).toBe(403);
  });
});

describe('GET /api/openapi.json', () => {
  test('is OpenAPI 3.1 covering every route with its auth level', async () => {
    const doc = await readJson(await c.api('/api/openapi.json', { token: null }));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.13.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, { 'x-svc-auth': string }>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op['x-svc-auth']}`),
    );
    expect(operations.length).toBe(c.controller.routes.length);
    expect(operations).toContain('GET /api/health public');
    expect(operations).toContain('PATCH /api/config admin');
    expect(operations).toContain('GET /api/metrics service');
    expect(doc.paths['/api/audit'].get.parameters.find((p: { name: string }) => p.name === 'limit').schema.type).toBe('integer');
    expect(doc.paths['/api/tokens'].post.requestBody.content['application/json'].schema.required).toContain('scopes');
    expect(doc['x-svc-websockets']).toEqual([
      expect.objectContaining({ path: '/api/events', auth: 'service' }),
      expect.objectContaining({ path: '/api/services/{name}/console', auth: 'admin' }),
      expect.objectContaining({ path: '/api/console/stream', auth: 'admin' }),
    ]);
  });
});

describe('POST /api/shutdown', () => {
  test('answers 202 and asks the controller to stop', async () => {
    const res = await c.api('/api/shutdown', { method: 'POST' });
    expect(res.status).toBe(202);
    expect(await readJson(res)).toEqual({ success: true, message: 'shutting down' });
    expect(c.shutdownRequests).toEqual(['shutdown requested through the API']);
  });

  test('for real: API_STOPPED, server closed, database closed, exit 0 after ~250 ms', async () => {
    const d = await startController({ realShutdown: true });
    const events: string[] = [];
    d.controller.kernel.bus.subscribe((e) => events.push(`${e.type}:${e.data.reason ?? ''}`));
    const asked = Date.now();
    expect((await d.api('/api/shutdown', { method: 'POST' })).status).toBe(202);
    await waitFor(() => d.shutdowns.length > 0, { what: 'exit' });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(240);
    expect(d.shutdowns).toEqual([0]);
    // The API stops first; then each module stops (MODULE_DISABLED), the database closing last.
    expect(events).toEqual(['API_STOPPED:shutdown requested through the API', ...BUILTIN_MODULES.map(() => 'MODULE_DISABLED:')]);
    expect(() => d.controller.kernel.db.query('SELECT 1').get()).toThrow();
    expect(fetch(`${d.url}/api/health`)).rejects.toThrow();
    await d.stop();
  });
});

describe('CORS', () => {
  test('preflight from an allowed origin passes for every method', async () => {
    const res = await fetch(`${c.url}/api/config`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
  });

  test('error responses carry the CORS headers so the browser can read them', async () => {
    const res = await fetch(`${c.url}/api/config`, { headers: { origin: 'http://localhost:3000' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  test('an origin not listed gets no allow header', async () => {
    const res = await fetch(`${c.url}/api/health`, { headers: { origin: 'http://evil.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('an empty list allows any origin and warns', async () => {
    const any = await startController({ apiToml: 'allowed_origins = []' });
    try {
      const res = await fetch(`${any.url}/api/health`, { headers: { origin: 'http://anything.example' } });
      expect(res.headers.get('access-control-allow-origin')).toBe('http://anything.example');
      expect(any.logs.join('')).toContain('allowed_origins is empty');
    } finally {
      await any.stop();
    }
  });
});
