/**
 * Generated auth matrix: every operation in GET /api/openapi.json × every kind of credential
 * gets exactly the outcome its `x-svc-auth` level (and `x-svc-scopes`) implies, and every
 * WebSocket endpoint in `x-svc-websockets` accepts or refuses (close 1008) likewise.
 *
 * Dashboard sessions are credentials too: a session passes by the node the operation declares
 * (`x-svc-permission`), never a cluster or `x-svc-machine-only` one, always a `session` one;
 * a logged-out or expired session is refused with its own code everywhere but public routes.
 *
 * A game server's own credential (a proxy's or a backend's) passes the service-level routes
 * whose `x-svc-tenants` names its role, `own` ones only for its own service name; a JWT below
 * admin reads with any service scope but writes only with a write scope, and never calls a
 * route that speaks for players (`x-svc-speaks-for-players`).
 *
 * Nothing here names a route but the few that make the sessions (login, logout, ws-ticket, me):
 * routes added later are covered without edits.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { NODE_TOKEN_PREFIX, TENANT_TOKEN_PREFIX, type TenantIdentity } from '../../src/core/auth';
import { SessionService } from '../../src/modules/auth/sessions';
import { expectErrorBody, startController, waitFor, type TestController } from '../support/controller';
import { loginAs, testPlayer } from '../support/dashboard-login';
import { fakeHangar } from '../fixtures/upstream/hangar';
import { fakeModrinth } from '../fixtures/upstream/modrinth';

type Level = 'public' | 'cluster' | 'service' | 'admin' | 'session';
const LEVELS: readonly Level[] = ['public', 'cluster', 'service', 'admin', 'session'];

type Tenants = Partial<Record<'proxy' | 'backend', 'any' | 'own'>>;
interface Operation {
  'x-svc-auth': Level;
  'x-svc-scopes'?: string[];
  'x-svc-permission'?: string;
  'x-svc-machine-only'?: boolean;
  'x-svc-tenants'?: Tenants;
  'x-svc-speaks-for-players'?: boolean;
  'x-svc-enrolment'?: boolean;
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, unknown> };
}
interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  'x-svc-websockets': { path: string; auth: Level; 'x-svc-permission'?: string; 'x-svc-tenants'?: Tenants }[];
}

interface Route {
  method: string;
  /** OpenAPI template, e.g. /api/groups/{name}. */
  template: string;
  level: Level;
  scopes: readonly string[];
  /** The node a dashboard session needs (none on public, session and machine-only routes). */
  permission: string | undefined;
  machineOnly: boolean;
  tenants: Tenants;
  speaksForPlayers: boolean;
  /** A cluster route the cluster token itself opens; the others take a node's own secret. */
  enrolment: boolean;
  hasBody: boolean;
}

type ApiCredentialName =
  | 'none'
  | 'wrong'
  | 'service'
  | 'master'
  | 'adminJwt'
  | 'serviceJwt'
  | 'writeJwt'
  | 'expiredJwt'
  | 'cluster'
  | 'proxyOwn'
  | 'backendOwn'
  | 'backendOther'
  | 'tenantStopped'
  | 'node';
const API_CREDENTIAL_NAMES: readonly ApiCredentialName[] = [
  'none',
  'wrong',
  'service',
  'master',
  'adminJwt',
  'serviceJwt',
  'writeJwt',
  'expiredJwt',
  'cluster',
  'proxyOwn',
  'backendOwn',
  'backendOther',
  'tenantStopped',
  'node',
];

/**
 * Game servers' own credentials, as the controller's credential store identifies them. Every
 * path parameter below is filled with `x`, so `proxyOwn` and `backendOwn` call routes for their
 * own service; `backendOther` is another backend; `tenantStopped` was handed out to a service
 * that is no longer active (the store identifies it no more).
 */
const TENANTS: Partial<Record<ApiCredentialName, TenantIdentity>> = {
  proxyOwn: { service: 'x', role: 'proxy' },
  backendOwn: { service: 'x', role: 'backend' },
  backendOther: { service: 'Other-1', role: 'backend' },
};

type SessionName = 'sessionNone' | 'sessionOne' | 'sessionAdmin' | 'sessionStar' | 'sessionWildcard' | 'sessionRevoked' | 'sessionExpired';
type CredentialName = ApiCredentialName | SessionName;

/** The node every non-public route without one of its own falls back to, and which passes every node. */
const ADMIN_NODE = 'svc.dashboard.admin';

interface SessionCredential {
  /** Nodes the player is granted before logging in. */
  grants: readonly string[];
  /** live: kept logged in (renewed when a route of its own logs it out); revoked: logged out; expired: past its expiry. */
  state: 'live' | 'revoked' | 'expired';
  /** Whether the session passes an operation that declares this node. */
  passes: (node: string) => boolean;
}

/**
 * The ended sessions hold the admin node, so nothing but their state can refuse them.
 * `svc.dashboard.services.*` covers what lies below `svc.dashboard.services`, nothing beside it.
 */
const SESSION_CREDENTIALS: Record<SessionName, SessionCredential> = {
  sessionNone: { grants: [], state: 'live', passes: () => false },
  sessionOne: { grants: ['svc.dashboard.services.view'], state: 'live', passes: (node) => node === 'svc.dashboard.services.view' },
  sessionAdmin: { grants: [ADMIN_NODE], state: 'live', passes: () => true },
  sessionStar: { grants: ['*'], state: 'live', passes: () => true },
  sessionWildcard: { grants: ['svc.dashboard.services.*'], state: 'live', passes: (node) => node.startsWith('svc.dashboard.services.') },
  sessionRevoked: { grants: [ADMIN_NODE], state: 'revoked', passes: () => true },
  sessionExpired: { grants: [ADMIN_NODE], state: 'expired', passes: () => true },
};
const SESSION_NAMES = Object.keys(SESSION_CREDENTIALS) as SessionName[];
const CREDENTIAL_NAMES: readonly CredentialName[] = [...API_CREDENTIAL_NAMES, ...SESSION_NAMES];
const isSessionName = (name: CredentialName): name is SessionName => name in SESSION_CREDENTIALS;

/** The scope the service-scope JWT carries (reads), and the write JWT's. */
const SERVICE_JWT_SCOPE = 'services:read';
const WRITE_JWT_SCOPE = 'services:write';

type RefusalCode = 'UNAUTHORIZED' | 'AUTH_FAILED' | 'FORBIDDEN' | 'AUTH_SESSION_INVALID' | 'AUTH_SESSION_EXPIRED';
/** `message`: what the error message must start with. */
type Outcome = { allowed: true } | { allowed: false; status: number; code: RefusalCode; message?: string };
const AUTH_CODES: readonly string[] = ['UNAUTHORIZED', 'AUTH_FAILED', 'FORBIDDEN', 'AUTH_SESSION_INVALID', 'AUTH_SESSION_EXPIRED'];

const allow: Outcome = { allowed: true };
const unauthorized: Outcome = { allowed: false, status: 401, code: 'UNAUTHORIZED' };
const authFailed: Outcome = { allowed: false, status: 401, code: 'AUTH_FAILED' };
const forbidden: Outcome = { allowed: false, status: 403, code: 'FORBIDDEN' };
const sessionInvalid: Outcome = { allowed: false, status: 401, code: 'AUTH_SESSION_INVALID' };
const sessionExpired: Outcome = { allowed: false, status: 401, code: 'AUTH_SESSION_EXPIRED' };
const missingNode = (node: string): Outcome => ({ allowed: false, status: 403, code: 'FORBIDDEN', message: `Missing permission: ${node} ` });

/** What a credential gets on an HTTP route of this level with these extra scopes. */
function expectedHttp(route: Route, credential: CredentialName): Outcome {
  const { level, scopes: routeScopes } = route;
  if (level === 'public') return allow;
  if (isSessionName(credential)) return expectedSessionHttp(route, SESSION_CREDENTIALS[credential]);
  switch (credential) {
    case 'none':
      return unauthorized;
    case 'wrong':
    case 'expiredJwt':
    case 'tenantStopped':
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
      return level === 'cluster' && route.enrolment ? allow : forbidden;
    case 'node':
      return level === 'cluster' ? allow : forbidden;
    case 'proxyOwn':
    case 'backendOwn':
    case 'backendOther': {
      const tenant = TENANTS[credential]!;
      const reach = level === 'service' ? route.tenants[tenant.role] : undefined;
      if (!reach) return forbidden;
      return reach === 'any' || tenant.service === 'x' ? allow : forbidden;
    }
    case 'serviceJwt':
    case 'writeJwt': {
      const scope = credential === 'serviceJwt' ? SERVICE_JWT_SCOPE : WRITE_JWT_SCOPE;
      if (level === 'admin') return routeScopes.includes(scope) ? allow : forbidden;
      if (level !== 'service') return forbidden;
      if (route.speaksForPlayers) return forbidden;
      if (route.method === 'GET') return allow;
      // A write takes the route's own scopes when it names some, else services:write.
      return (routeScopes.length > 0 ? routeScopes : [WRITE_JWT_SCOPE]).includes(scope) ? allow : forbidden;
    }
  }
}

/** A session on a non-public route: its state first, then the route's kind, then its node. */
function expectedSessionHttp(route: Route, session: SessionCredential): Outcome {
  if (session.state === 'revoked') return sessionInvalid;
  if (session.state === 'expired') return sessionExpired;
  if (route.level === 'cluster' || route.machineOnly) return forbidden;
  if (route.level === 'session') return allow;
  const node = route.permission ?? ADMIN_NODE;
  return session.passes(node) ? allow : missingNode(node);
}

/** Whether a WebSocket endpoint keeps a connection presenting this credential. */
function expectedSocket(socket: { auth: Level; 'x-svc-permission'?: string; 'x-svc-tenants'?: Tenants }, credential: CredentialName, via: Via): boolean {
  const level = socket.auth;
  if (level === 'public') return true;
  if (isSessionName(credential)) {
    const session = SESSION_CREDENTIALS[credential];
    // A URL is logged and kept in history: a session token there is refused; its ticket is what goes there.
    if (session.state !== 'live' || level === 'cluster' || via === 'query') return false;
    return level === 'session' || session.passes(socket['x-svc-permission'] ?? ADMIN_NODE);
  }
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
    case 'writeJwt':
      return level === 'service';
    case 'cluster':
    case 'node':
      return level === 'cluster';
    case 'tenantStopped':
      return false;
    case 'proxyOwn':
    case 'backendOwn':
    case 'backendOther':
      return level === 'service' && socket['x-svc-tenants']?.[TENANTS[credential]!.role] !== undefined;
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
const tenantToken = (name: string) => `${TENANT_TOKEN_PREFIX}matrix-${name}-0123456789abcdefghijklmnop`;
const tenantsByHash = new Map<string, TenantIdentity>();
for (const [name, tenant] of Object.entries(TENANTS)) tenantsByHash.set(createHash('sha256').update(tenantToken(name)).digest('hex'), tenant);
auth.useTenants({ identify: (hash) => tenantsByHash.get(hash) });
const NODE_TOKEN = `${NODE_TOKEN_PREFIX}matrix-node-0123456789abcdefghijklmnop`;
const nodeHash = createHash('sha256').update(NODE_TOKEN).digest('hex');
auth.useNodes({ identify: (hash) => (hash === nodeHash ? 'matrix-node' : undefined) });
const apiTokens: Record<ApiCredentialName, string | null> = {
  none: null,
  wrong: 'wrong-token-that-matches-nothing-0123456789',
  service: ctl.service,
  master: ctl.master,
  adminJwt: (await auth.mintJwt('matrix-admin', ['admin'], 3600)).token,
  serviceJwt: (await auth.mintJwt('matrix-service', [SERVICE_JWT_SCOPE], 3600)).token,
  writeJwt: (await auth.mintJwt('matrix-write', [WRITE_JWT_SCOPE], 3600)).token,
  expiredJwt: (await auth.mintJwt('matrix-expired', ['admin'], -3600)).token,
  cluster: ctl.cluster,
  proxyOwn: tenantToken('proxyOwn'),
  backendOwn: tenantToken('backendOwn'),
  backendOther: tenantToken('backendOther'),
  tenantStopped: tenantToken('tenantStopped'),
  node: NODE_TOKEN,
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
      permission: op['x-svc-permission'],
      machineOnly: op['x-svc-machine-only'] === true,
      tenants: op['x-svc-tenants'] ?? {},
      speaksForPlayers: op['x-svc-speaks-for-players'] === true,
      enrolment: op['x-svc-enrolment'] === true,
      hasBody: op.requestBody !== undefined,
    });
  }
}
const sockets = doc['x-svc-websockets'] ?? [];

// Dashboard sessions, each of a player of its own: logging one out (or revoking the player's
// other sessions) touches no other credential.
const sessionService = ctl.controller.kernel.modules.lookup('sessions');
if (!(sessionService instanceof SessionService)) throw new Error('the auth module provides no SessionService');
const sessions: SessionService = sessionService;
let nextPlayer = 100;
const sessionTokens = {} as Record<SessionName, string>;

async function newSession(name: SessionName): Promise<string> {
  const credential = SESSION_CREDENTIALS[name];
  const index = nextPlayer++;
  const token = await loginAs(ctl, testPlayer(index, `Matrix${index}`), credential.grants);
  if (credential.state === 'revoked') {
    const loggedOut = await ctl.api('/api/auth/logout', { method: 'POST', token });
    if (loggedOut.status !== 200) throw new Error(`logging ${name} out answered ${loggedOut.status}: ${await loggedOut.text()}`);
  }
  // Past its expiry. Rolling refresh (on by default) cannot revive it: a session is checked
  // for expiry before its use extends it, so every request below must keep seeing it expired.
  if (credential.state === 'expired') sessions.byToken(token)!.expiresAt = Date.now() - 1000;
  return token;
}
for (const name of SESSION_NAMES) sessionTokens[name] = await newSession(name);

/**
 * The token a credential presents now. A live session that a route of its own ended (logout)
 * is replaced by a fresh one of the same kind, so every later request still tests a live one.
 */
async function tokenFor(name: CredentialName): Promise<string | null> {
  if (!isSessionName(name)) return apiTokens[name];
  const pending = renewing.get(name);
  if (pending) return pending;
  const token = sessionTokens[name];
  if (SESSION_CREDENTIALS[name].state !== 'live' || sessions.byToken(token)?.revokedAt === null) return token;
  const renewal = newSession(name).then((fresh) => {
    sessionTokens[name] = fresh;
    renewing.delete(name);
    return fresh;
  });
  renewing.set(name, renewal);
  return renewal;
}
/** Replacements under way, so parallel requests of one credential share one new session. */
const renewing = new Map<SessionName, Promise<string>>();

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
      if (expected.message !== undefined && !body.message.startsWith(expected.message)) return `expected a message starting "${expected.message}", got ${describeSent(sent)}`;
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
  for (const f of forged) out.push({ ...f, expected: expectedHttp(route, 'wrong') });
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

  test('every operation a session might call says which node it needs, or that sessions may not', () => {
    const undeclared = routes
      .filter((r) => r.level !== 'public' && r.level !== 'session')
      .filter((r) => (r.permission === undefined) === !r.machineOnly || (r.level === 'cluster' && !r.machineOnly))
      .map((r) => `${r.method} ${r.template} [${r.level}] permission=${r.permission} machine-only=${r.machineOnly}`);
    expect(undeclared).toEqual([]);
    const nodeless = sockets.filter((s) => s.auth !== 'public' && s.auth !== 'session' && s['x-svc-permission'] === undefined).map((s) => s.path);
    expect(nodeless).toEqual([]);
  });

  test('service credentials reach only service-level routes; routes that speak for players refuse sessions', () => {
    const misplaced = routes.filter((r) => Object.keys(r.tenants).length > 0 && r.level !== 'service').map((r) => `${r.method} ${r.template}`);
    expect(misplaced).toEqual([]);
    const openToSessions = routes.filter((r) => r.speaksForPlayers && !r.machineOnly).map((r) => `${r.method} ${r.template}`);
    expect(openToSessions).toEqual([]);
    // Backends never speak for players, and write only about themselves beyond the few calls their plugins make.
    const backendSpeaks = routes.filter((r) => r.speaksForPlayers && r.tenants.backend).map((r) => `${r.method} ${r.template}`);
    expect(backendSpeaks).toEqual([]);
  });

  test('the sessions hold what the matrix assumes', async () => {
    const admins: Record<string, boolean> = {};
    for (const name of SESSION_NAMES.filter((n) => SESSION_CREDENTIALS[n].state === 'live')) {
      const me = await ctl.api('/api/auth/me', { token: await tokenFor(name) });
      expect(me.status).toBe(200);
      admins[name] = ((await me.json()) as { isAdmin: boolean }).isAdmin;
    }
    expect(admins).toEqual({ sessionNone: false, sessionOne: false, sessionAdmin: true, sessionStar: true, sessionWildcard: false });
    expect(sessions.byToken(sessionTokens.sessionRevoked)?.revokedAt).toBeNumber();
    expect(sessions.byToken(sessionTokens.sessionExpired)?.expiresAt).toBeLessThan(Date.now());
  });
});

describe('auth matrix: HTTP routes', () => {
  for (const route of routes) {
    const label = `${route.method} ${route.template} [${route.level}${route.scopes.length ? ` +${route.scopes.join(',')}` : ''}]`;
    test(label, async () => {
      const problems: string[] = [];
      const results = await Promise.all(
        CREDENTIAL_NAMES.map(async (name) => check(await send(route, name, await tokenFor(name)), expectedHttp(route, name))),
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
            const sent = await send(route, name, await tokenFor(name), path);
            const expected = expectedHttp(route, name);
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
            const sent = await send(route, name, await tokenFor(name), concretePath(route.template), 'HEAD');
            const expected = expectedHttp(route, name);
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

/** A session's `ticket` is a single-use `wt_` ticket it minted, sent as ?token= (what browsers do). */
type Via = 'header' | 'query' | 'ticket';

interface SocketResult {
  opened: boolean;
  messages: number;
  closeCode: number | null;
}

/**
 * Connects and publishes marker events until the socket either receives one (it was
 * accepted and subscribed) or is closed by the server. Waits on conditions only.
 */
async function probeSocket(path: string, token: string | null, via: Via): Promise<SocketResult> {
  const wsUrl = new URL(ctl.url.replace(/^http/, 'ws') + path);
  const headers: Record<string, string> = {};
  if (token !== null && via === 'header') headers.authorization = `Bearer ${token}`;
  if (token !== null && via !== 'header') wsUrl.searchParams.set('token', token);
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

/** A fresh `wt_` ticket of a live session credential. */
async function ticketFor(name: CredentialName): Promise<string> {
  const response = await ctl.api('/api/auth/ws-ticket', { token: await tokenFor(name) });
  if (response.status !== 200) throw new Error(`GET /api/auth/ws-ticket with ${name} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { ticket: string }).ticket;
}

describe('auth matrix: WebSockets', () => {
  for (const socket of sockets) {
    test(`WS ${socket.path} [${socket.auth}]`, async () => {
      const problems: string[] = [];
      const vias = (name: CredentialName): Via[] => (isSessionName(name) && SESSION_CREDENTIALS[name].state === 'live' ? ['header', 'query', 'ticket'] : ['header', 'query']);
      const cases = CREDENTIAL_NAMES.flatMap((name) => vias(name).map((via) => ({ name, via })));
      await Promise.all(
        cases.map(async ({ name, via }) => {
          const token = via === 'ticket' ? await ticketFor(name) : await tokenFor(name);
          const result = await probeSocket(socket.path, token, via);
          const accepted = expectedSocket(socket, name, via);
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
