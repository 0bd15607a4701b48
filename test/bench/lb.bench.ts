/**
 * Load-balancer benchmark: what the TCP load balancer costs a connection, against the same
 * client talking to the same server directly, in the same run, on loopback.
 *
 *   throughput   BENCH_LB_MIB (256) MiB pushed one way through one connection (MB/s)
 *   round trip   BENCH_LB_RTT (20000) sequential 64-byte request/response pairs on one
 *                connection: median and p99 (µs)
 *   requests/s   BENCH_LB_CONNS (32) connections × BENCH_LB_RPS (2000) sequential 64-byte
 *                round trips each, all at once
 *   connect      BENCH_LB_CONNECTS (500) sequential connect + 1-byte round trip + close:
 *                median (µs); through the balancer this includes its connect to the server
 *
 * The server (a sink / echo), the client and the load balancer (src/, default settings:
 * buffer_size 16384, least-players, no PROXY header) are `bun lb-peer.ts` child processes, so
 * the balancer has a JS thread of its own (in the controller it shares one with the API).
 * Peers, same run:
 *   direct         the client talks to the server itself;
 *   minimal relay  lb-minimal-relay.ts, the least a Bun relay can do, in its own process:
 *                  what relaying in user space costs at all, apart from the balancer's own work.
 * Every figure is the median of BENCH_LB_REPEATS (5) runs, the three paths interleaved, after
 * a warm-up of each. Goal: throughput through the balancer ≥ 0.8 × direct. On a machine with
 * fewer cores than busy processes (client, server, relay) the relay competes with both ends
 * for CPU, and it copies every byte twice more; the minimal relay shows that floor.
 *
 *   bun run bench lb
 *   BENCH_ENFORCE=1   exit 1 when the goal is missed
 */
import { join } from 'node:path';
import { backgroundLoad, benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, loadLine, median, percentile, readCpuSeconds, runBench } from './lib';

const PEER = join(import.meta.dir, 'lb-peer.ts');
const MINIMAL_RELAY = join(import.meta.dir, 'lb-minimal-relay.ts');
const MIB = envNumber('BENCH_LB_MIB', 256);
const RTT = envNumber('BENCH_LB_RTT', 20_000);
const CONNS = envNumber('BENCH_LB_CONNS', 32);
const RPS = envNumber('BENCH_LB_RPS', 2000);
const CONNECTS = envNumber('BENCH_LB_CONNECTS', 500);
const REPEATS = envNumber('BENCH_LB_REPEATS', 5);
const GOAL_THROUGHPUT_RATIO = 0.8;

interface ClientResult {
  seconds?: number;
  samplesUs?: number[];
}

/** Runs one client test against `port` and returns its JSON line. */
async function runClient(port: number, test: string, ...args: number[]): Promise<ClientResult> {
  const child = new Child(`client ${test}`, [process.execPath, PEER, 'client', String(port), test, ...args.map(String)], { env: childEnv() });
  const line = await child.waitForLine((l) => (l.startsWith('{') ? l : undefined), 120_000, `${test} result`);
  await child.waitExit(5000);
  return JSON.parse(line) as ClientResult;
}

interface Figures {
  mbPerS: number;
  rttMedianUs: number;
  rttP99Us: number;
  requestsPerS: number;
  connectMedianUs: number;
}

async function measure(port: number): Promise<Figures> {
  const bytes = MIB * 1024 * 1024;
  const throughput = await runClient(port, 'throughput', bytes);
  const rtt = (await runClient(port, 'rtt', RTT, 64)).samplesUs!;
  const rps = await runClient(port, 'rps', CONNS, RPS, 64);
  const connect = (await runClient(port, 'connect', CONNECTS)).samplesUs!;
  return {
    mbPerS: bytes / 1e6 / throughput.seconds!,
    rttMedianUs: median(rtt),
    rttP99Us: percentile(rtt, 99),
    requestsPerS: (CONNS * RPS) / rps.seconds!,
    connectMedianUs: median(connect),
  };
}

const medianOf = (runs: Figures[], key: keyof Figures) => median(runs.map((r) => r[key]));

runBench('lb', benchTimeoutMs(600), async () => {
  console.log(loadLine('before the run', await backgroundLoad()));
  const server = new Child('server', [process.execPath, PEER, 'server'], { env: childEnv() });
  const serverPort = await server.waitForLine((l) => (l.startsWith('listening ') ? Number(l.split(' ')[1]) : undefined), 10_000, 'the server port');

  const portOf = (l: string) => (l.startsWith('listening ') ? Number(l.split(' ')[1]) : undefined);
  const balancer = new Child('balancer', [process.execPath, PEER, 'balancer', String(serverPort)], { env: childEnv() });
  const lbPort = await balancer.waitForLine(portOf, 10_000, 'the balancer port');
  const minimal = new Child('minimal relay', [process.execPath, MINIMAL_RELAY, String(serverPort)], { env: childEnv() });
  const minimalPort = await minimal.waitForLine(portOf, 10_000, 'the minimal relay port');
  console.log(`server 127.0.0.1:${serverPort}, load balancer 127.0.0.1:${lbPort}, minimal relay 127.0.0.1:${minimalPort}`);
  console.log(`${MIB} MiB one way; ${RTT} round trips of 64 B; ${CONNS} connections × ${RPS} round trips; ${CONNECTS} connects; median of ${REPEATS} runs each\n`);

  // Warm-up: JIT and kernel buffers on both paths, not judged.
  for (const port of [serverPort, minimalPort, lbPort]) {
    await runClient(port, 'throughput', 32 * 1024 * 1024);
    await runClient(port, 'rtt', 2000, 64);
  }

  const direct: Figures[] = [];
  const relayed: Figures[] = [];
  const balanced: Figures[] = [];
  let balancedSeconds = 0;
  let balancedCpu = 0;
  for (let i = 0; i < REPEATS; i++) {
    direct.push(await measure(serverPort));
    relayed.push(await measure(minimalPort));
    const started = performance.now();
    const cpuBefore = readCpuSeconds(balancer.pid);
    balanced.push(await measure(lbPort));
    balancedCpu += readCpuSeconds(balancer.pid) - cpuBefore;
    balancedSeconds += (performance.now() - started) / 1000;
    console.log(`run ${i + 1}: direct ${fixed(direct.at(-1)!.mbPerS, 0)} MB/s, minimal relay ${fixed(relayed.at(-1)!.mbPerS, 0)} MB/s, through the balancer ${fixed(balanced.at(-1)!.mbPerS, 0)} MB/s`);
  }
  await balancer.stop(2000);
  await minimal.stop(2000);
  await server.stop(2000);

  const row = (figure: string, key: keyof Figures, unit: string, digits: number, goal = '') => {
    const lbValue = medianOf(balanced, key);
    const directValue = medianOf(direct, key);
    const relayValue = medianOf(relayed, key);
    const value = (v: number) => `${fixed(v, digits)} ${unit}`;
    return [figure, value(lbValue), value(directValue), `${fixed(lbValue / directValue, 2)}×`, value(relayValue), `${fixed(lbValue / relayValue, 2)}×`, goal];
  };
  const throughputRatio = medianOf(balanced, 'mbPerS') / medianOf(direct, 'mbPerS');
  console.log('');
  console.log(
    formatTable(
      ['figure', 'through LB', 'peer: direct', 'ratio', 'minimal relay', 'ratio', 'goal'],
      [
        row(`throughput, ${MIB} MiB one connection`, 'mbPerS', 'MB/s', 0, `≥ ${GOAL_THROUGHPUT_RATIO}× ${throughputRatio >= GOAL_THROUGHPUT_RATIO ? 'met' : 'MISSED'}`),
        row('round trip 64 B, median', 'rttMedianUs', 'µs', 1),
        row('round trip 64 B, p99', 'rttP99Us', 'µs', 1),
        row(`requests/s, ${CONNS} connections`, 'requestsPerS', 'req/s', 0),
        row('connect + first round trip, median', 'connectMedianUs', 'µs', 1),
      ],
    ),
  );
  const addedMedian = medianOf(balanced, 'rttMedianUs') - medianOf(direct, 'rttMedianUs');
  const addedP99 = medianOf(balanced, 'rttP99Us') - medianOf(direct, 'rttP99Us');
  console.log(`\nadded latency per round trip: median ${fixed(addedMedian, 1)} µs, p99 ${fixed(addedP99, 1)} µs`);
  console.log(`load balancer process CPU while the balanced runs ran: ${fixed((balancedCpu / balancedSeconds) * 100, 0)}% of a core (clients start and stop between the tests)`);
  console.log(loadLine('after the run', await backgroundLoad()));
  if (process.env.BENCH_ENFORCE === '1' && throughputRatio < GOAL_THROUGHPUT_RATIO) throw new Error(`throughput ratio ${fixed(throughputRatio, 2)} < ${GOAL_THROUGHPUT_RATIO}`);
});
