/**
 * Game servers are tenants (issue 36), through the compiled binary: every attack the issue
 * reproduced against 0.13.0, tried again as an attacker would, and refused; then every call
 * the reference plugins make (test/fixtures/reference-plugin-calls.ts), replayed with the
 * servers' own credentials, still passes.
 *
 * Two real services run under the binary, a backend (`Lobby-1`) and a proxy (`Proxy-1`), each a
 * small sh script that prints the SVC_API_TOKEN it was handed and then serves its console. The
 * attackers: each server's own credential, the spec's shared derived token (svc hands it to no
 * server any more, but an operator may have configured a plugin with it), a JWT holding only
 * `metrics:read` (a scraper's), and dashboard sessions of a player holding only
 * `svc.dashboard.groups.edit` + `svc.dashboard.services.start` (or `perms.manage`).
 * The tests share one controller and run in order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveServiceToken, TENANT_TOKEN_PREFIX } from '../../src/core/auth';
import { PLACEHOLDER_EXAMPLES, REFERENCE_PLUGIN_CALLS, REFERENCE_PLUGIN_SOCKETS, type PluginCall } from '../fixtures/reference-plugin-calls';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { tempDir, waitFor } from '../support/controller';

const TOKEN = 'tenancy-e2e-master-token-0123456789abcdef';
const DERIVED = deriveServiceToken(TOKEN);
const ATTACKER = { uuid: '0badc0de-0000-4000-8000-00000000a77c', name: 'Mallory' };
const ADMIN_PLAYER = { uuid: '0a0a0a0a-0000-4000-8000-0000000000ad', name: 'Ops' };

/**
 * A server that announces the credential it was handed, says it is ready, and then echoes its
 * console until `stop` (POSIX sh only: it runs under every isolation mode).
 */
const SERVER_SCRIPT = [
  'echo "credential=$SVC_API_TOKEN"',
  'echo "server ready"',
  'while IFS= read -r line; do case "$line" in stop|end) exit 0;; esac; echo "console: $line"; done',
].join('\n');
const serverCommand = ['/bin/sh', '-c', SERVER_SCRIPT];

type Binary = Awaited<ReturnType<typeof startBinaryController>>;
type Json = ReturnType<typeof JSON.parse>;

let dir: string;
let removeDir: () => void;
let current: Binary;
const cleanups: (() => void)[] = [];
/** The credentials each server was handed. */
const own = { backend: '', proxy: '' };
let scraperJwt = '';
let writerJwt = '';

async function call(method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(current.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('application/json') ?? false;
  return { status: res.status, body: text === '' ? null : json ? JSON.parse(text) : text };
}

async function ok(method: string, path: string, body?: unknown, token: string = TOKEN): Promise<Json> {
  const res = await call(method, path, token, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A refusal: 403 FORBIDDEN in the spec's error body. */
function expectForbidden(res: { status: number; body: Json }, what: string): void {
  if (res.status !== 403) throw new Error(`${what}: expected 403, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body).toMatchObject({ success: false, error: 'FORBIDDEN', message: expect.any(String) });
}

/** The credential a running server printed on its console. */
async function credentialOf(service: string): Promise<string> {
  return waitFor(
    async () => {
      const logs = await ok('GET', `/api/services/${service}/logs?source=stdout&lines=50`);
      const line = (logs.lines as string[]).find((l) => l.startsWith('credential='));
      return line?.slice('credential='.length) || undefined;
    },
    { timeoutMs: 15_000, what: `${service} to print its credential` },
  );
}

/**
 * A dashboard session of `player`, who holds exactly `nodes` (the operator grants them; the
 * proxy's own credential reports the player online and runs the in-game login for them).
 */
async function sessionHolding(player: { uuid: string; name: string }, nodes: readonly string[], group: string): Promise<string> {
  await ok('POST', '/api/proxy/events', { type: 'PLAYER_CONNECTED', player: player.name, uuid: player.uuid, service: 'Lobby-1' }, own.proxy);
  await ok('POST', '/api/permissions/groups', { name: group });
  for (const permission of nodes) await ok('POST', `/api/permissions/groups/${group}/permissions`, { permission });
  await ok('POST', `/api/permissions/players/${player.uuid}/groups`, { group });
  const code = await loginCode(player, own.proxy);
  const login = await call('POST', '/api/auth/consume-challenge', null, { challenge: code });
  expect(login.status).toBe(200);
  return login.body.token as string;
}

async function loginCode(player: { uuid: string; name: string }, token: string): Promise<string> {
  const res = await ok('POST', '/api/commands/dashboard/execute', { args: ['login'], caller: player }, token);
  const code = (res.lines as { text: string }[]).map((l) => /login code: (\d{6})\b/.exec(l.text)?.[1]).find((c) => c !== undefined);
  if (!code) throw new Error(`no login code in ${JSON.stringify(res.lines)}`);
  return code;
}

beforeAll(async () => {
  const svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-tenancy-e2e-'));
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\njwt_enabled = true\n');
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
  // The operator (master token) may choose what runs: the two servers of this test.
  await ok('POST', '/api/groups', { name: 'Lobby', software: 'CUSTOM', version: '1.21.4', startCommand: serverCommand, readyPattern: 'server ready', minInstances: 0 });
  await ok('POST', '/api/groups', { name: 'Proxy', software: 'VELOCITY', version: '3.4.0', startCommand: serverCommand, readyPattern: 'server ready', minInstances: 0 });
  for (const group of ['Lobby', 'Proxy']) await ok('POST', `/api/services/${group}/start`);
  for (const name of ['Lobby-1', 'Proxy-1']) await waitFor(async () => (await ok('GET', `/api/services/${name}`)).state === 'READY', { timeoutMs: 20_000, what: `${name} READY` });
  own.backend = await credentialOf('Lobby-1');
  own.proxy = await credentialOf('Proxy-1');
  scraperJwt = (await ok('POST', '/api/tokens', { subject: 'scraper', scopes: ['metrics:read'], expiresInSeconds: 3600 })).token;
  writerJwt = (await ok('POST', '/api/tokens', { subject: 'writer', scopes: ['services:write', 'groups:write'], expiresInSeconds: 3600 })).token;
}, 60_000);

afterAll(async () => {
  // Each stop answers when it is done: Lobby-1 drains the players the tests reported (30 s),
  // Proxy-1 ignores `end` until the kill after 30 s; both at once.
  await Promise.all(['Lobby-1', 'Proxy-1'].map((name) => call('POST', `/api/services/${name}/stop`, TOKEN).catch(() => undefined)));
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  killGameServers(dir, []);
  removeDir();
}, 90_000);

describe('every server holds a credential of its own (finding 3)', () => {
  test('neither the master token nor the shared derived token, and different for each server', () => {
    for (const credential of [own.backend, own.proxy]) {
      expect(credential.startsWith(TENANT_TOKEN_PREFIX)).toBe(true);
      expect(credential).not.toBe(TOKEN);
      expect(credential).not.toBe(DERIVED);
    }
    expect(own.backend).not.toBe(own.proxy);
  });

  test('no admin route opens to them, the proxy’s included', async () => {
    for (const credential of [own.backend, own.proxy]) {
      for (const [method, path] of [
        ['GET', '/api/config'],
        ['GET', '/api/files/services'],
        ['POST', '/api/shutdown'],
        ['GET', '/api/backups'],
        ['GET', '/api/audit'],
        ['POST', '/api/tokens'],
      ] as const) {
        expectForbidden(await call(method, path, credential, method === 'POST' ? {} : undefined), `${method} ${path}`);
      }
    }
  });

  test('a backend acts only for itself: its own state, not another server’s; never start or stop', async () => {
    expect((await call('PUT', '/api/services/Lobby-1/health', own.backend, { tps: 20 })).status).toBe(200);
    expectForbidden(await call('PUT', '/api/services/Proxy-1/health', own.backend, { tps: 1 }), 'health of another server');
    expectForbidden(await call('POST', '/api/services/Proxy-1/stop', own.backend), 'stopping another server');
    expectForbidden(await call('POST', '/api/services/Lobby/start', own.backend), 'starting a group');
    const forged = await call('POST', '/api/services/Proxy-1/message', own.backend, { from: 'Proxy-1', channel: 'x', data: {} });
    expectForbidden(forged, 'a message sent as another server');
    expect((await call('POST', '/api/services/Proxy-1/message', own.backend, { from: 'Lobby-1', channel: 'x', data: {} })).status).toBe(200);
  });
});

describe('no host command from a service-level credential (finding 1)', () => {
  const pwned = () => join(dir, 'pwned.txt');
  const evil = () => ['sh', '-c', `id > ${join(dir, 'pwned.txt')}`];

  test('creating a group with a start command, Java path or JVM arguments is refused below admin', async () => {
    const session = await sessionHolding(ATTACKER, ['svc.dashboard.groups.edit', 'svc.dashboard.services.start'], 'Builders');
    const attackers: [string, string][] = [
      ['the backend’s credential', own.backend],
      ['the proxy’s credential', own.proxy],
      ['the shared derived token', DERIVED],
      ['a metrics:read JWT', scraperJwt],
      ['a JWT that may write groups', writerJwt],
      ['a session with groups.edit + services.start', session],
    ];
    for (const [who, token] of attackers) {
      for (const fields of [{ startCommand: evil() }, { javaPath: '/bin/sh' }, { jvmArgs: ['-XX:OnError=sh -c id'] }]) {
        const res = await call('POST', '/api/groups', token, { name: 'Pwn', software: 'CUSTOM', version: '1.21.4', minInstances: 0, ...fields });
        expectForbidden(res, `${who} creating a group with ${Object.keys(fields)[0]}`);
      }
      expectForbidden(await call('PUT', '/api/groups/Lobby', token, { startCommand: evil() }), `${who} changing Lobby's start command`);
    }
    expect((await call('GET', '/api/groups/Pwn', TOKEN)).status).toBe(404);
    expect(existsSync(pwned())).toBe(false);
  });

  test('a write that leaves them unchanged (a form that saves every field) still passes for the session', async () => {
    const session = await sessionHolding({ uuid: '0badc0de-0000-4000-8000-00000000a77d', name: 'Editor' }, ['svc.dashboard.groups.edit'], 'Editors');
    const current = await ok('GET', '/api/groups/Lobby');
    const res = await call('PUT', '/api/groups/Lobby', session, { startCommand: current.startCommand, javaPath: current.javaPath, jvmArgs: current.jvmArgs, maxPlayers: 30 });
    expect(res.status).toBe(200);
    expect(res.body.group.maxPlayers).toBe(30);
    // The operator may change them.
    expect((await call('PUT', '/api/groups/Lobby', TOKEN, { jvmArgs: ['-Xms64M'] })).status).toBe(200);
  });

  test('a metrics:read scraper token changes nothing at all', async () => {
    expect((await call('GET', '/api/metrics', scraperJwt)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/services/Lobby/start', undefined],
      ['POST', '/api/services/Lobby-1/stop', undefined],
      ['PUT', '/api/groups/Lobby', { maxPlayers: 1 }],
      ['POST', '/api/maintenance/global', { enabled: true }],
      ['PUT', `/api/permissions/players/${ATTACKER.uuid}`, { name: ATTACKER.name }],
    ] as const) {
      expectForbidden(await call(method, path, scraperJwt, body), `${method} ${path} with metrics:read`);
    }
  });
});

describe('no admin session from a service-level credential (finding 2)', () => {
  test('a backend cannot report players nor mint their logins; a scraper JWT neither', async () => {
    for (const [who, token] of [
      ['the backend’s credential', own.backend],
      ['a metrics:read JWT', scraperJwt],
      ['a JWT that may write', writerJwt],
    ] as const) {
      const connected = await call('POST', '/api/proxy/events', token, { type: 'PLAYER_CONNECTED', player: ADMIN_PLAYER.name, uuid: ADMIN_PLAYER.uuid, service: 'Lobby-1' });
      expectForbidden(connected, `${who} posting PLAYER_CONNECTED`);
      expectForbidden(await call('POST', '/api/auth/generate-code', token, ADMIN_PLAYER), `${who} minting a login code`);
      expectForbidden(await call('POST', '/api/commands/dashboard/execute', token, { args: ['login'], caller: ADMIN_PLAYER }), `${who} running a command for a player`);
    }
  });

  test('nobody below admin puts a player in Admin or grants * — the route, the bulk route, tracks, parents and the perms command', async () => {
    const perms = await sessionHolding({ uuid: '0badc0de-0000-4000-8000-00000000a77e', name: 'PermsMgr' }, ['svc.dashboard.perms.manage'], 'PermsManagers');
    const attackers: [string, string][] = [
      ['the shared derived token', DERIVED],
      ['the proxy’s credential', own.proxy],
      ['the backend’s credential', own.backend],
      ['a JWT that may write', writerJwt],
      ['a session with perms.manage', perms],
    ];
    await ok('PUT', `/api/permissions/players/${ATTACKER.uuid}`, { name: ATTACKER.name });
    for (const [who, token] of attackers) {
      expectForbidden(await call('POST', `/api/permissions/players/${ATTACKER.uuid}/groups`, token, { group: 'Admin' }), `${who}: player into Admin`);
      expectForbidden(await call('POST', '/api/permissions/groups/Builders/permissions', token, { permission: '*' }), `${who}: * on a group the attacker is in`);
      expectForbidden(await call('POST', '/api/permissions/groups/Builders/permissions', token, { permission: 'svc.dashboard.admin' }), `${who}: the admin node`);
      expectForbidden(await call('PUT', '/api/permissions/groups/Builders', token, { parents: ['Admin'] }), `${who}: Admin as a parent`);
      expectForbidden(await call('POST', '/api/permissions/bulk/groups', token, { players: [ATTACKER.uuid], group: 'Admin' }), `${who}: bulk into Admin`);
    }
    const viaCommand = await call('POST', '/api/commands/perms/execute', own.proxy, { args: ['user', ATTACKER.name, 'group', 'add', 'Admin'], caller: ATTACKER });
    expect(viaCommand.status).toBeGreaterThanOrEqual(400);
    // Nothing changed: the attacker's session is still refused everywhere admin.
    const session = await loginCode(ATTACKER, own.proxy).then((code) => call('POST', '/api/auth/consume-challenge', null, { challenge: code }));
    expect(session.body.user.isAdmin).toBe(false);
    expectForbidden(await call('GET', '/api/config', session.body.token), 'the attacker’s session on /api/config');
  });

  test('the proxy keeps what its plugins do: report players, mint their logins', async () => {
    expect((await call('POST', '/api/proxy/events', own.proxy, { type: 'PLAYER_CONNECTED', player: 'Guest', uuid: '0badc0de-0000-4000-8000-00000000a780', service: 'Lobby-1' })).status).toBe(200);
    expect(await loginCode({ uuid: '0badc0de-0000-4000-8000-00000000a780', name: 'Guest' }, own.proxy)).toMatch(/^\d{6}$/);
    // Reported with its own credential, the player is carried by that proxy (the Network page
    // shows it); one reported with the shared service token names no proxy.
    expect((await ok('GET', '/api/players/online/0badc0de-0000-4000-8000-00000000a780')).proxy).toBe('Proxy-1');
    const listed = (await ok('GET', '/api/players')).players as { uuid: string; proxy: string | null }[];
    expect(listed.find((p) => p.uuid === '0badc0de-0000-4000-8000-00000000a780')?.proxy).toBe('Proxy-1');
    expect((await call('POST', '/api/proxy/events', DERIVED, { type: 'PLAYER_CONNECTED', player: 'Shared', uuid: '0badc0de-0000-4000-8000-00000000a781', service: 'Lobby-1' })).status).toBe(200);
    expect((await ok('GET', '/api/players/online/0badc0de-0000-4000-8000-00000000a781')).proxy).toBeNull();
  });
});

describe('other ways from below admin to the host', () => {
  test('the update node takes the latest release only: an older one (a version, a rollback) is the operator’s choice', async () => {
    const updater = await sessionHolding({ uuid: '0badc0de-0000-4000-8000-00000000a782', name: 'Updater' }, ['svc.dashboard.update'], 'Updaters');
    expectForbidden(await call('POST', '/api/controller/update', updater, { version: '0.12.0' }), 'a downgrade by the update node');
    expectForbidden(await call('POST', '/api/controller/update', updater, { rollback: true }), 'a rollback by the update node');
  });
});

describe('sessions in URLs and rate budgets (finding 7)', () => {
  test('a session token in ?token= is refused on every socket; its single-use ticket works', async () => {
    const session = await sessionHolding({ uuid: '0badc0de-0000-4000-8000-00000000a781', name: 'Viewer' }, ['svc.dashboard.overview'], 'Viewers');
    const closeOf = (query: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${current.url.replace('http', 'ws')}/api/events?token=${encodeURIComponent(query)}`);
        let opened = false;
        ws.addEventListener('open', () => {
          opened = true;
          // Admitted sockets hear the next event; the test ends them itself.
          setTimeout(() => ws.close(1000), 200);
        });
        ws.addEventListener('close', (e) => resolve(opened && e.code === 1000 ? 0 : e.code));
      });
    expect(await closeOf(session)).toBe(1008);
    const ticket = (await ok('GET', '/api/auth/ws-ticket', undefined, session)).ticket as string;
    expect(await closeOf(ticket)).toBe(0);
  });
});

describe('the reference plugins, replayed with the servers’ own credentials', () => {
  /**
   * SDK methods a third-party plugin on a backend could call with the shared token, which a
   * backend's own credential no longer opens: acting on other servers (start, stop, restart, their
   * console), network-wide tab names, and player events. The operator gives a plugin that truly
   * needs them a scoped JWT (services:write) or the shared token by hand.
   */
  const CLOSED_TO_BACKENDS = new Set([
    'POST /api/services/:group/start',
    'POST /api/services/:name/stop',
    'POST /api/services/:name/restart',
    'POST /api/services/:name/exec',
    'PUT /api/proxy/tablist/players/:uuid',
    'DELETE /api/proxy/tablist/players/:uuid',
    'POST /api/proxy/events',
  ]);
  const examples: Record<string, string> = { ...PLACEHOLDER_EXAMPLES, ':name': 'Proxy-1', ':name2': 'Lobby-1', ':group': 'Lobby', ':command': 'list' };
  const fill = (value: unknown, self: string, selfGroup: string): unknown => {
    if (typeof value === 'string') return value.replace(/:[a-zA-Z0-9]+/g, (p) => (p === ':self' ? self : p === ':selfGroup' ? selfGroup : (examples[p] ?? p)));
    if (Array.isArray(value)) return value.map((v) => fill(v, self, selfGroup));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, self, selfGroup)]));
    return value;
  };

  test('every call the plugins make by themselves passes auth; the SDK calls closed to backends are refused, and only those', async () => {
    const problems: string[] = [];
    const seenClosed = new Set<string>();
    for (const c of REFERENCE_PLUGIN_CALLS as PluginCall[]) {
      const [self, selfGroup, token] = c.role === 'proxy' ? ['Proxy-1', 'Proxy', own.proxy] : ['Lobby-1', 'Lobby', own.backend];
      const query = c.query ? `?${new URLSearchParams(fill(c.query, self, selfGroup) as Record<string, string>)}` : '';
      const path = (fill(c.path, self, selfGroup) as string) + query;
      const res = await call(c.method, path, token, c.body === undefined ? undefined : fill(c.body, self, selfGroup));
      const key = `${c.method} ${c.path}`;
      const closed = c.role === 'backend' && CLOSED_TO_BACKENDS.has(key);
      if (closed) {
        seenClosed.add(key);
        if (res.status !== 403) problems.push(`${c.plugin} ${key}: expected 403 for a backend, got ${res.status}`);
      } else if (res.status === 401 || res.status === 403 || res.status >= 500) {
        problems.push(`${c.plugin} ${c.method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(problems).toEqual([]);
    expect([...seenClosed].sort()).toEqual([...CLOSED_TO_BACKENDS].sort());
  });

  test('their event sockets open with the credential in ?token=; a backend never hears a magic link', async () => {
    for (const socket of REFERENCE_PLUGIN_SOCKETS) {
      const token = socket.role === 'proxy' ? own.proxy : own.backend;
      const frames: string[] = [];
      const ws = new WebSocket(`${current.url.replace('http', 'ws')}${socket.path}?token=${encodeURIComponent(token)}`);
      ws.addEventListener('message', (m) => frames.push(String(m.data)));
      let closed = 0;
      ws.addEventListener('close', (e) => (closed = e.code));
      await new Promise((resolve) => ws.addEventListener('open', resolve));
      await waitFor(
        async () => {
          await ok('PUT', '/api/proxy/chat', { enabled: true });
          return frames.some((f) => f.includes('CHAT_FORMAT_UPDATED')) || closed !== 0;
        },
        { what: `${socket.plugin}'s socket to hear an event` },
      );
      expect(closed).toBe(0);
      ws.close();
    }
  });
});

// Last: it spends this address's whole public budget.
describe('a session with no nodes gets no larger budget (finding 7)', () => {
  test('its calls to public routes cost the public 120 a minute, as anyone’s', async () => {
    const nobody = await sessionHolding({ uuid: '0badc0de-0000-4000-8000-00000000a783', name: 'Nobody' }, [], 'Nobodies');
    let answered = 0;
    for (; answered < 200; answered++) {
      const res = await call('GET', '/api/health', nobody);
      if (res.status === 429) break;
      expect(res.status).toBe(200);
    }
    expect(answered).toBeLessThanOrEqual(120);
    // The operator's own token still has its budget.
    expect((await call('GET', '/api/config', TOKEN)).status).toBe(200);
  });
});
