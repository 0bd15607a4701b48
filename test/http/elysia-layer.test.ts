/**
 * The HTTP layer on Elysia, through a second API server built by createHttpServer on a running
 * controller's kernel (its real guard, authenticator and error renderer) with routes of this
 * file: the bearer token handlers receive (@elysiajs/bearer, header only), CORS with and without
 * allowed origins (@elysiajs/cors), Elysia's own errors in the spec's error body, answers that
 * keep only their declared keys, and the schemas handed to Elysia left as declared.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import { Type } from '@sinclair/typebox';
import { MetricsRegistry } from '../../src/core/metrics/registry';
import { defineRoute, type AnyRoute } from '../../src/http/route';
import { createHttpServer } from '../../src/http/server';
import { t } from '../../src/http/t';
import { SocketHub } from '../../src/ws/socket-hub';
import { expectErrorBody, MASTER_TOKEN, readJson, startController, type TestController } from '../support/controller';

const Bearer = t.Object({ bearer: t.Union([t.String(), t.Null()]) });
const Nested = t.Object({ name: t.String(), inner: t.Object({ keep: t.Number() }), list: t.Array(t.Object({ id: t.Number() })) });
const Limits = t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 500 })), on: t.Optional(t.Boolean()) });
const Patch = t.Object({ label: t.Optional(t.String()), sign: t.Optional(t.Object({ text: t.String() })) });

const routes: AnyRoute[] = [
  defineRoute({ method: 'GET', path: '/api/x/bearer', auth: 'public', tag: 't', summary: 'bearer', response: { 200: Bearer }, handler: ({ bearer }) => ({ bearer: bearer ?? null }) }),
  defineRoute({
    method: 'POST',
    path: '/api/x/bearer',
    auth: 'public',
    tag: 't',
    summary: 'bearer from a body',
    body: t.Object({ access_token: t.Optional(t.String()) }),
    response: { 200: Bearer },
    handler: ({ bearer }) => ({ bearer: bearer ?? null }),
  }),
  defineRoute({ method: 'GET', path: '/api/x/limits', auth: 'admin', tag: 't', summary: 'limits', query: Limits, response: { 200: Limits }, handler: ({ query }) => query }),
  defineRoute({ method: 'GET', path: '/api/x/groups/:name', auth: 'admin', tag: 't', summary: 'a name', params: t.Object({ name: t.String({ maxLength: 8 }) }), response: { 200: t.Object({ name: t.String() }) }, handler: ({ params }) => params }),
  defineRoute({
    method: 'GET',
    path: '/api/x/nested',
    auth: 'admin',
    tag: 't',
    summary: 'undeclared keys',
    response: { 200: Nested },
    handler: () => ({ name: 'a', secret: 's', inner: { keep: 1, hidden: 2 }, list: [{ id: 1, token: 'x' }] }),
  }),
  defineRoute({ method: 'GET', path: '/api/x/crash', auth: 'admin', tag: 't', summary: 'crash', response: { 200: t.Object({}) }, handler: () => { throw new Error('boom'); } }),
  defineRoute({ method: 'GET', path: '/api/x/wrong-answer', auth: 'admin', tag: 't', summary: 'our bug', response: { 200: t.Object({ n: t.Number() }) }, handler: () => ({ n: 'one' }) }),
  defineRoute({ method: 'PATCH', path: '/api/x/patch', auth: 'admin', tag: 't', summary: 'patch', body: Patch, response: { 200: t.Object({ keys: t.Array(t.String()) }) }, handler: ({ body }) => ({ keys: Object.keys(body) }) }),
  defineRoute({ method: 'POST', path: '/api/x/typed', auth: 'admin', tag: 't', summary: 'typed', body: t.Object({ count: Type.Integer({ minimum: 0 }) }), response: { 200: t.Object({ count: t.Number() }) }, handler: ({ body }) => body }),
];

let c: TestController;
const servers: Server<unknown>[] = [];

/** A second API server on the controller's kernel, serving the routes above. */
function serve(allowedOrigins: string[]): string {
  const kernel = c.controller.kernel;
  const config = { ...kernel.config, api: { ...kernel.config.api, allowed_origins: allowedOrigins } };
  const hub = new SocketHub(() => undefined);
  // Its own metrics registry: the controller's already holds the request histogram.
  const { server, guard } = createHttpServer({ ...kernel, config, metrics: new MetricsRegistry() } as typeof kernel, { routes, sockets: [], hub, hostname: '127.0.0.1', port: 0 });
  servers.push(server);
  afterAll(() => guard.stop());
  return `http://127.0.0.1:${server.port}`;
}

let url = '';
let anyOrigin = '';

beforeAll(async () => {
  c = await startController();
  url = serve(['http://localhost:3000']);
  anyOrigin = serve([]);
});

afterAll(async () => {
  for (const server of servers) await server.stop(true);
  await c.stop();
});

const admin = { authorization: `Bearer ${MASTER_TOKEN}` };

describe('@elysiajs/bearer: the token from the Authorization header only', () => {
  test('a handler receives the header token', async () => {
    expect(await readJson(await fetch(`${url}/api/x/bearer`, { headers: { authorization: 'Bearer abc' } }))).toEqual({ bearer: 'abc' });
  });

  test('never from ?access_token= (the plugin default), whatever the spelling', async () => {
    for (const query of ['access_token=q', 'access_token=q&access_token=r', '%ED%A0%80=q', '%uD800=q', '=q']) {
      expect(await readJson(await fetch(`${url}/api/x/bearer?${query}`))).toEqual({ bearer: null });
    }
  });

  test('never from the body', async () => {
    const res = await fetch(`${url}/api/x/bearer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: 'b' }) });
    expect(await readJson(res)).toEqual({ bearer: null });
  });

  test('the guard reads the header before the body: a refused caller is 401 whatever the body', async () => {
    const res = await fetch(`${url}/api/x/patch`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(res.status).toBe(401);
    expect((await expectErrorBody(res)).error).toBe('UNAUTHORIZED');
  });
});

describe('@elysiajs/cors from [api] allowed_origins', () => {
  test('a listed origin is echoed with credentials, on answers and refusals', async () => {
    for (const path of ['/api/x/bearer', '/api/x/limits']) {
      const res = await fetch(`${url}${path}`, { headers: { origin: 'http://localhost:3000' } });
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
    }
  });

  test('an origin not listed, or the listed one behind another scheme, gets no allow header', async () => {
    for (const origin of ['http://evil.example', 'evil://http://localhost:3000', 'https://localhost:3000', 'localhost:3000']) {
      const res = await fetch(`${url}/api/x/bearer`, { headers: { origin } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test('a preflight lists the methods and headers, without a credential check', async () => {
    const res = await fetch(`${url}/api/x/patch`, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'PATCH' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(res.headers.get('access-control-max-age')).toBe('600');
  });

  test('an empty list: any origin is echoed, never with Allow-Credentials', async () => {
    for (const init of [{}, { method: 'OPTIONS', headers: { 'access-control-request-method': 'GET' } }]) {
      const res = await fetch(`${anyOrigin}/api/x/bearer`, { ...init, headers: { ...init.headers, origin: 'http://anything.example' } });
      expect(res.headers.get('access-control-allow-origin')).toBe('http://anything.example');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });
});

describe("Elysia's own errors in the spec's error body", () => {
  test('a query value out of range is 400 VALIDATION_FAILED naming the parameter and its range', async () => {
    const res = await fetch(`${url}/api/x/limits?limit=501`, { headers: admin });
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toBe('query parameter "limit" must be an integer between 1 and 500, got "501"');
  });

  test('query text becomes the integers and booleans declared; undeclared keys are left out', async () => {
    expect(await readJson(await fetch(`${url}/api/x/limits?limit=20&on=true&other=x`, { headers: admin }))).toEqual({ limit: 20, on: true });
    for (const limit of ['1.5', 'true', 'ten', '']) expect((await fetch(`${url}/api/x/limits?limit=${limit}`, { headers: admin })).status).toBe(400);
  });

  test('a path parameter outside its schema names it', async () => {
    const body = await expectErrorBody(await fetch(`${url}/api/x/groups/much-too-long`, { headers: admin }));
    expect(body).toMatchObject({ error: 'VALIDATION_FAILED', message: 'path parameter "name" must be a string of at most 8 characters, got "much-too-long"' });
    expect(await readJson(await fetch(`${url}/api/x/groups/a%20b`, { headers: admin }))).toEqual({ name: 'a b' });
  });

  test('a body field of the wrong type names the field; a missing body says so', async () => {
    const wrong = await fetch(`${url}/api/x/typed`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{"count":-1}' });
    expect(await expectErrorBody(wrong)).toMatchObject({ error: 'VALIDATION_FAILED', message: 'body "count" must be an integer ≥ 0, got -1' });
    const missing = await fetch(`${url}/api/x/typed`, { method: 'POST', headers: admin });
    expect(await expectErrorBody(missing)).toMatchObject({ error: 'VALIDATION_FAILED', message: expect.stringContaining('request body is required') });
  });

  test('an unknown route, another method and a trailing slash are 404 ROUTE_NOT_FOUND', async () => {
    for (const [method, path] of [['GET', '/api/x/nothing'], ['DELETE', '/api/x/limits'], ['GET', '/api/x/limits/']]) {
      const res = await fetch(`${url}${path}`, { method, headers: admin });
      expect(res.status).toBe(404);
      expect(await expectErrorBody(res)).toMatchObject({ error: 'ROUTE_NOT_FOUND', message: `no route ${method} ${path}` });
    }
  });

  test('a crash is 500 INTERNAL_ERROR with a reference, the details only in the log', async () => {
    const res = await fetch(`${url}/api/x/crash`, { headers: admin });
    expect(res.status).toBe(500);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('INTERNAL_ERROR');
    expect(body.message).not.toContain('boom');
    const ref = /ref ([0-9a-f]{8})/.exec(body.message)![1]!;
    expect(c.logs.some((line) => line.includes(ref) && line.includes('boom'))).toBe(true);
  });

  test('an answer outside its own response schema is our bug: 500, never the value', async () => {
    const res = await fetch(`${url}/api/x/wrong-answer`, { headers: admin });
    expect(res.status).toBe(500);
    expect((await expectErrorBody(res)).error).toBe('INTERNAL_ERROR');
  });
});

describe('answers and bodies keep their declared keys', () => {
  test('undeclared keys are left out at every depth', async () => {
    expect(await readJson(await fetch(`${url}/api/x/nested`, { headers: admin }))).toEqual({ name: 'a', inner: { keep: 1 }, list: [{ id: 1 }] });
  });

  test('null for an optional object in a body is the same as leaving it out', async () => {
    const res = await fetch(`${url}/api/x/patch`, { method: 'PATCH', headers: { ...admin, 'content-type': 'application/json' }, body: '{"label":"x","sign":null,"extra":1}' });
    expect(await readJson(res)).toEqual({ keys: ['label'] });
  });

  test("the schemas handed to Elysia stay as declared (the OpenAPI document's source)", () => {
    expect('additionalProperties' in Nested).toBe(false);
    expect('additionalProperties' in Patch).toBe(false);
    expect('additionalProperties' in Limits).toBe(false);
  });
});
