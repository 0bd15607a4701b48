/**
 * What isolation costs a start. In one run, for each mode the controller can be in as root:
 *   none        the plain supervisor (the peer every other mode is compared with);
 *   uid         setpriv to the service's uid, its folder chowned first;
 *   uid+bwrap   the same inside the bubblewrap sandbox (what `auto` picks as root);
 *   bwrap       the sandbox alone (the unprivileged controller's mode; measured here as root,
 *               bwrap runs its own user namespace either way);
 * the launch (vacate, folder hand-over, spawn, the pid known) and the first line of output,
 * median and p95 of BENCH_LAUNCHES starts of a `/bin/sh` server that prints one line and
 * waits on stdin; then the folder hand-over alone on a 10,000-file world, the first time
 * (everything chowned) and again (nothing left to change: the walk only).
 *
 *   bun run bench isolation
 *   BENCH_LAUNCHES=40   starts per mode
 *   BENCH_FILES=10000   files in the world of the hand-over run
 * Needs root and bwrap.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IsolatedLauncher } from '../../src/core/isolation/launcher';
import { giveFolderTo } from '../../src/core/isolation/owner';
import { discoverSandboxLayout, findSystemProgram } from '../../src/core/isolation/sandbox';
import { UidMap } from '../../src/core/isolation/uid-map';
import type { Isolation } from '../../src/core/isolation/resolve';
import { benchTimeoutMs, envNumber, fixed, formatTable, makeTempDir, median, percentile, runBench } from './lib';

const LAUNCHES = envNumber('BENCH_LAUNCHES', 40);
const FILES = envNumber('BENCH_FILES', 10_000);

async function measure(launcher: IsolatedLauncher, workDir: string): Promise<{ launch: number[]; firstLine: number[] }> {
  const launch: number[] = [];
  const firstLine: number[] = [];
  for (let i = 0; i < LAUNCHES; i++) {
    const started = performance.now();
    await launcher.vacate('Bench-1');
    const handle = await launcher.launch({ name: 'Bench-1', workDir, argv: ['/bin/sh', '-c', 'echo up; read l'], env: { PATH: '/usr/bin:/bin' } });
    const launched = performance.now();
    const up = await new Promise<boolean>((resolve) => {
      handle.onLine((line) => line === 'up' && resolve(true));
      void handle.exited.then(() => resolve(false));
    });
    if (!up) throw new Error(`the server ended without its line: ${handle.lastLines(5).join(' | ')}`);
    launch.push(launched - started);
    firstLine.push(performance.now() - started);
    handle.signal('SIGKILL');
    await handle.exited;
    handle.close();
  }
  return { launch, firstLine };
}

runBench('isolation', benchTimeoutMs(300), async () => {
  if (process.getuid?.() !== 0) throw new Error('needs root (it measures the uid modes)');
  const found = discoverSandboxLayout();
  if (!('layout' in found)) throw new Error(found.missing);
  const setpriv = findSystemProgram('setpriv');
  if (!setpriv) throw new Error('setpriv is not installed');

  const rows: string[][] = [];
  let peer = { launch: 0, firstLine: 0 };
  for (const [label, isolation] of [
    ['none', { uid: false, bwrap: false }],
    ['uid', { uid: true, bwrap: false }],
    ['uid+bwrap', { uid: true, bwrap: true }],
    ['bwrap', { uid: false, bwrap: true }],
  ] as const) {
    const dir = makeTempDir('svc-bench-isolation-', '/var/tmp');
    chmodSync(dir, 0o711); // a service uid must reach its folder (the controller sets this at start)
    mkdirSync(join(dir, 'data'));
    const workDir = join(dir, 'services', 'static', 'Bench-1');
    mkdirSync(workDir, { recursive: true });
    const launcher = new IsolatedLauncher({
      isolation: { setting: 'auto', reason: 'bench', ...isolation } satisfies Isolation,
      runDir: join(dir, 'data', 'run'),
      uids: isolation.uid ? new UidMap(join(dir, 'data', 'uids.json'), 1_900_000_000, dir) : undefined,
      setpriv,
      sandbox: isolation.bwrap ? found.layout : undefined,
      forbidden: [join(dir, 'data')],
    });
    await measure(launcher, workDir); // warm-up: page cache, the FIFO pool
    const { launch, firstLine } = await measure(launcher, workDir);
    const m = { launch: median(launch), firstLine: median(firstLine) };
    if (label === 'none') peer = m;
    rows.push([label, fixed(m.launch, 2), fixed(percentile(launch, 95), 2), fixed(m.firstLine, 2), fixed(percentile(firstLine, 95), 2), label === 'none' ? '1.00' : fixed(m.firstLine / peer.firstLine, 2)]);
    await launcher.idle();
  }
  console.log(`\nA start per mode (${LAUNCHES} each, ms)\n`);
  console.log(formatTable(['mode', 'launch median', 'launch p95', 'first line median', 'first line p95', 'first line vs none'], rows));

  // The folder hand-over alone on a world of FILES files in 100 folders.
  const dir = makeTempDir('svc-bench-isolation-', '/var/tmp');
  const world = join(dir, 'world');
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(world, `region-${d}`), { recursive: true });
    for (let f = 0; f < FILES / 100; f++) writeFileSync(join(world, `region-${d}`, `r.${f}.mca`), 'x');
  }
  const first = performance.now();
  await giveFolderTo(world, 1_900_000_001);
  const firstMs = performance.now() - first;
  const again = performance.now();
  await giveFolderTo(world, 1_900_000_001);
  const againMs = performance.now() - again;
  console.log(`\nThe folder hand-over (find -P -xdev ... -exec chown -h), ${FILES} files (ms)\n`);
  console.log(formatTable(['run', 'ms', 'per 1000 files'], [
    ['first (all chowned)', fixed(firstMs, 1), fixed((firstMs / FILES) * 1000, 2)],
    ['again (walk only)', fixed(againMs, 1), fixed((againMs / FILES) * 1000, 2)],
  ]));
});
