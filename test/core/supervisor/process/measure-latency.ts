/**
 * Measures the process layer (not part of `bun test`: run it by hand).
 *
 *   bun test/core/supervisor/process/measure-latency.ts [services=200] [lines=1000]
 *
 * - launch(): time until it resolves (server pid known), sequential launches of fake-paper;
 * - write -> onLine round trip over one service (runner-echo `echo`): back-to-back (the next
 *   write right after the previous line arrived) and spaced (10 ms between writes);
 * - server print -> onLine one way (runner-echo `stamp`: performance.timeOrigin + now(), which
 *   agrees across processes), for one service and then for `services` (the READY-detection
 *   shape): spread over a second, and all at once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, type ProcessHandle } from '../../../../src/core/supervisor/process';
import { createPosixHandle } from '../../../../src/core/supervisor/process/posix-handle';
import { stateFiles } from '../../../../src/core/supervisor/process/state-files';

const SERVICES = Number(process.argv[2] ?? 200);
const LINES = Number(process.argv[3] ?? 1000);
const FIXTURES = join(import.meta.dir, '../../../fixtures');
const root = mkdtempSync(join(tmpdir(), 'svc-measure-'));
const handles: ProcessHandle[] = [];
const wallNow = () => performance.timeOrigin + performance.now();

function summary(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  console.log(`${label.padEnd(46)} n=${String(sorted.length).padStart(5)}  p50=${at(0.5).toFixed(2)} ms  p90=${at(0.9).toFixed(2)} ms  p99=${at(0.99).toFixed(2)} ms  max=${at(1).toFixed(2)} ms`);
}

function nextLine(handle: ProcessHandle, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const off = handle.onLine((line) => {
      if (!pattern.test(line)) return;
      off();
      resolve(line);
    });
  });
}

async function startEcho(name: string): Promise<ProcessHandle> {
  const handle = await launch({ name, workDir: join(root, name), argv: [process.execPath, join(FIXTURES, 'runner-echo.ts')] });
  handles.push(handle);
  await nextLine(handle, /^runner-echo ready$/);
  handle.write('echo warm'); // first stdin read sets up readline in the fixture: not ours to measure
  await nextLine(handle, /^warm$/);
  return handle;
}

/**
 * The controller's share of the all-at-once case, without 200 servers competing for the CPU:
 * one writer process appends a stamped line to each of SERVICES logs, 10 rounds, while real
 * handles tail them (their record names this live process, so they never see an end).
 */
async function controllerFanIn(): Promise<number[]> {
  const latencies: number[] = [];
  const tails: ProcessHandle[] = [];
  const dirs: string[] = [];
  for (let i = 0; i < SERVICES; i++) {
    const files = stateFiles(join(root, `fan-in-${i}`));
    mkdirSync(files.dir, { recursive: true });
    writeFileSync(files.log, '');
    dirs.push(files.dir);
    const record = { name: `fan-in-${i}`, marker: 'none', wrapperPid: process.pid, pid: process.pid, startedAt: new Date().toISOString(), logFile: files.log, fifo: files.fifo, exitFile: files.exitFile };
    const handle = createPosixHandle({ record, files, startOffset: 0 });
    handle.onLine((line) => latencies.push(wallNow() - Number(line.split(' ')[1])));
    tails.push(handle);
  }
  const writer = Bun.spawn([process.execPath, '-e', `
    const { appendFileSync } = require('node:fs');
    const dirs = ${JSON.stringify(dirs)};
    let round = 0;
    const timer = setInterval(() => {
      for (const dir of dirs) appendFileSync(dir + '/console.log', 'stamp ' + (performance.timeOrigin + performance.now()) + '\\n');
      if (++round === 10) clearInterval(timer);
    }, 100);
  `]);
  await writer.exited;
  const deadline = performance.now() + 5_000;
  while (latencies.length < SERVICES * 10 && performance.now() < deadline) await Bun.sleep(5);
  for (const handle of tails) handle.close();
  return latencies;
}

try {
  const launchTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    const handle = await launch({ name: `paper-${i}`, workDir: join(root, `paper-${i}`), argv: [process.execPath, join(FIXTURES, 'fake-paper.ts'), '--port', '0'] });
    launchTimes.push(performance.now() - started);
    handle.signal('SIGKILL');
    await handle.exited;
  }
  summary('launch() until the pid is known', launchTimes);

  const one = await startEcho('echo-one');
  const backToBack: number[] = [];
  for (let i = 0; i < LINES; i++) {
    const started = performance.now();
    const reply = nextLine(one, new RegExp(`^b${i}$`));
    one.write(`echo b${i}`);
    await reply;
    backToBack.push(performance.now() - started);
  }
  summary('write -> onLine round trip, back-to-back', backToBack);

  const spaced: number[] = [];
  const oneWay: number[] = [];
  for (let i = 0; i < LINES; i++) {
    await Bun.sleep(10);
    const started = performance.now();
    const reply = nextLine(one, new RegExp(`^stamp s${i} `));
    one.write(`stamp s${i}`);
    const line = await reply;
    oneWay.push(wallNow() - Number(line.split(' ')[2]));
    spaced.push(performance.now() - started);
  }
  summary('write -> onLine round trip, 10 ms apart', spaced);
  summary('server print -> onLine, one service', oneWay);

  const many: ProcessHandle[] = [];
  for (let i = 0; i < SERVICES; i += 20) {
    many.push(...(await Promise.all(Array.from({ length: Math.min(20, SERVICES - i) }, (_, j) => startEcho(`echo-${i + j}`)))));
  }
  // Every service prints once per round: at random moments over 1 s (how READY lines arrive
  // when services start), then all in the same instant (worst case: 200 servers wake at once
  // on the same CPUs as the controller, so this mostly measures CPU contention).
  const stamp = async (handle: ProcessHandle, id: string, delayMs: number): Promise<number> => {
    await Bun.sleep(delayMs);
    const reply = nextLine(handle, new RegExp(`^stamp ${id} `));
    handle.write(`stamp ${id}`);
    const line = await reply;
    return wallNow() - Number(line.split(' ')[2]);
  };
  const staggered: number[] = [];
  const together: number[] = [];
  for (let round = 0; round < 10; round++) {
    staggered.push(...(await Promise.all(many.map((handle, i) => stamp(handle, `t${round}-${i}`, Math.random() * 1000)))));
  }
  for (let round = 0; round < 10; round++) {
    await Bun.sleep(50);
    together.push(...(await Promise.all(many.map((handle, i) => stamp(handle, `a${round}-${i}`, 0)))));
  }
  summary(`server print -> onLine, ${SERVICES} services, over 1 s`, staggered);
  summary(`server print -> onLine, ${SERVICES} services at once`, together);
  for (const handle of many) handle.signal('SIGKILL');
  await Promise.all(many.map((handle) => handle.exited));
  summary(`controller only: 1 writer -> ${SERVICES} logs at once`, await controllerFanIn());
} finally {
  for (const handle of handles) handle.signal('SIGKILL');
  await Promise.all(handles.map((handle) => handle.exited));
  rmSync(root, { recursive: true, force: true });
}
