/**
 * Dashboard sessions on the three WebSockets, with real clients against a real controller and a
 * real (fake-paper) service: single-use `wt_` tickets (GET /api/auth/ws-ticket), session tokens
 * in ?token=, the node each socket asks for, sockets closed (1008) when their session is logged
 * out, and which events a session's events socket must never hear (magic links, dashboard logins)
 * compared with the master and derived service tokens.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { readJson, startController, waitFor, type TestController } from '../support/controller';
import { bringOnline, loginAs, testPlayer } from '../support/dashboard-login';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const SERVICE = 'Lobby-1';
/** A node none of the three sockets asks for. */
const UNRELATED_NODE = 'svc.dashboard.services.view';

let c: TestController;

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000 } });
  const group = { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0 };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await c.api(`/api/services/${SERVICE}`))).state === 'READY', { timeoutMs: 20_000, what: `${SERVICE} READY` });
});
afterAll(() => c.stop());

let players = 0;
/** A new player logged in to the dashboard holding exactly these nodes; the session token. */
const sessionWith = (nodes: readonly string[]): Promise<string> => {
  const index = 0x7000 + ++players;
  return loginAs(c, testPlayer(index, `Sock${index}`), nodes);
};

async function ticketOf(session: string): Promise<string> {
  const response = await c.api('/api/auth/ws-ticket', { token: session });
  expect(response.status).toBe(200);
  const { ticket } = (await response.json()) as { ticket: string };
  expect(ticket).toStartWith('wt_');
  return ticket;
}

async function logOut(session: string): Promise<void> {
  const response = await c.api('/api/auth/logout', { method: 'POST', token: session });
  expect(response.status).toBe(200);
}

/** A WebSocket client that keeps every text frame and the close it got. */
class Client {
  readonly frames: string[] = [];
  opened = false;
  close: { code: number; reason: string } | null = null;
  private readonly ws: WebSocket;

  constructor(path: string, credential: { query?: string; bearer?: string }) {
    const url = new URL(`${c.url.replace(/^http/, 'ws')}${path}`);
    if (credential.query !== undefined) url.searchParams.set('token', credential.query);
    this.ws = new WebSocket(url.toString(), credential.bearer === undefined ? undefined : { headers: { authorization: `Bearer ${credential.bearer}` } });
    this.ws.addEventListener('open', () => (this.opened = true));
    this.ws.addEventListener('message', (m) => this.frames.push(String(m.data)));
    this.ws.addEventListener('close', (e) => (this.close = { code: e.code, reason: e.reason }));
  }

  send(text: string): void {
    this.ws.send(text);
  }

  async waitOpen(): Promise<void> {
    await waitFor(() => this.opened || this.close !== null, { what: 'the socket to open' });
    if (!this.opened) throw new Error(`closed before opening: ${JSON.stringify(this.close)}`);
  }

  /** The server's close; fails when it does not come. */
  async closed(what: string): Promise<{ code: number; reason: string }> {
    return waitFor(() => this.close, { what });
  }

  end(): void {
    this.ws.close(1000, 'test done');
  }

  /** The `type`s of the JSON event frames received so far. */
  eventTypes(): string[] {
    return this.frames.map((f) => (JSON.parse(f) as { type: string }).type);
  }
}

interface SocketCase {
  name: string;
  path: string;
  /** The node a session needs here. */
  node: string;
  /** Resolves once the socket has shown it was let in (a frame only an admitted socket gets). */
  proveAdmitted(client: Client): Promise<void>;
}

let markers = 0;

/** Publishes harmless warnings until the client got one: it was admitted and subscribed. */
async function receivesEvents(client: Client): Promise<void> {
  const marker = `session-sockets marker ${++markers}`;
  await client.waitOpen();
  await waitFor(
    () => {
      if (client.close !== null) throw new Error(`closed instead of admitted: ${JSON.stringify(client.close)}`);
      if (client.frames.some((f) => f.includes(marker))) return true;
      c.controller.kernel.bus.publish('API_WARNING', { message: marker });
      return false;
    },
    { what: `${marker} to arrive` },
  );
}

const SOCKETS: SocketCase[] = [
  { name: 'events', path: '/api/events', node: 'svc.dashboard.overview', proveAdmitted: receivesEvents },
  {
    name: 'service console',
    path: `/api/services/${SERVICE}/console`,
    node: 'svc.dashboard.services.console',
    async proveAdmitted(client) {
      const line = `from a session ${++markers}`;
      await client.waitOpen();
      // Typed before admission is fine: the line is held until the credential is checked.
      client.send(`say ${line}`);
      await waitFor(
        () => {
          if (client.close !== null) throw new Error(`closed instead of admitted: ${JSON.stringify(client.close)}`);
          return client.frames.some((f) => f.endsWith(`[Server] ${line}`));
        },
        { what: 'the echoed say' },
      );
    },
  },
  {
    name: 'console stream',
    path: '/api/console/stream',
    node: 'svc.dashboard.admin',
    async proveAdmitted(client) {
      await client.waitOpen();
      // Events reach a remote-console session once it said hello.
      client.send(JSON.stringify({ type: 'hello', text: JSON.stringify({ username: 'session-test' }) }));
      await receivesEvents(client);
    },
  },
];

async function expectPolicyClose(client: Client, what: string): Promise<string> {
  const close = await client.closed(what);
  expect(close.code).toBe(1008);
  expect(close.reason.length).toBeGreaterThan(0);
  return close.reason;
}

describe.each(SOCKETS)('$name socket with dashboard sessions', (socket) => {
  test('a wt_ ticket of a session holding the node is admitted; the same ticket again is closed with 1008', async () => {
    const session = await sessionWith([socket.node]);
    const ticket = await ticketOf(session);
    const first = new Client(socket.path, { query: ticket });
    await socket.proveAdmitted(first);
    const again = new Client(socket.path, { query: ticket });
    await expectPolicyClose(again, 'the spent ticket to be refused');
    expect(again.frames).toEqual([]);
    expect(first.close).toBeNull();
    first.end();
  });

  test('a wt_ ticket of a session without the node is closed with 1008 naming the node', async () => {
    const session = await sessionWith([UNRELATED_NODE]);
    const client = new Client(socket.path, { query: await ticketOf(session) });
    expect(await expectPolicyClose(client, 'the ticket without the node to be refused')).toContain(socket.node);
    expect(client.frames).toEqual([]);
  });

  test('a wt_ ticket minted before its session was logged out is closed with 1008', async () => {
    const session = await sessionWith([socket.node]);
    const ticket = await ticketOf(session);
    await logOut(session);
    const client = new Client(socket.path, { query: ticket });
    await expectPolicyClose(client, "the logged-out session's ticket to be refused");
    expect(client.frames).toEqual([]);
  });

  test('a session token itself is admitted by the node it holds in the Authorization header, never in ?token= (URLs are logged)', async () => {
    const token = await sessionWith([socket.node]);
    const holder = new Client(socket.path, { bearer: token });
    await socket.proveAdmitted(holder);
    holder.end();
    const inUrl = new Client(socket.path, { query: token });
    expect(await expectPolicyClose(inUrl, 'the session token in the URL to be refused')).toBe('token not accepted');
    expect(inUrl.frames).toEqual([]);
    const lacking = new Client(socket.path, { bearer: await sessionWith([UNRELATED_NODE]) });
    expect(await expectPolicyClose(lacking, 'the session without the node to be refused')).toContain(socket.node);
    expect(lacking.frames).toEqual([]);
  });

  test('an admitted session socket is closed with 1008 when its session is logged out by another request', async () => {
    const session = await sessionWith([socket.node]);
    const client = new Client(socket.path, { query: await ticketOf(session) });
    await socket.proveAdmitted(client);
    // Another session of someone else stays connected: only the logged-out one is closed.
    const bystander = new Client(socket.path, { query: await ticketOf(await sessionWith([socket.node])) });
    await socket.proveAdmitted(bystander);
    await logOut(session);
    await expectPolicyClose(client, 'the socket of the logged-out session to be closed');
    await socket.proveAdmitted(bystander);
    expect(bystander.close).toBeNull();
    bystander.end();
  });
});

describe('what an events socket hears, by credential', () => {
  test('a session hears neither magic links nor dashboard logins; the derived token hears logins but no magic link; the master token hears both', async () => {
    const session = new Client('/api/events', { query: await ticketOf(await sessionWith(['svc.dashboard.overview'])) });
    const master = new Client('/api/events', { bearer: c.master });
    const service = new Client('/api/events', { query: c.service });
    for (const client of [session, master, service]) await receivesEvents(client);

    const linkPlayer = testPlayer(0x7fff, 'LinkTaker');
    await bringOnline(c, linkPlayer);
    const delivered = await c.api('/api/auth/deliver-magic-link', { method: 'POST', token: null, json: { name: linkPlayer.name } });
    expect(delivered.status).toBe(202);
    await sessionWith([]); // a dashboard login: DASHBOARD_LOGIN_SUCCEEDED

    // Published after both: on each socket, frames arrive in publish order, so once the marker
    // is in, anything published before it that the socket may hear is in too.
    const marker = `after the secrets ${++markers}`;
    c.controller.kernel.bus.publish('API_WARNING', { message: marker });
    for (const client of [session, master, service]) await waitFor(() => client.frames.some((f) => f.includes(marker)), { what: 'the marker on every socket' });

    expect(master.eventTypes()).toContain('AUTH_MAGIC_LINK_DELIVERY');
    expect(master.eventTypes()).toContain('DASHBOARD_LOGIN_SUCCEEDED');
    expect(service.eventTypes()).toContain('DASHBOARD_LOGIN_SUCCEEDED');
    expect(service.eventTypes()).not.toContain('AUTH_MAGIC_LINK_DELIVERY');
    expect(session.eventTypes()).not.toContain('AUTH_MAGIC_LINK_DELIVERY');
    expect(session.eventTypes()).not.toContain('DASHBOARD_LOGIN_SUCCEEDED');
    // The link itself reached the master token's socket only.
    const link = master.frames.find((f) => f.includes('AUTH_MAGIC_LINK_DELIVERY'))!;
    const url = (JSON.parse(link) as { data: { url: string } }).data.url;
    expect(url).toContain('link=');
    for (const client of [session, service]) expect(client.frames.some((f) => f.includes(url))).toBe(false);
    for (const client of [session, master, service]) client.end();
  });
});
