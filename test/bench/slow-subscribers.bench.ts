/**
 * Subscribers that stop reading: what they cost the compiled controller and how long it holds
 * them. 1,000 /api/events sockets (raw TCP, in this process) and 20 counting readers are
 * connected; proxy events are posted at a fixed rate:
 *
 *   reading  (8 s)   every socket reads: the peer figure (RSS with 1,020 subscribers that read);
 *   stalled          the 1,000 stop reading (paused: neither frames nor pings are read), the 20
 *                    go on. Runs until the controller has closed every one of the 1,000, or
 *                    BENCH_SLOW_MAX_S. Their frames fill the kernel's socket buffers first (tens
 *                    of MiB together, up to the machine's tcp_mem), then the controller's own.
 *
 * Measured: the controller's RSS (idle with everything connected, peak while reading, peak
 * while stalled), when the controller closed the silent sockets (its side of them in
 * /proc/net/tcp), and that the 20 readers lost no frame and were never closed.
 *
 *   bun run bench slow-subscribers
 *   BENCH_SLOW_SOCKETS=1000 BENCH_SLOW_READERS=20 BENCH_SLOW_RATE=500 BENCH_SLOW_MAX_S=60
 *   BENCH_SVC_BINARY=/path/to/svc   measure another build (e.g. the one before the backlog limit)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, listeningPort, makeTempDir, printSetup, readRssKiB, resolveSvcBinary, runBench } from './lib';

const TOKEN = 'bench-token-slow-subscribers-0123456789';
const READING_SECONDS = 8;
const RSS_EVERY_MS = 250;

interface Settings {
  sockets: number;
  readers: number;
  rate: number;
  maxSeconds: number;
}

/** A raw WebSocket client: the handshake by hand, then every byte read and dropped until `stall()`, after which nothing is read. */
class SilentSubscriber {
  readonly socket: Socket;
  primed = false;
  private header = '';
  readonly ready: Promise<void>;

  constructor(port: number) {
    let settle: (error?: Error) => void = () => {};
    this.ready = new Promise((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
    this.socket = connect({ host: '127.0.0.1', port });
    this.socket.on('connect', () => {
      const key = randomBytes(16).toString('base64');
      this.socket.write(`GET /api/events?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    this.socket.on('data', (chunk: Buffer) => {
      if (this.primed) return;
      this.header += chunk.toString('latin1');
      if (this.header.includes('"type":"PLAYER_')) {
        this.primed = true;
        this.header = '';
        settle();
      }
    });
    this.socket.on('error', (error) => settle(error));
  }

  stall(): void {
    this.socket.pause();
  }

  get localPort(): number {
    return this.socket.localPort ?? 0;
  }
}

/**
 * The controller's side (`serverPort`) of the connections from `clientPorts` still ESTABLISHED
 * (state 01), from /proc/net/tcp{,6}. The client side cannot tell: the controller's FIN waits
 * behind the frames its kernel still holds for a client that reads nothing.
 */
function established(clientPorts: ReadonlySet<number>, serverPort: number): number {
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4) continue;
      const local = parseInt(fields[1]!.split(':').at(-1)!, 16);
      const remote = parseInt(fields[2]!.split(':').at(-1)!, 16);
      if (local === serverPort && clientPorts.has(remote) && fields[3] === '01') count++;
    }
  }
  return count;
}

/** Posts PLAYER_CONNECTED/DISCONNECTED at `rate` per second until stopped; counts the answered ones. */
class Poster {
  ok = 0;
  failed = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private seq = 0;

  constructor(private readonly base: string) {}

  async post(): Promise<void> {
    const seq = this.seq++;
    const uuid = `00000000-0000-4000-8000-${seq.toString(16).padStart(12, '0')}`;
    try {
      const response = await fetch(`${this.base}/api/proxy/events`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ type: seq % 2 === 0 ? 'PLAYER_CONNECTED' : 'PLAYER_DISCONNECTED', player: `bench_${seq % 64}`, uuid, service: 'Lobby-1' }),
        signal: AbortSignal.timeout(15_000),
      });
      await response.arrayBuffer();
      if (response.status === 200) this.ok++;
      else this.failed++;
    } catch {
      this.failed++;
    }
  }

  start(rate: number): void {
    // Every 10 ms, the posts due by now: an open loop at `rate`.
    const started = performance.now();
    let sent = 0;
    this.timer = setInterval(() => {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      for (; sent < due; sent++) void this.post();
    }, 10);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Max VmRSS of a process while running, sampled every RSS_EVERY_MS. */
class RssPeak {
  peakKiB = 0;
  private readonly timer: ReturnType<typeof setInterval>;
  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), RSS_EVERY_MS);
    this.sample();
  }
  sample(): void {
    try {
      this.peakKiB = Math.max(this.peakKiB, readRssKiB(this.pid));
    } catch {
      /* gone */
    }
  }
  take(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peakKiB;
  }
}

const mib = (kib: number): string => `${fixed(kib / 1024, 0)} MiB`;
const ratio = (a: number, b: number): string => (b > 0 ? `${fixed(a / b, 2)}×` : '–');

async function main(): Promise<void> {
  const settings: Settings = {
    sockets: Math.round(envNumber('BENCH_SLOW_SOCKETS', 1000)),
    readers: Math.round(envNumber('BENCH_SLOW_READERS', 20)),
    rate: envNumber('BENCH_SLOW_RATE', 500),
    maxSeconds: envNumber('BENCH_SLOW_MAX_S', 60),
  };
  const svc = await resolveSvcBinary();
  const dir = makeTempDir('svc-bench-slow-');
  let tcpMem = '?';
  try {
    tcpMem = readFileSync('/proc/sys/net/ipv4/tcp_mem', 'utf8').trim();
  } catch {
    /* not Linux */
  }
  printSetup(`slow subscribers: ${settings.sockets} /api/events sockets stop reading beside ${settings.readers} readers, ${settings.rate} proxy events/s`, svc, [
    `svc.toml   : [api] port = 0, a fixed token, rate_limit = 0 and service_rate_limit = 0`,
    `phases     : all read for ${READING_SECONDS} s (the peer), then the ${settings.sockets} stop reading (paused TCP sockets: no frames, no pongs) until the controller has closed them all, at most ${settings.maxSeconds} s`,
    `kernel     : tcp_mem ${tcpMem} (pages): the kernel holds what it can for the silent sockets before the controller has to`,
  ]);
  writeFileSync(join(dir, 'svc.toml'), ['[api]', 'port = 0', `token = "${TOKEN}"`, 'rate_limit = 0', 'service_rate_limit = 0', ''].join('\n'));
  const controller = new Child('svc', [svc.path, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }), cwd: dir });
  const silent: SilentSubscriber[] = [];
  const readers: WebSocket[] = [];
  try {
    const port = await controller.waitForLine((line) => listeningPort(line, 'API listening on'), 15_000, '"API listening on" log line');
    // The controller's own account of the sockets it closed (this build's log line, if it has one).
    const closings: { at: number; sockets: number; why: string }[] = [];
    void controller
      .waitForLine((line) => {
        if (line.includes('stopped reading')) {
          const entry = JSON.parse(line) as { sockets?: number; msg?: string };
          closings.push({ at: performance.now(), sockets: entry.sockets ?? 0, why: /were \w+ \(([^)]*)\)/.exec(entry.msg ?? '')?.[1] ?? '' });
        }
        return undefined;
      }, benchTimeoutMs(240), 'the end of the run')
      .catch(() => undefined);
    const base = `http://127.0.0.1:${port}`;
    const poster = new Poster(base);
    await poster.post();

    // The readers count PLAYER_* frames; none may be lost or closed.
    const counts = new Array<number>(settings.readers).fill(0);
    let readersClosed = 0;
    for (let i = 0; i < settings.readers; i++) {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/events?token=${TOKEN}`);
      ws.addEventListener('message', (m) => {
        if (String(m.data).includes('"type":"PLAYER_')) counts[i]!++;
      });
      ws.addEventListener('close', () => readersClosed++);
      readers.push(ws);
      await new Promise((resolve, reject) => {
        ws.addEventListener('open', resolve);
        ws.addEventListener('error', reject);
      });
    }
    for (let i = 0; i < settings.sockets; i++) silent.push(new SilentSubscriber(port));
    // A probe every 50 ms until every socket has seen one: each is subscribed then.
    const probe = setInterval(() => void poster.post(), 50);
    await Promise.all(silent.map((s) => s.ready));
    clearInterval(probe);
    await Bun.sleep(500); // probes still in flight land
    const ports = new Set(silent.map((s) => s.localPort));
    const idleKiB = readRssKiB(controller.pid);
    const countsAtStart = [...counts];
    const okAtStart = poster.ok;

    // Reading: the peer.
    let peak = new RssPeak(controller.pid);
    poster.start(settings.rate);
    await Bun.sleep(READING_SECONDS * 1000);
    const readingPeakKiB = peak.take();

    // Stalled: until every silent socket is closed by the controller.
    for (const s of silent) s.stall();
    peak = new RssPeak(controller.pid);
    const stalledAt = performance.now();
    const timeline: { atS: number; open: number; rssKiB: number }[] = [];
    let open = settings.sockets;
    let firstClosedS: number | null = null;
    while (open > 0 && performance.now() - stalledAt < settings.maxSeconds * 1000) {
      await Bun.sleep(250);
      open = established(ports, port);
      const atS = (performance.now() - stalledAt) / 1000;
      if (open < settings.sockets && firstClosedS === null) firstClosedS = atS;
      timeline.push({ atS, open, rssKiB: readRssKiB(controller.pid) });
    }
    const allClosedS = open === 0 ? (performance.now() - stalledAt) / 1000 : null;
    const stalledPeakKiB = peak.take();
    poster.stop();
    await Bun.sleep(1000); // the last posts are answered and delivered
    const posted = poster.ok - okAtStart;
    const lost = counts.reduce((sum, c, i) => sum + Math.max(0, posted - (c - countsAtStart[i]!)), 0);
    const endKiB = readRssKiB(controller.pid);

    if (closings.length > 0) {
      const byWhy = new Map<string, number>();
      for (const c of closings) byWhy.set(c.why, (byWhy.get(c.why) ?? 0) + c.sockets);
      console.log(`the controller's log: ${closings.length} line(s) closing ${closings.reduce((n, c) => n + c.sockets, 0)} socket(s), first ${fixed((closings[0]!.at - stalledAt) / 1000, 1)} s after they stopped reading: ${[...byWhy].map(([why, n]) => `${n} for "${why}"`).join(', ')}`);
    }
    console.log('stalled phase, every 5 s: seconds since they stopped reading → silent sockets still open, controller RSS');
    for (const t of timeline.filter((_, i) => i % 20 === 19 || i === timeline.length - 1)) console.log(`  ${fixed(t.atS, 1).padStart(5)} s  ${String(t.open).padStart(5)} open  ${mib(t.rssKiB)}`);
    console.log('');
    console.log(
      formatTable(
        ['metric', 'value', 'peer/goal', 'ratio'],
        [
          [`controller RSS, idle, ${settings.sockets + settings.readers} subscribers connected`, mib(idleKiB), '', ''],
          [`RSS peak, all reading (${READING_SECONDS} s)`, mib(readingPeakKiB), `idle ${mib(idleKiB)}`, ratio(readingPeakKiB, idleKiB)],
          [`RSS peak, ${settings.sockets} stopped reading`, mib(stalledPeakKiB), `all reading ${mib(readingPeakKiB)}`, ratio(stalledPeakKiB, readingPeakKiB)],
          [`RSS growth over idle, stopped reading`, `+${mib(stalledPeakKiB - idleKiB)}`, `all reading +${mib(readingPeakKiB - idleKiB)}`, ratio(stalledPeakKiB - idleKiB, Math.max(1, readingPeakKiB - idleKiB))],
          ['first silent socket closed after', firstClosedS === null ? 'none' : `${fixed(firstClosedS, 1)} s`, '', ''],
          [`all ${settings.sockets} silent sockets closed after`, allClosedS === null ? `not within ${settings.maxSeconds} s (${open} open)` : `${fixed(allClosedS, 1)} s`, 'heartbeat alone: 30–45 s', allClosedS === null ? '' : ratio(allClosedS, 30)],
          ['RSS after the run', mib(endKiB), `idle ${mib(idleKiB)}`, ratio(endKiB, idleKiB)],
          [`frames lost by the ${settings.readers} readers (${posted} events each)`, String(lost), 'goal 0', ''],
          ['readers closed', String(readersClosed), 'goal 0', ''],
          ['posts answered / failed', `${posted} / ${poster.failed}`, `${settings.rate}/s`, ''],
        ],
      ),
    );
    if (lost > 0 || readersClosed > 0) throw new Error(`a reader lost ${lost} frames or was closed (${readersClosed})`);
  } finally {
    for (const s of silent) s.socket.destroy();
    for (const ws of readers) ws.close();
    if (controller.running) await controller.stop(10_000);
  }
}

runBench('slow-subscribers.bench', benchTimeoutMs(240), main);
