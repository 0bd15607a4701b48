/**
 * Generated auth matrix: every operation in GET /api/openapi.json × every kind of credential
 * gets exactly the outcome its `x-svc-auth` level (and `x-svc-scopes`) implies, and every
 * WebSocket endpoint in `x-svc-websockets` accepts or refuses (close 1008) likewise.
 *
 * Nothing here names a route: routes added later are covered without edits.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import { expectErrorBody, startController, waitFor, type TestController } from '../support/controller';
import { fakeHangar } from '../fixtures/upstream/hangar';
import { fakeModrinth } from '../fixtures/upstream/modrinth';

type Level = 'public' | 'cluster' | 'service' | 'admin' | 'session';
const LEVELS: readonly Level[] = ['public', 'cluster', 'service', 'admin', 'session'];

interface Operation {
  'x-svc-auth': Level;
  'x-svc-scopes'?: string[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, unknown> };
}
interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  'x-svc-websockets': { path: string; auth: Level }[];
}

interface Route {
  method: string;
  /** OpenAPI template, e.g. /api/groups/{name}. */
  template: string;
  level: Level;
  scopes: readonly string[];
  hasBody: boolean;
}

type CredentialName = 'none' | 'wrong' | 'service' | 'master' | 'adminJwt' | 'serviceJwt' | 'expiredJwt' | 'cluster';
const CREDENTIAL_NAMES: readonly CredentialName[] = ['none', 'wrong', 'service', 'master', 'adminJwt', 'serviceJwt', 'expiredJwt', 'cluster'];

/** The scope the service-scope JWT carries. */
const SERVICE_JWT_SCOPE = 'services:read';

type Outcome = { allowed: true } | { allowed: false; status: number; code: 'UNAUTHORIZED' | 'AUTH_FAILED' | 'FORBIDDEN' };
const AUTH_CODES: readonly string[] = ['UNAUTHORIZED', 'AUTH_FAILED', 'FORBIDDEN'];

const allow: Outcome = { allowed: true };
const unauthorized: Outcome = { allowed: false, status: 401, code: 'UNAUTHORIZED' };
const authFailed: Outcome = { allowed: false, status: 401, code: 'AUTH_FAILED' };
const forbidden: Outcome = { allowed: false, status: 403, code: 'FORBIDDEN' };

/** What a credential gets on an HTTP route of this level with these extra scopes. */
function expectedHttp(level: Level, routeScopes: readonly string[], credential: CredentialName): Outcome {
  if (level === 'public') return allow;
  switch (credential) {
    case 'none':
      return unauthorized;
    case 'wrong':
    case 'expiredJwt':
      return authFailed;
  }
  // Routes of a dashboard session's own (its sessions, TOTP, passkeys): no API token opens them.
  if (level === 'session') return forbidden;
  switch (credential) {
    case 'master':
    case 'adminJwt':
      return allow;
    case 'service':
      return level === 'service' ? allow : forbidden;
    case 'cluster':
      return level === 'cluster' ? allow : forbidden;
    case 'serviceJwt':
      if (level === 'service') return allow;
      if (level === 'admin' && routeScopes.includes(SERVICE_JWT_SCOPE)) return allow;
      return forbidden;
  }
}

/** Whether a WebSocket endpoint of this level keeps a connection presenting this credential. */
function expectedSocket(level: Level, credential: CredentialName): boolean {
  if (level === 'public') return true;
  switch (credential) {
    case 'none':
    case 'wrong':
    case 'expiredJwt':
      return false;
    case 'master':
    case 'adminJwt':
      return true;
    case 'service':
    case 'serviceJwt':
      return level === 'service';
    case 'cluster':
      return level === 'cluster';
  }
}

// ---------------------------------------------------------------------------------------------
// One controller for the whole file; the document is read before tests are declared.

// Empty plugin repositories: a search with both unreachable is a documented 503, which this
// matrix would count as a server error; with them it answers an empty list.
const modrinth = fakeModrinth([]);
const hangar = fakeHangar([]);
const ctl: TestController = await startController({ software: { modrinth_url: modrinth.url, hangar_url: hangar.url } });
afterAll(async () => {
  await ctl.stop();
  modrinth.close();
  hangar.close();
});

const auth = ctl.controller.kernel.auth;
const tokens: Record<CredentialName, string | null> = {
  none: null,
  wrong: 'wrong-token-that-matches-nothing-0123456789',
  service: ctl.service,
  master: ctl.master,
  adminJwt: (await auth.mintJwt('matrix-admin', ['admin'], 3600)).token,
  serviceJwt: (await auth.mintJwt('matrix-service', [SERVICE_JWT_SCOPE], 3600)).token,
  expiredJwt: (await auth.mintJwt('matrix-expired', ['admin'], -3600)).token,
  cluster: ctl.cluster,
};

const docResponse = await ctl.api('/api/openapi.json', { token: null });
if (docResponse.status !== 200) throw new Error(`GET /api/openapi.json answered ${docResponse.status}`);
const doc = (await docResponse.json()) as OpenApiDoc;

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const routes: Route[] = [];
for (const [template, ops] of Object.entries(doc.paths ?? {})) {
  for (const [method, op] of Object.entries(ops)) {
    if (!HTTP_METHODS.has(method)) continue;
    routes.push({
      method: method.toUpperCase(),
      template,
      level: op['x-svc-auth'],
      scopes: op['x-svc-scopes'] ?? [],
      hasBody: op.requestBody !== undefined,
    });
  }
}
const sockets = doc['x-svc-websockets'] ?? [];

/** Fills `{param}` with a harmless value. */
function concretePath(template: string): string {
  return template.replace(/\{[^}]+\}/g, 'x');
}

interface Sent {
  credential: string;
  method: string;
  path: string;
  status: number;
  text: string;
}

async function send(route: Route, credential: string, token: string | null, path = concretePath(route.template), method = route.method): Promise<Sent> {
  const withBody = route.hasBody && method !== 'GET' && method !== 'HEAD';
  const response = await ctl.api(path, { method, token, ...(withBody ? { json: {} } : {}) });
  return { credential, method, path, status: response.status, text: await response.text() };
}

function describeSent(s: Sent): string {
  return `${s.method} ${s.path} with ${s.credential}: ${s.status} ${s.text.slice(0, 300)}`;
}

/** Checks one response against the expected outcome; returns a problem or null. */
async function check(sent: Sent, expected: Outcome): Promise<string | null> {
  const asResponse = () => new Response(sent.text, { status: sent.status });
  if (sent.status >= 500) return `server error: ${describeSent(sent)}`;
  if (!expected.allowed) {
    if (sent.status !== expected.status) return `expected ${expected.status} ${expected.code}, got ${describeSent(sent)}`;
    try {
      const body = await expectErrorBody(asResponse());
      if (body.error !== expected.code) return `expected error ${expected.code}, got ${describeSent(sent)}`;
    } catch (error) {
      return `${(error as Error).message} (${describeSent(sent)})`;
    }
    return null;
  }
  if (sent.status >= 200 && sent.status < 300) return null;
  try {
    const body = await expectErrorBody(asResponse());
    if (AUTH_CODES.includes(body.error)) return `expected to pass auth, got ${describeSent(sent)}`;
  } catch (error) {
    return `${(error as Error).message} (${describeSent(sent)})`;
  }
  return null;
}

/** Admin-scoped JWTs the controller did not sign: treated like any wrong token. */
const forged: { name: string; token: string }[] = [
  {
    name: 'unsigned JWT (alg none, admin scope)',
    token: `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ scopes: ['admin'], sub: 'forged', iss: 'svc', exp: Math.floor(Date.now() / 1000) + 3600 }),
    ).toString('base64url')}.`,
  },
  {
    name: 'JWT signed with another key (admin scope)',
    token: await new SignJWT({ scopes: ['admin'] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('forged')
      .setIssuer('svc')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(crypto.getRandomValues(new Uint8Array(32))),
  },
];

/**
 * Extra credentials per route: a JWT carrying only one of the route's own x-svc-scopes
 * (which must open it: that is what x-svc-scopes promises), and the forged JWTs above.
 */
async function extraCredentials(route: Route): Promise<{ name: string; token: string; expected: Outcome }[]> {
  const out: { name: string; token: string; expected: Outcome }[] = [];
  for (const scope of route.scopes) out.push({ name: `JWT with route scope ${scope}`, token: (await auth.mintJwt('matrix-scope', [scope], 3600)).token, expected: allow });
  for (const f of forged) out.push({ ...f, expected: expectedHttp(route.level, route.scopes, 'wrong') });
  return out;
}

// ---------------------------------------------------------------------------------------------

describe('auth matrix: document', () => {
  test('the OpenAPI document lists every declared route and socket', () => {
    expect(doc.openapi).toStartWith('3.1');
    const declared = ctl.controller.routes.map((r) => `${r.method} ${r.path}`).sort();
    expect(routes.length).toBe(ctl.controller.routes.length);
    expect(routes.length).toBeGreaterThanOrEqual(10);
    expect(declared.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) expect(LEVELS).toContain(route.level);
    expect(sockets.length).toBe(ctl.controller.sockets.length);
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    for (const socket of sockets) expect(LEVELS).toContain(socket.auth);
  });
});

describe('auth matrix: HTTP routes', () => {
  for (const route of routes) {
    const label = `${route.method} ${route.template} [${route.level}${route.scopes.length ? ` +${route.scopes.join(',')}` : ''}]`;
    test(label, async () => {
      const problems: string[] = [];
      const results = await Promise.all(
        CREDENTIAL_NAMES.map(async (name) => check(await send(route, name, tokens[name]), expectedHttp(route.level, route.scopes, name))),
      );
      for (const r of results) if (r) problems.push(r);
      for (const extra of await extraCredentials(route)) {
        const r = await check(await send(route, extra.name, extra.token), extra.expected);
        if (r) problems.push(r);
      }
      expect(problems).toEqual([]);
    });
  }
});

/**
 * The same route reached by a different spelling must not get a weaker check: a trailing
 * slash (and `/.`, which normalises to it) either reaches the same route with the same
 * outcome or no route at all (404); HEAD on a GET route either keeps the GET route's
 * refusal or is not routed (404/405). HEAD answers carry no body, so only the status is checked.
 */
describe('auth matrix: path and method variants', () => {
  for (const route of routes) {
    if (route.level === 'public') continue;
    test(`${route.method} ${route.template}/ (trailing slash)`, async () => {
      const problems: string[] = [];
      for (const suffix of ['/', '/.']) {
        const path = concretePath(route.template) + suffix;
        await Promise.all(
          CREDENTIAL_NAMES.map(async (name) => {
            const sent = await send(route, name, tokens[name], path);
            const expected = expectedHttp(route.level, route.scopes, name);
            if (sent.status === 404) {
              const r = await check(sent, allow); // an unrouted path still owes the error body
              if (r) problems.push(r);
              return;
            }
            const r = await check(sent, expected);
            if (r) problems.push(`${suffix} variant: ${r}`);
          }),
        );
      }
      expect(problems).toEqual([]);
    });
    if (route.method === 'GET') {
      test(`HEAD ${route.template}`, async () => {
        const problems: string[] = [];
        await Promise.all(
          CREDENTIAL_NAMES.map(async (name) => {
            const sent = await send(route, name, tokens[name], concretePath(route.template), 'HEAD');
            const expected = expectedHttp(route.level, route.scopes, name);
            if (sent.status >= 500) problems.push(`server error: ${describeSent(sent)}`);
            else if (!expected.allowed && sent.status !== expected.status && sent.status !== 404 && sent.status !== 405) {
              problems.push(`expected ${expected.status} (or 404/405), got ${describeSent(sent)}`);
            } else if (expected.allowed && (sent.status === 401 || sent.status === 403)) {
              problems.push(`expected to pass auth, got ${describeSent(sent)}`);
            }
          }),
        );
        expect(problems).toEqual([]);
      });
    }
  }
});

// ---------------------------------------------------------------------------------------------
// WebSockets

interface SocketResult {
  opened: boolean;
  messages: number;
  closeCode: number | null;
}

/**
 * Connects and publishes marker events until the socket either receives one (it was
 * accepted and subscribed) or is closed by the server. Waits on conditions only.
 */
async function probeSocket(path: string, token: string | null, via: 'header' | 'query'): Promise<SocketResult> {
  const wsUrl = new URL(ctl.url.replace(/^http/, 'ws') + path);
  const headers: Record<string, string> = {};
  if (token !== null && via === 'header') headers.authorization = `Bearer ${token}`;
  if (token !== null && via === 'query') wsUrl.searchParams.set('token', token);
  const ws = new WebSocket(wsUrl.toString(), { headers });
  const result: SocketResult = { opened: false, messages: 0, closeCode: null };
  ws.addEventListener('open', () => {
    result.opened = true;
    // The remote console forwards events only to a session that said hello.
    if (path === '/api/console/stream') ws.send(JSON.stringify({ type: 'hello', text: '{}' }));
  });
  ws.addEventListener('message', () => (result.messages += 1));
  ws.addEventListener('close', (event) => (result.closeCode = event.code));
  await waitFor(
    () => {
      if (result.closeCode !== null || result.messages > 0) return true;
      if (result.opened) ctl.controller.kernel.bus.publish('API_WARNING', { message: 'auth-matrix probe' });
      return false;
    },
    { timeoutMs: 5000, what: `${path} via ${via} to be accepted or closed` },
  );
  if (result.closeCode === null) {
    ws.close(1000, 'probe done');
    await waitFor(() => result.closeCode !== null, { what: 'client close' });
    // A close we initiated is not the server's verdict.
    return { ...result, closeCode: result.messages > 0 ? null : result.closeCode };
  }
  return result;
}

describe('auth matrix: WebSockets', () => {
  for (const socket of sockets) {
    test(`WS ${socket.path} [${socket.auth}]`, async () => {
      const problems: string[] = [];
      const cases = CREDENTIAL_NAMES.flatMap((name) => (['header', 'query'] as const).map((via) => ({ name, via })));
      await Promise.all(
        cases.map(async ({ name, via }) => {
          const result = await probeSocket(socket.path, tokens[name], via);
          const accepted = expectedSocket(socket.auth, name);
          const what = `WS ${socket.path} with ${name} via ${via}: opened=${result.opened} messages=${result.messages} close=${result.closeCode}`;
          // Past auth, a socket may still close for a reason of its own: a service console for a
          // service that does not exist closes with 1003. Only 1008 means "refused".
          const passedAuth = (result.messages > 0 && result.closeCode === null) || (result.closeCode !== null && result.closeCode !== 1008);
          if (accepted && !passedAuth) problems.push(`expected to be accepted: ${what}`);
          if (!accepted && !(result.messages === 0 && result.closeCode === 1008)) problems.push(`expected close 1008 without events: ${what}`);
        }),
      );
      expect(problems).toEqual([]);
    });
  }
});
