/**
 * /api/console/stream end to end: a real controller, a real fake-paper service, WebSocket
 * clients. hello → execute → output in emission order → output_end; completion; events
 * (minus the two the spec keeps off); screen attach, input to the real stdin, lines back,
 * detach; sessions in cli_sessions with CLI_SESSION_* events and a looked-up location.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { OUTPUT_KINDS } from '../../src/core/commands/command';
import type { SvcEvent } from '../../src/events/catalogue';
import { outboundFrame } from '../../src/ws/console-protocol';
import type { Heartbeat } from '../../src/ws/heartbeat';
import { readJson, startController, waitFor, type TestController } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');

interface Frame {
  type: string;
  id?: string;
  kind?: string;
  line?: { type: string; text: string };
  text?: string;
  success?: boolean;
  candidates?: string[];
  event?: { type: string; data: Record<string, string> };
}

/** A console client that keeps every frame it receives. */
class Client {
  readonly frames: Frame[] = [];
  closeCode: number | null = null;
  private constructor(readonly ws: WebSocket) {
    ws.addEventListener('message', (m) => this.frames.push(JSON.parse(String(m.data)) as Frame));
    ws.addEventListener('close', (e) => (this.closeCode = e.code));
  }

  static async open(token: string, headers: Record<string, string> = {}): Promise<Client> {
    const ws = new WebSocket(`${c.url.replace('http', 'ws')}/api/console/stream`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    const client = new Client(ws);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve());
      ws.addEventListener('error', () => reject(new Error('socket error')));
    });
    return client;
  }

  send(frame: Record<string, unknown> | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  hello(client = { username: 'alice', hostname: 'laptop', os: 'Linux 6.1 x64' }): void {
    this.send({ type: 'hello', text: JSON.stringify(client) });
  }

  /** Runs a command and resolves with its frames once output_end arrived. */
  async execute(input: string, id = crypto.randomUUID().slice(0, 8)): Promise<Frame[]> {
    this.send({ type: 'execute', id, input });
    await waitFor(() => this.frames.some((f) => f.type === 'output_end' && f.id === id), { timeoutMs: 20_000, what: `output_end of "${input}"` });
    return this.frames.filter((f) => f.id === id);
  }

  waitFrame(match: (f: Frame) => boolean, what: string, timeoutMs = 5000): Promise<Frame> {
    return waitFor(() => this.frames.find(match), { timeoutMs, what });
  }

  close(): Promise<void> {
    this.ws.close();
    return waitFor(() => this.closeCode !== null, { what: 'close' }).then(() => undefined);
  }
}

let c: TestController;
let lookup: ReturnType<typeof Bun.serve>;
const lookups: string[] = [];
const events: SvcEvent[] = [];

beforeAll(async () => {
  // A local stand-in for an IP location service, in ip-api.com's documented shape.
  lookup = Bun.serve({
    port: 0,
    fetch(request) {
      const ip = new URL(request.url).pathname.split('/').pop()!;
      lookups.push(ip);
      return Response.json({ status: 'success', country: 'Iceland', regionName: 'Capital Region', city: 'Reykjavik', query: ip });
    },
  });
  c = await startController({
    apiToml: 'trust_forwarded_for = true',
    toml: `[console]\nlocation_lookup_url = "http://127.0.0.1:${lookup.port}/json/{ip}"`,
    timing: { stopTimeoutMs: 5000 },
  });
  c.controller.kernel.bus.subscribe((e) => events.push(e));
  const group = { name: 'Lobby', software: 'CUSTOM', version: '1.21.1', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0 };
  expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await c.api('/api/services/Lobby-1'))).state === 'READY', { timeoutMs: 20_000, what: 'Lobby-1 READY' });
}, 30_000);
afterAll(async () => {
  await c.stop();
  lookup.stop(true);
});

describe('sessions', () => {
  test('only an admin credential opens the console', async () => {
    const service = new WebSocket(`${c.url.replace('http', 'ws')}/api/console/stream?token=${c.service}`);
    const code = await new Promise<number>((resolve) => service.addEventListener('close', (e) => resolve(e.code)));
    expect(code).toBe(1008);
  });

  test('hello registers the session: CLI_SESSION_CONNECTED with the looked-up location, a cli_sessions row; disconnect closes both', async () => {
    const client = await Client.open(c.master, { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    client.hello();
    const connected = await waitFor(() => events.find((e) => e.type === 'CLI_SESSION_CONNECTED' && e.data.remoteIp === '203.0.113.9'), { what: 'CLI_SESSION_CONNECTED' });
    expect(connected.data).toEqual({ sessionId: expect.any(String), remoteIp: '203.0.113.9', clientUsername: 'alice', clientHostname: 'laptop', clientOs: 'Linux 6.1 x64', location: 'Reykjavik, Capital Region, Iceland' });
    expect(lookups).toContain('203.0.113.9');
    await client.execute('version');
    await client.execute('status');
    await client.close();
    const disconnected = await waitFor(() => events.find((e) => e.type === 'CLI_SESSION_DISCONNECTED' && e.data.sessionId === connected.data.sessionId), { what: 'CLI_SESSION_DISCONNECTED' });
    expect(disconnected.data).toEqual({ sessionId: connected.data.sessionId!, remoteIp: '203.0.113.9', clientUsername: 'alice', durationSeconds: expect.stringMatching(/^\d+$/), commandCount: '2' });
    const row = c.controller.kernel.db.query<Record<string, unknown>, [string]>('SELECT * FROM cli_sessions WHERE id = ?').get(connected.data.sessionId!);
    expect(row).toMatchObject({ remote_ip: '203.0.113.9', client_username: 'alice', client_hostname: 'laptop', location: 'Reykjavik, Capital Region, Iceland', command_count: 2 });
    expect(row!.disconnected_at).toBeNumber();
    // both are in the audit log, attributed to the admin API
    const audit = await readJson(await c.api('/api/audit?action=CLI_SESSION_CONNECTED'));
    expect(audit.entries[0]).toMatchObject({ actor: 'api:admin', action: 'CLI_SESSION_CONNECTED' });
  });

  test('a local address is never sent to the lookup; a hello without JSON is an unnamed client', async () => {
    const before = lookups.length;
    const client = await Client.open(c.master);
    client.send({ type: 'hello', text: 'not json' });
    const connected = await waitFor(() => events.find((e) => e.type === 'CLI_SESSION_CONNECTED' && e.data.remoteIp === '127.0.0.1'), { what: 'CLI_SESSION_CONNECTED' });
    expect(connected.data).toMatchObject({ clientUsername: 'unknown', clientHostname: 'unknown', clientOs: 'unknown', location: 'local network' });
    expect(lookups.length).toBe(before);
    await client.close();
  });

  test('before hello nothing runs and no events arrive; a second hello changes nothing', async () => {
    const client = await Client.open(c.master);
    client.send({ type: 'execute', id: 'early', input: 'status' });
    await client.waitFrame((f) => f.type === 'output_end' && f.id === 'early', 'the refusal');
    expect(client.frames).toEqual([
      { type: 'output', id: 'early', kind: 'error', text: expect.stringMatching(/^send hello first/), line: { type: 'error', text: expect.stringMatching(/^send hello first/) } },
      { type: 'output_end', id: 'early', success: false },
    ]);
    c.controller.kernel.bus.publish('GROUP_CREATED', { group: 'NotForYou' });
    client.hello();
    client.hello({ username: 'mallory', hostname: 'x', os: 'y' });
    await client.execute('version');
    // events from before the hello never reach the session (its own CONNECTED may, later)
    expect(client.frames.some((f) => f.type === 'event' && f.event?.data.group === 'NotForYou')).toBe(false);
    expect(events.filter((e) => e.type === 'CLI_SESSION_CONNECTED' && e.data.clientUsername === 'mallory')).toEqual([]);
    await client.close();
  });
});

describe('frames before the credential is checked', () => {
  /**
   * The flaky auth-matrix probe, made deterministic: an admin JWT is verified asynchronously,
   * and a client says hello the moment the socket opens. Here the verification is held until
   * the controller has received the client's first frames, which used to be dropped.
   */
  test('hello and a request sent on open are answered once an admin JWT is verified', async () => {
    const auth = c.controller.kernel.auth;
    const jwt = (await auth.mintJwt('early-bird', ['admin'], 3600)).token;
    // The first thing the socket does with a frame is count it as a sign of life.
    const heartbeat = (c.controller as unknown as { heartbeat: Heartbeat }).heartbeat;
    const identify = auth.identify.bind(auth);
    const alive = heartbeat.alive.bind(heartbeat);
    let received = 0;
    let release = () => {};
    const bothReceived = new Promise<void>((resolve) => (release = resolve));
    heartbeat.alive = (id) => {
      alive(id);
      if (++received === 2) release();
    };
    // The HTTP guard identifies the upgrade request first (its rate budget); the socket's own
    // admission check follows the upgrade, and that is the one held back.
    let checks = 0;
    let held = 0;
    auth.identify = (token) => {
      if (token !== jwt || ++checks === 1) return identify(token);
      held += 1;
      return bothReceived.then(() => identify(token));
    };
    try {
      const ws = new WebSocket(`${c.url.replace('http', 'ws')}/api/console/stream`, { headers: { authorization: `Bearer ${jwt}` } });
      const frames: Frame[] = [];
      ws.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data)) as Frame));
      ws.addEventListener('open', () => {
        ws.send(JSON.stringify({ type: 'hello', text: JSON.stringify({ username: 'early-bird', hostname: 'h', os: 'o' }) }));
        ws.send(JSON.stringify({ type: 'complete', id: 'early', input: 'sta' }));
      });
      const answer = await waitFor(() => frames.find((f) => f.type === 'completions' && f.id === 'early'), { what: 'the completion asked for before the token was verified' });
      expect(held).toBe(1);
      expect(answer.candidates).toEqual(['start', 'status']);
      // the hello was handled first: the session is registered under the client's name
      await waitFor(() => events.find((e) => e.type === 'CLI_SESSION_CONNECTED' && e.data.clientUsername === 'early-bird'), { what: 'CLI_SESSION_CONNECTED of early-bird' });
      ws.close();
    } finally {
      auth.identify = identify;
      heartbeat.alive = alive;
    }
  });

  test('frames from a socket that is then refused are never handled', async () => {
    const before = events.filter((e) => e.type === 'CLI_SESSION_CONNECTED').length;
    const ws = new WebSocket(`${c.url.replace('http', 'ws')}/api/console/stream`, { headers: { authorization: `Bearer ${c.service}` } });
    const frames: string[] = [];
    let code: number | null = null;
    ws.addEventListener('message', (m) => frames.push(String(m.data)));
    ws.addEventListener('close', (e) => (code = e.code));
    ws.addEventListener('open', () => {
      ws.send(JSON.stringify({ type: 'hello', text: '{"username":"intruder"}' }));
      ws.send(JSON.stringify({ type: 'execute', id: 'x', input: 'version' }));
    });
    expect(await waitFor(() => code, { what: 'the refusal' })).toBe(1008);
    expect(frames).toEqual([]);
    expect(events.filter((e) => e.type === 'CLI_SESSION_CONNECTED').length).toBe(before);
  });
});

describe('commands', () => {
  let client: Client;
  beforeAll(async () => {
    client = await Client.open(c.master);
    client.hello();
  });
  afterAll(() => client.close());

  test('output frames arrive in emission order, then output_end', async () => {
    const frames = await client.execute('help', 'h1');
    const http = await readJson(await c.api('/api/commands/help/execute', { method: 'POST', json: { args: [] } }));
    expect(frames.slice(0, -1)).toEqual(http.lines.map((line: { type: string; text: string }) => ({ type: 'output', id: 'h1', kind: line.type, text: line.text, line })));
    expect(frames.at(-1)).toEqual({ type: 'output_end', id: 'h1', success: true });
  });

  test("output frames carry both shapes: the spec's flat {type:'output', id, kind, text} and the dashboard's line:{type, text}", async () => {
    const frames = await client.execute('status', 'shape');
    const outputs = frames.filter((f) => f.type === 'output');
    expect(outputs.length).toBeGreaterThan(1);
    for (const frame of outputs) {
      expect(outboundFrame.Check(frame)).toBe(true);
      expect(Object.keys(frame).sort()).toEqual(['id', 'kind', 'line', 'text', 'type']);
      expect(Object.keys(frame.line!).sort()).toEqual(['text', 'type']);
      expect(OUTPUT_KINDS).toContain(frame.kind as (typeof OUTPUT_KINDS)[number]);
      expect(frame.line).toEqual({ type: frame.kind!, text: frame.text! });
    }
    // what console/page.tsx prints: msg.line.text for every output frame
    expect(outputs.map((m) => m.line!.text)[0]).toBe('svc: online');
    expect(outputs[0]!.line!.type).toBe('header');
    // what a client written from the spec prints: kind and text
    expect(outputs[0]).toMatchObject({ kind: 'header', text: 'svc: online' });
    expect(frames.at(-1)).toEqual({ type: 'output_end', id: 'shape', success: true });
  });

  test('concurrent commands keep their own order and end', async () => {
    client.send({ type: 'execute', id: 'slow', input: 'restart Lobby-1' });
    const quick = await client.execute('version', 'quick');
    expect(quick.map((f) => f.type)).toEqual(['output', 'output', 'output', 'output_end']);
    await client.waitFrame((f) => f.type === 'output_end' && f.id === 'slow', 'the restart to end', 30_000);
    const slow = client.frames.filter((f) => f.id === 'slow');
    expect(slow.map((f) => f.line?.text ?? f.type)).toEqual(['stopping Lobby-1', expect.stringMatching(/^Lobby-1 stopped; Lobby-\d is starting/), expect.stringMatching(/^Lobby-\d is READY/), 'output_end']);
  }, 40_000);

  test('failures end with an error line and success false; an empty line is a no-op', async () => {
    expect(await client.execute('frobnicate', 'f1')).toEqual([
      { type: 'output', id: 'f1', kind: 'error', text: 'unknown command "frobnicate"; `help` lists the commands', line: { type: 'error', text: 'unknown command "frobnicate"; `help` lists the commands' } },
      { type: 'output_end', id: 'f1', success: false },
    ]);
    const failed = await client.execute('info Nope', 'f2');
    expect(failed.at(-1)).toEqual({ type: 'output_end', id: 'f2', success: false });
    expect(await client.execute('   ', 'f3')).toEqual([{ type: 'output_end', id: 'f3', success: true }]);
    // quoting reaches the command as one word
    const quoted = await client.execute('maintenance on "big update"', 'f4');
    expect(quoted[0]!.line!.text).toContain('maintenance is ON');
    expect(c.controller.kernel.maintenance.status().global.reason).toBe('big update');
    await client.execute('maintenance off');
  });

  test('completion answers candidates for the word being typed', async () => {
    client.send({ type: 'complete', id: 'c1', input: 'sta' });
    client.send({ type: 'complete', id: 'c2', input: 'info Lob' });
    const one = await client.waitFrame((f) => f.type === 'completions' && f.id === 'c1', 'completions c1');
    const two = await client.waitFrame((f) => f.type === 'completions' && f.id === 'c2', 'completions c2');
    expect(one.candidates).toEqual(['start', 'status']);
    expect(two.candidates!.every((n) => n.startsWith('Lobby-'))).toBe(true);
  });

  test('frames outside the protocol are ignored and the session carries on', async () => {
    client.send('not json at all');
    client.send({ type: 'teleport', id: 'x' });
    client.send({ type: 'execute', id: 42, input: 'status' });
    const frames = await client.execute('version', 'after-junk');
    expect(frames.at(-1)).toEqual({ type: 'output_end', id: 'after-junk', success: true });
    expect(client.frames.some((f) => f.id === 'x' || (f.id as unknown) === 42)).toBe(false);
  });

  test('events arrive wrapped, except NODE_HEARTBEAT and STRESS_TEST_UPDATED', async () => {
    const bus = c.controller.kernel.bus;
    const start = client.frames.length;
    bus.publish('NODE_HEARTBEAT', { nodeId: 'n1', cpuUsage: 0.5, services: 3 });
    bus.publish('STRESS_TEST_UPDATED', { simulatedPlayers: 1, targetPlayers: 2 });
    bus.publish('GROUP_CREATED', { group: 'Marker' });
    await client.waitFrame((f) => f.type === 'event' && f.event?.data.group === 'Marker', 'the marker event');
    const seen = client.frames.slice(start).filter((f) => f.type === 'event');
    expect(seen).toEqual([{ type: 'event', event: { type: 'GROUP_CREATED', data: { group: 'Marker' } } }]);
  });
});

describe('screen', () => {
  let client: Client;
  beforeAll(async () => {
    client = await Client.open(c.master);
    client.hello();
    await client.execute('version');
  });
  afterAll(() => client.close());

  const running = () => c.controller.kernel.services.all().find((s) => s.state === 'READY' && s.group === 'Lobby')!.name;

  test('attach sends recent lines, input reaches the real stdin, its output streams back, detach stops it', async () => {
    const name = running();
    client.send({ type: 'screen_attach', service: name });
    await client.waitFrame((f) => f.type === 'screen_attached', 'screen_attached');
    expect(client.frames.find((f) => f.type === 'screen_attached')!.text).toBe(name);
    await client.waitFrame((f) => f.type === 'screen_line' && /Done \(/.test(f.text!), 'the backlog with Done');
    client.send({ type: 'screen_input', service: name, text: '  say through the screen  ' });
    await client.waitFrame((f) => f.type === 'screen_line' && f.text === '[12:00:00 INFO]: [Server] through the screen', 'the say line back');
    client.send({ type: 'screen_input', service: name, text: 'two\nlines' });
    await client.waitFrame((f) => f.type === 'screen_error' && /one line at a time/.test(f.text!), 'refusal of a line break');
    client.send({ type: 'screen_detach' });
    await client.waitFrame((f) => f.type === 'screen_detached', 'screen_detached');
    const count = client.frames.filter((f) => f.type === 'screen_line').length;
    // after detach the service still talks, but not to us
    expect((await c.api(`/api/services/${name}/exec`, { method: 'POST', json: { command: 'say not for the screen' } })).status).toBe(200);
    await waitFor(async () => (await readJson(await c.api(`/api/services/${name}/logs?lines=5`))).lines.some((l: string) => l.includes('not for the screen')), { what: 'the say in the log' });
    expect(client.frames.filter((f) => f.type === 'screen_line').length).toBe(count);
    client.send({ type: 'screen_input', service: name, text: 'say nobody attached' });
    await client.waitFrame((f) => f.type === 'screen_error' && f.text === `not attached to ${name}; send screen_attach first`, 'input refused after detach');
  });

  test('an unknown service is a screen_error', async () => {
    client.send({ type: 'screen_attach', service: 'Nope-1' });
    await client.waitFrame((f) => f.type === 'screen_error' && f.text === 'service Nope-1 does not exist', 'screen_error');
  });

  test('the service stopping ends the screen with a reason', async () => {
    const name = running();
    const start = client.frames.length;
    client.send({ type: 'screen_attach', service: name });
    await client.waitFrame((f) => f.type === 'screen_attached' && client.frames.indexOf(f) >= start, 'attached again');
    expect((await c.api(`/api/services/${name}/stop`, { method: 'POST' })).status).toBe(200);
    await client.waitFrame((f) => f.type === 'screen_detached' && f.text === `${name} stopped`, 'screen_detached on stop');
  });
});
