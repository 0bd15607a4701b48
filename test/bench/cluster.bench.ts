/**
 * Cluster benchmark: the controller binary with 50 simulated agents (one process, real TLS
 * WebSockets), each reporting 20 services and answering a heartbeat every second. Measured
 * over a steady window: the controller's CPU (share of one core) and RSS, with the same
 * controller idle (no agent) in the same run as the peer.
 * Goal: controller CPU ≤ 10 % of one core for 50 agents.
 *
 *   bun run bench cluster
 *   BENCH_AGENTS=50 BENCH_SERVICES=20 BENCH_WINDOW_S=20 BENCH_ENFORCE=1
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, freePort, makeTempDir, printSetup, readCpuSeconds, readRssKiB, resolveSvcBinary, runBench } from './lib';

const AGENTS = envNumber('BENCH_AGENTS', 50);
const SERVICES = envNumber('BENCH_SERVICES', 20);
const WINDOW_S = envNumber('BENCH_WINDOW_S', 20);
const TOKEN = 'bench-master-token-0123456789abcdef';
const CLUSTER = 'bench-cluster-token-0123456789abcdef';
const GOAL_CPU = 0.1;

interface Sim {
  socket: WebSocket;
  beats: number;
}

function simulateAgent(index: number, wsUrl: string, certPem: string): Promise<Sim> {
  const node = `sim-${String(index).padStart(2, '0')}`;
  const services = Array.from({ length: SERVICES }, (_, i) => ({ serviceName: `${node}-svc-${i}`, groupName: 'Sim', pid: 100000 + index * 100 + i, port: 30000 + i, startedAt: Date.now(), memoryUsedMb: 900 }));
  const socket = new WebSocket(wsUrl, { tls: { ca: certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
  const sim: Sim = { socket, beats: 0 };
  return new Promise((resolve, reject) => {
    socket.addEventListener('open', () =>
      socket.send(
        JSON.stringify({
          type: 'AUTH_REQUEST', protocolVersion: 1, token: CLUSTER, nodeName: node, agentVersion: 'bench', maxMemory: 65536, maxServices: 100, currentServices: 0,
          os: 'linux', arch: 'x64', hostname: node, osVersion: '', cpuModel: 'sim', availableProcessors: 8, systemMemoryTotalMb: 65536, publicHost: '10.0.0.1',
          // No running services at login: the controller would rightly stop processes it does not own.
          runningServices: [],
        }),
      ),
    );
    socket.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as { type: string; accepted?: boolean; reason?: string };
      if (frame.type === 'AUTH_RESPONSE') return frame.accepted ? resolve(sim) : reject(new Error(`refused: ${frame.reason}`));
      if (frame.type !== 'HEARTBEAT_REQUEST') return;
      sim.beats++;
      socket.send(JSON.stringify({ type: 'HEARTBEAT_RESPONSE', timestamp: Date.now(), cpuUsage: 0.3, memoryUsedMb: 20000, memoryTotalMb: 65536, services }));
    });
    socket.addEventListener('error', () => reject(new Error(`${node}: connection failed`)));
  });
}

async function measure(pid: number, seconds: number): Promise<{ cpu: number; rssMiB: number }> {
  const cpu0 = readCpuSeconds(pid);
  const t0 = performance.now();
  const rss: number[] = [];
  for (let i = 0; i < seconds; i++) {
    await Bun.sleep(1000);
    rss.push(readRssKiB(pid) / 1024);
  }
  const elapsed = (performance.now() - t0) / 1000;
  return { cpu: (readCpuSeconds(pid) - cpu0) / elapsed, rssMiB: Math.max(...rss) };
}

runBench('cluster', benchTimeoutMs(300), async () => {
  const svc = await resolveSvcBinary();
  printSetup(`cluster: ${AGENTS} simulated agents × ${SERVICES} services, heartbeat 1 s, window ${WINDOW_S} s`, svc);
  const dir = makeTempDir('svc-bench-cluster-');
  const apiPort = freePort();
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${apiPort}\ntoken = "${TOKEN}"\nrate_limit = 0\nservice_rate_limit = 0\n[cluster]\nenabled = true\ntoken = "${CLUSTER}"\nagent_port = 0\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\nheartbeat_interval = 1000\nnode_timeout = 15000\n`);
  const controller = new Child('controller', [svc.path, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }) });
  await controller.waitForLine((l) => (l.includes('API listening') ? true : undefined), 20_000, 'API listening');
  const bootstrap = (await (await fetch(`http://127.0.0.1:${apiPort}/api/cluster/bootstrap`, { headers: { authorization: `Bearer ${CLUSTER}` } })).json()) as { wsUrl: string; certPem: string };

  await Bun.sleep(2000); // start-up transients settle before the idle window
  const idle = await measure(controller.pid, WINDOW_S);

  const sims = await Promise.all(Array.from({ length: AGENTS }, (_, i) => simulateAgent(i, bootstrap.wsUrl, bootstrap.certPem)));
  await Bun.sleep(3000); // logins and first heartbeats settle
  const beatsBefore = sims.reduce((n, s) => n + s.beats, 0);
  const loaded = await measure(controller.pid, WINDOW_S);
  const beats = sims.reduce((n, s) => n + s.beats, 0) - beatsBefore;
  controller.assertRunning('during the measurement');
  const nodes = (await (await fetch(`http://127.0.0.1:${apiPort}/api/nodes`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { total: number };
  for (const sim of sims) sim.socket.close();
  await controller.stop();

  console.log(
    formatTable(
      ['figure', `${AGENTS} agents`, 'idle (peer)', 'limit', 'ratio to limit'],
      [
        ['controller CPU (share of one core)', `${fixed(loaded.cpu * 100, 2)} %`, `${fixed(idle.cpu * 100, 2)} %`, `${GOAL_CPU * 100} %`, fixed(loaded.cpu / GOAL_CPU, 2)],
        ['controller RSS (max, MiB)', fixed(loaded.rssMiB), fixed(idle.rssMiB), '-', '-'],
        ['heartbeats answered in the window', String(beats), '-', `${AGENTS * WINDOW_S} expected`, fixed(beats / (AGENTS * WINDOW_S), 2)],
        ['nodes listed by GET /api/nodes', String(nodes.total), '-', String(AGENTS), '-'],
      ],
    ),
  );
  if (process.env.BENCH_ENFORCE === '1' && loaded.cpu > GOAL_CPU) throw new Error('controller CPU above 10 % of one core (BENCH_ENFORCE=1)');
});
