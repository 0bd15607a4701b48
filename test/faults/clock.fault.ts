/**
 * Wall-clock steps through the compiled binary (issue 38, findings 1 and 2). The controller runs
 * under libfaketime with its wall clock read from a file on every call and its monotonic clock
 * left alone, as during an NTP step; this process and the game server keep the real time. The
 * file says "+0", then "-1h", then "+0" again, then "+2m", then "+10m", while the test checks:
 *
 *   - after the step back, and after the clock returns, /api/health and the master token are
 *     never answered 429 (a rate limiter on the wall clock answered "retry in 3538 s");
 *   - /api/events sockets stay connected across the steps forward (a heartbeat on the wall
 *     clock dropped every socket at its next round);
 *   - a READY server that reports its player count every few seconds is not killed as stale
 *     after a step forward (a stale watch on the wall clock SIGKILLed it as "stale for 619 s").
 *
 * The holds after a step forward last until a raw socket has seen two heartbeat pings after the
 * step: at least one heartbeat round (15 s) and one stale check (10 s) ran on the stepped clock.
 * Reports pause during each hold, so a stale watch that believed the wall clock would see 2 or
 * 10 minutes of silence against its 60 s timeout, while the real silence stays under 35 s.
 *
 *   bun test ./test/faults/clock.fault.ts     (needs Debian's faketime; .ci/run installs it)
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { OPCODE, RawWebSocket } from '../support/raw-ws';

const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((path) => existsSync(path));
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'clock-fault-token-0123456789abcdef';
const STALE_TIMEOUT_S = 60;
const REPORT_EVERY_MS = 2_000;
const HOUR_MS = 3_600_000;

let svc: string;
let dir: string;
let clockFile: string;
let url: string;
let out: LineCollector;
let serverPid = 0;
const cleanups: (() => void)[] = [];

const api = (path: string, init: RequestInit & { token?: string | null } = {}) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
  return fetch(url + path, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
};

/** The controller's wall clock from now on (libfaketime reads the file on every call). */
function setClock(offset: string): void {
  writeFileSync(clockFile, `${offset}\n`);
}

/** The controller's idea of the time: the Date header of an answer (the server refreshes it every second). */
async function controllerClockOffsetMs(): Promise<number> {
  const response = await fetch(`${url}/api/health`);
  await response.arrayBuffer();
  return Date.parse(response.headers.get('date') ?? '') - Date.now();
}

/** Waits until the controller's clock is `offsetMs` from ours, give or take the header's second. */
async function clockIsAt(offsetMs: number, what: string): Promise<void> {
  await waitFor(async () => Math.abs((await controllerClockOffsetMs()) - offsetMs) < 5_000, { what: `the controller's clock ${what}`, timeoutMs: 10_000, intervalMs: 200 });
}

/** The game server's SDK, played by the test: a player-count report every REPORT_EVERY_MS while `running`. */
class Reporter {
  running = false;
  reports = 0;
  failures: string[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  start(): void {
    this.running = true;
    void this.report();
    this.timer ??= setInterval(() => void this.report(), REPORT_EVERY_MS);
  }

  pause(): void {
    this.running = false;
  }

  stop(): void {
    this.running = false;
    clearInterval(this.timer);
  }

  private async report(): Promise<void> {
    if (!this.running) return;
    const response = await api('/api/services/Lobby-1/players', { method: 'PUT', body: JSON.stringify({ playerCount: 3 }) });
    if (response.status === 200) this.reports++;
    else this.failures.push(`${response.status} ${await response.text()}`);
  }
}

/** An /api/events socket the way a client holds one, counting its frames and whether it closed. */
class EventsClient {
  readonly types: string[] = [];
  closed: string | null = null;
  private readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor() {
    this.socket = new WebSocket(`${url.replace('http', 'ws')}/api/events`, { headers: { authorization: `Bearer ${TOKEN}` } });
    this.socket.addEventListener('message', (m) => this.types.push((JSON.parse(String(m.data)) as { type: string }).type));
    this.socket.addEventListener('close', (e) => (this.closed ??= `closed with ${e.code} ${e.reason}`));
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener('open', () => resolve());
      this.socket.addEventListener('error', () => reject(new Error('the events socket did not open')));
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** A raw socket that answers every ping with a pong and counts the pings: it shows when a heartbeat round ran. */
class PingCounter {
  private answered = 0;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(readonly raw: RawWebSocket) {
    this.timer = setInterval(() => this.answer(), 20);
  }

  get pings(): number {
    return this.raw.frames.filter((f) => f.opcode === OPCODE.ping).length;
  }

  private answer(): void {
    const pings = this.raw.frames.filter((f) => f.opcode === OPCODE.ping);
    for (const ping of pings.slice(this.answered)) this.raw.send(OPCODE.pong, ping.payload);
    this.answered = pings.length;
  }

  stop(): void {
    clearInterval(this.timer);
    this.raw.end();
  }
}

const reporter = new Reporter();
const subscribers: EventsClient[] = [];

beforeAll(async () => {
  if (!LIBFAKETIME) throw new Error('libfaketime is not installed (Debian: apt-get install faketime); .ci/run installs it before the fault suites');
  svc = await svcBinary();
  const temp = tempDir('svc-clock-fault-');
  cleanups.push(temp.remove);
  dir = temp.dir;
  clockFile = join(dir, 'faketime');
  setClock('+0');
  // Default rate limits (120/min per address, 6000/min for the master token): the limiter is what finding 1 is about.
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\n[controller]\nservice_stale_timeout = ${STALE_TIMEOUT_S}\n[services]\nisolation = "none"\n`);
  mkdirSync(join(dir, 'config/groups'), { recursive: true });
  writeFileSync(
    join(dir, 'config/groups/Lobby.toml'),
    `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\njar_name = "server.jar"\nstart_command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(FAKE_PAPER)}, "--port", "{port}"]\n[group.scaling]\nmin_instances = 1\n[group.lifecycle]\nrestart_on_crash = false\n`,
  );
  const child = Bun.spawn([svc, '--dir', dir], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      SVC_LOG_FORMAT: 'json',
      SVC_API_TOKEN: TOKEN,
      // The controller's wall clock only; CLOCK_MONOTONIC stays real, as during an NTP step.
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: clockFile,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  cleanups.push(() => child.kill('SIGKILL'));
  out = new LineCollector(child.stdout);
  const listening = await out.waitForLine((l) => l.includes('API listening'), 20_000);
  url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;

  const lobby = await waitFor(async () => {
    const view = await readJson(await api('/api/services/Lobby-1'));
    return view.state === 'READY' ? view : null;
  }, { what: 'Lobby-1 READY', timeoutMs: 30_000 });
  serverPid = lobby.pid;
  cleanups.push(() => killGameServers(dir, [serverPid]));
  reporter.start();
  for (let i = 0; i < 3; i++) subscribers.push(new EventsClient());
  await Promise.all(subscribers.map((s) => s.opened));
  await clockIsAt(0, 'at +0');
}, 120_000);

afterAll(() => {
  reporter.stop();
  for (const s of subscribers) s.close();
  cleanups.splice(0).reverse().forEach((f) => f());
});

/** `count` requests each for /api/health (public budget) and a master-token route (service budget): every status seen. */
async function statuses(count: number): Promise<{ health: number[]; master: number[]; retryAfter: string[] }> {
  const health: number[] = [];
  const master: number[] = [];
  const retryAfter: string[] = [];
  for (let i = 0; i < count; i++) {
    const h = await api('/api/health', { token: null });
    const m = await api('/api/services');
    for (const r of [h, m]) {
      if (r.status === 429) retryAfter.push(r.headers.get('retry-after') ?? '?');
      await r.arrayBuffer();
    }
    health.push(h.status);
    master.push(m.status);
  }
  return { health, master, retryAfter };
}

/**
 * Steps the clock forward and holds, with reports paused, until a raw socket opened before the
 * step has seen two pings sent after it: a heartbeat round and a stale check (every 10 s) have
 * both run on the stepped clock. A socket the controller dropped sees no more pings: then the
 * hold lasts the 15 s those two checks take, so what follows still judges the stale watch.
 */
async function stepAndHold(offset: string, offsetMs: number, what: string): Promise<PingCounter> {
  const pinger = new PingCounter(await RawWebSocket.connect(`${url.replace('http', 'ws')}/api/events?token=${TOKEN}`));
  cleanups.push(() => pinger.stop());
  reporter.pause();
  setClock(offset);
  await clockIsAt(offsetMs, what);
  const pingsAtStep = pinger.pings;
  const steppedAt = performance.now();
  await waitFor(() => pinger.pings >= pingsAtStep + 2 || (pinger.raw.closed && performance.now() - steppedAt >= 15_000), { what: 'two heartbeat rounds after the step', timeoutMs: 40_000, intervalMs: 100 });
  reporter.start();
  return pinger;
}

describe('a wall-clock step never locks clients out, drops sockets or kills servers', () => {
  test('-1 h: /api/health and the master token are never 429, nor after the clock returns', async () => {
    expect(await statuses(5)).toEqual({ health: [200, 200, 200, 200, 200], master: [200, 200, 200, 200, 200], retryAfter: [] });
    setClock('-1h');
    await clockIsAt(-HOUR_MS, 'one hour back');
    const back = await statuses(30);
    expect(back.retryAfter).toEqual([]);
    expect(new Set([...back.health, ...back.master])).toEqual(new Set([200]));

    setClock('+0');
    await clockIsAt(0, 'back at +0');
    const returned = await statuses(30);
    expect(returned.retryAfter).toEqual([]);
    expect(new Set([...returned.health, ...returned.master])).toEqual(new Set([200]));
    expect(reporter.failures).toEqual([]);
  }, 60_000);

  test('+2 min: every /api/events socket stays connected across heartbeat rounds', async () => {
    const pinger = await stepAndHold('+2m', 2 * 60_000, 'two minutes ahead');
    expect(subscribers.map((s) => s.closed)).toEqual([null, null, null]);
    expect(pinger.raw.closed).toBe(false);
    // And they still carry events.
    expect((await api('/api/services/Lobby-1/state', { method: 'PUT', body: JSON.stringify({ customState: 'after +2m' }) })).status).toBe(200);
    await waitFor(() => subscribers.every((s) => s.types.includes('SERVICE_CUSTOM_STATE_CHANGED')), { what: 'the event on every socket after the step', timeoutMs: 10_000 });
  }, 60_000);

  test('+10 min: a READY server that reports is not killed as stale', async () => {
    await stepAndHold('+10m', 10 * 60_000, 'ten minutes ahead');
    // One more report after the hold, then the server is as it was: READY, same process, no crash.
    const reportsBefore = reporter.reports;
    await waitFor(() => reporter.reports > reportsBefore, { what: 'a report after the hold', timeoutMs: 10_000 });
    const view = await readJson(await api('/api/services/Lobby-1'));
    expect(view).toMatchObject({ state: 'READY', pid: serverPid, diagnosis: null });
    expect(() => process.kill(serverPid, 0)).not.toThrow();
    expect(subscribers.flatMap((s) => s.types).filter((t) => t === 'SERVICE_CRASHED')).toEqual([]);
    expect(out.lines.filter((l) => l.includes('stale: no player-count report'))).toEqual([]);
    expect(subscribers.map((s) => s.closed)).toEqual([null, null, null]);
    expect(reporter.failures).toEqual([]);
  }, 60_000);
});
