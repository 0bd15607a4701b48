/**
 * Modpack upload benchmark: a 1 GiB server-pack zip (stored entries of random bytes: jars do not
 * compress) sent to the controller binary as a chunked upload (4 MiB chunks, one after another,
 * each POST /api/modpacks/upload/chunk), then finalized into a group (the import unpacks it
 * into templates/<group> and writes the group file). Measured in the same run, phases
 * interleaved run by run:
 *
 *   - disk write (the peer of the goal): the same bytes read and written 4 MiB at a time by
 *     this process, no fsync (the upload does not fsync either);
 *   - disk write + fsync, for scale (what the disk takes durably);
 *   - the same chunks POSTed to a bare Bun.serve that only Bun.writes each body to a file: what
 *     the platform does without svc (route, auth, upload bookkeeping).
 *
 * Dirty pages are flushed (`sync`, untimed) before every phase. The controller's VmRSS is
 * sampled every 10 ms from before the first chunk to the group's creation.
 *
 *   Goals: upload throughput ≥ 0.7 × the disk write; peak RSS growth ≤ 32 MiB.
 *
 *   bun run bench modpack-upload
 *   BENCH_PACK_MIB=1024 BENCH_RUNS=5 BENCH_ENFORCE=1 (exit 1 when a goal is missed)
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeStoredZip } from '../fixtures/modpack-zip';
import { backgroundLoad, benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, freePort, loadLine, makeTempDir, median, printSetup, readRssKiB, resolveSvcBinary, runBench } from './lib';

const MIB = 1024 * 1024;
const PACK_MIB = envNumber('BENCH_PACK_MIB', 1024);
const RUNS = envNumber('BENCH_RUNS', 5);
const CHUNK = 4 * MIB;
const ENTRY_MIB = 32;
const TOKEN = 'bench-master-token-0123456789abcdef';
const GOAL_RATIO = 0.7;
const GOAL_RSS_GROWTH_MIB = 32;
const RSS_SAMPLE_MS = 10;
const OFFLINE = 'http://127.0.0.1:1';

interface Run {
  diskMBps: number;
  durableMBps: number;
  bareMBps: number;
  uploadMBps: number;
  importMBps: number;
  /** The import's two steps, from the controller's log line. */
  assembleMs: number;
  installMs: number;
  endToEndMBps: number;
  rssGrowthMiB: number;
  baselineRssMiB: number;
}

/**
 * Flushes dirty pages, so each measured phase starts from the same state: on a machine whose
 * disk is slower than its page cache, a phase that follows a large write would otherwise pay
 * for the previous one's writeback.
 */
function settleDisk(): void {
  Bun.spawnSync(['sync']);
}

/** The peer: the same bytes read and written 4 MiB at a time, as the upload moves them; `durable` adds an fsync. */
function diskWrite(src: string, dest: string, durable = false): number {
  settleDisk();
  const buffer = Buffer.alloc(CHUNK);
  const input = openSync(src, 'r');
  const output = openSync(dest, 'w');
  const started = performance.now();
  try {
    for (let at = 0; ; ) {
      const n = readSync(input, buffer, 0, CHUNK, at);
      if (n === 0) break;
      for (let done = 0; done < n; ) done += writeSync(output, buffer, done, n - done, at + done);
      at += n;
    }
    if (durable) fsyncSync(output);
  } finally {
    closeSync(input);
    closeSync(output);
  }
  const ms = performance.now() - started;
  rmSync(dest, { force: true });
  return ms;
}

const authorized = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { authorization: `Bearer ${TOKEN}`, ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}) },
});

/** POSTs `path` in CHUNK slices, one after another, to `urlOf(index)`; returns the milliseconds taken. */
async function sendChunks(path: string, urlOf: (index: number) => string): Promise<number> {
  const size = statSync(path).size;
  const file = Bun.file(path);
  const started = performance.now();
  for (let index = 0, at = 0; at < size; index++, at += CHUNK) {
    const res = await fetch(urlOf(index), authorized({ method: 'POST', body: file.slice(at, Math.min(size, at + CHUNK)) }));
    if (res.status !== 200) throw new Error(`chunk ${index}: ${res.status} ${await res.text()}`);
  }
  return performance.now() - started;
}

/** Chunks `path` into a new upload and finalizes it as group `group`; returns the two durations. */
async function uploadAndImport(url: string, path: string, group: string): Promise<{ uploadMs: number; importMs: number }> {
  const size = statSync(path).size;
  settleDisk();
  const started = performance.now();
  const init = (await (await fetch(`${url}/api/modpacks/upload/init?target=group&size=${size}&filename=pack.zip`, authorized({ method: 'POST' }))).json()) as { uploadId: string };
  await sendChunks(path, (index) => `${url}/api/modpacks/upload/chunk?uploadId=${init.uploadId}&index=${index}`);
  const uploadMs = performance.now() - started;
  settleDisk();
  const finalizing = performance.now();
  const res = await fetch(`${url}/api/modpacks/upload/finalize`, authorized({ method: 'POST', body: JSON.stringify({ uploadId: init.uploadId, groupName: group, minInstances: 0 }) }));
  const body = (await res.json()) as { poll?: string; message?: string };
  if (res.status === 202) {
    for (;;) {
      await Bun.sleep(50);
      const job = (await (await fetch(url + body.poll!, authorized())).json()) as { state: string; error: { message: string } | null };
      if (job.state === 'failed') throw new Error(`import failed: ${job.error?.message}`);
      if (job.state === 'succeeded') break;
    }
  } else if (res.status !== 201) {
    throw new Error(`finalize: ${res.status} ${body.message}`);
  }
  return { uploadMs, importMs: performance.now() - finalizing };
}

/** A bare Bun.serve (this Bun) that writes each request body to its own file, as the chunk route does. */
async function startBareReceiver(dir: string): Promise<{ child: Child; url: string }> {
  mkdirSync(dir, { recursive: true });
  const port = freePort();
  const code = `let n = 0; Bun.serve({ hostname: '127.0.0.1', port: ${port}, maxRequestBodySize: 1 << 30, async fetch(req) { await Bun.write(${JSON.stringify(dir)} + '/' + (n++) + '.part', req); return Response.json({ success: true }); } }); console.log('bare receiver ready');`;
  const child = new Child('bare receiver', [process.execPath, '-e', code], { env: childEnv() });
  await child.waitForLine((l) => (l.includes('ready') ? true : undefined), 10_000, 'bare receiver ready');
  return { child, url: `http://127.0.0.1:${port}` };
}

runBench('modpack-upload', benchTimeoutMs(900), async () => {
  const svc = await resolveSvcBinary();
  const scratch = makeTempDir('svc-bench-modpack-');
  const entries = Math.max(1, Math.round(PACK_MIB / ENTRY_MIB));
  const zip = join(scratch, 'server-pack.zip');
  const t0 = performance.now();
  const size = writeStoredZip(zip, [
    ...Array.from({ length: entries }, (_, i) => ({ name: `mods/mod-${i}.jar`, size: ENTRY_MIB * MIB })),
    { name: 'libraries/net/minecraftforge/forge/1.20.1-47.2.0/forge-1.20.1-47.2.0.jar', size: 4096 },
  ]);
  const warm = join(scratch, 'warm.zip');
  writeStoredZip(warm, [
    { name: 'mods/warm.jar', size: 16 * MIB },
    { name: 'libraries/net/minecraftforge/forge/1.20.1-47.2.0/x.jar', size: 16 },
  ]);
  printSetup(`modpack-upload: ${fixed(size / MIB, 0)} MiB server pack, ${CHUNK / MIB} MiB chunks, ${RUNS} run(s)`, svc, [
    `pack       : ${entries} stored entries of ${ENTRY_MIB} MiB random bytes, written in ${fixed((performance.now() - t0) / 1000, 1)} s to ${scratch}`,
    loadLine('load', await backgroundLoad()),
  ]);

  const dir = makeTempDir('svc-bench-modpack-ctl-', scratch);
  const port = freePort();
  const offline = ['papermc_url', 'purpur_url', 'pufferfish_url', 'leaf_url', 'fabric_url', 'forge_url', 'forge_promotions_url', 'neoforge_url', 'mojang_url', 'modrinth_url', 'hangar_url', 'curseforge_url'];
  // rate_limit = 0: 256 chunk requests in seconds are far past the default 120 a minute per client.
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${port}\ntoken = "${TOKEN}"\nrate_limit = 0\nservice_rate_limit = 0\n[software]\n${offline.map((k) => `${k} = "${OFFLINE}"`).join('\n')}\n`);
  const controller = new Child('controller', [svc.path, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }) });
  await controller.waitForLine((l) => (l.includes('API listening') ? true : undefined), 20_000, 'API listening');
  const url = `http://127.0.0.1:${port}`;
  const bareDir = join(scratch, 'bare');
  const bare = await startBareReceiver(bareDir);

  // Warm-up: first requests, compiled paths and allocator pools do not count as growth; the
  // first big write after making the pack is slow on some machines and is not counted either.
  await uploadAndImport(url, warm, 'Warm');
  await sendChunks(warm, () => `${bare.url}/`);
  diskWrite(zip, join(scratch, 'copy.bin'));

  const runs: Run[] = [];
  const mb = size / 1e6;
  for (let i = 0; i < RUNS; i++) {
    const diskMs = diskWrite(zip, join(scratch, 'copy.bin'));
    const durableMs = diskWrite(zip, join(scratch, 'copy.bin'), true);
    settleDisk();
    const bareMs = await sendChunks(zip, () => `${bare.url}/`);
    rmSync(bareDir, { recursive: true, force: true });
    mkdirSync(bareDir);
    settleDisk();
    await Bun.sleep(300);
    const baseline = readRssKiB(controller.pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, readRssKiB(controller.pid));
      } catch {
        /* the process is gone: assertRunning below says so */
      }
    }, RSS_SAMPLE_MS);
    let timing: { uploadMs: number; importMs: number };
    try {
      timing = await uploadAndImport(url, zip, `Pack${i}`);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, readRssKiB(controller.pid));
    controller.assertRunning('after the upload');
    const steps = await controller.waitForLine(
      (line) => {
        if (!line.includes(`group Pack${i} created`)) return undefined;
        const entry = JSON.parse(line) as { assembleMs?: number; installMs?: number };
        return { assembleMs: entry.assembleMs ?? NaN, installMs: entry.installMs ?? NaN };
      },
      5000,
      `the log line of group Pack${i}`,
    );
    const files = readdirSync(join(dir, 'templates', `Pack${i}`, 'mods'));
    if (files.length !== entries) throw new Error(`templates/Pack${i}/mods has ${files.length} files, expected ${entries}`);
    runs.push({
      diskMBps: mb / (diskMs / 1000),
      durableMBps: mb / (durableMs / 1000),
      bareMBps: mb / (bareMs / 1000),
      uploadMBps: mb / (timing.uploadMs / 1000),
      importMBps: mb / (timing.importMs / 1000),
      ...steps,
      endToEndMBps: mb / ((timing.uploadMs + timing.importMs) / 1000),
      rssGrowthMiB: (peak - baseline) / 1024,
      baselineRssMiB: baseline / 1024,
    });
    // Keep the disk from filling over the runs.
    rmSync(join(dir, 'templates', `Pack${i}`), { recursive: true, force: true });
  }
  await bare.child.stop();
  await controller.stop();

  const pick = (key: keyof Run) => median(runs.map((r) => r[key]));
  const disk = pick('diskMBps');
  const durable = pick('durableMBps');
  const upload = pick('uploadMBps');
  const bareMBps = pick('bareMBps');
  const rss = Math.max(...runs.map((r) => r.rssGrowthMiB));
  console.log(
    formatTable(
      ['figure (median of runs)', 'svc', 'peer / limit', 'ratio', 'goal'],
      [
        ['chunked upload, MB/s', fixed(upload, 0), `disk write ${fixed(disk, 0)}`, fixed(upload / disk, 2), `≥ ${GOAL_RATIO}`],
        ['chunked upload, MB/s', fixed(upload, 0), `bare Bun.serve ${fixed(bareMBps, 0)}`, fixed(upload / bareMBps, 2), '-'],
        ['import (unzip to template + group file), MB/s', fixed(pick('importMBps'), 0), `disk write ${fixed(disk, 0)}`, fixed(pick('importMBps') / disk, 2), '-'],
        ['import, MB/s', fixed(pick('importMBps'), 0), `write + fsync ${fixed(durable, 0)}`, fixed(pick('importMBps') / durable, 2), '-'],
        ['upload + import end to end, MB/s', fixed(pick('endToEndMBps'), 0), `disk write ${fixed(disk, 0)}`, fixed(pick('endToEndMBps') / disk, 2), '-'],
        ['controller peak RSS growth, MiB (max of runs)', fixed(rss, 1), `limit ${GOAL_RSS_GROWTH_MIB}`, fixed(rss / GOAL_RSS_GROWTH_MIB, 2), `≤ ${GOAL_RSS_GROWTH_MIB}`],
        ['controller RSS before the upload, MiB', fixed(pick('baselineRssMiB'), 1), '-', '-', '-'],
      ],
    ),
  );
  console.log('\nper run (MB/s): disk / disk+fsync / bare Bun / svc upload / svc import (unpack ms + install ms), RSS growth');
  for (const r of runs) {
    console.log(`  ${[r.diskMBps, r.durableMBps, r.bareMBps, r.uploadMBps, r.importMBps].map((v) => fixed(v, 0)).join(' / ')} (${fixed(r.assembleMs, 0)} + ${fixed(r.installMs, 0)}), +${fixed(r.rssGrowthMiB, 1)} MiB`);
  }
  console.log(
    'The import copies every byte once more (chunk files → template): its time is the unpack (assembleMs in the\n' +
      "controller's log line); moving the template in and writing the group file take milliseconds (installMs).",
  );
  if (process.env.BENCH_ENFORCE === '1') {
    if (upload < GOAL_RATIO * disk) throw new Error(`upload throughput ${fixed(upload, 0)} MB/s is below ${GOAL_RATIO} × the disk write (${fixed(disk, 0)} MB/s)`);
    if (rss > GOAL_RSS_GROWTH_MIB) throw new Error(`RSS growth ${fixed(rss, 1)} MiB is above ${GOAL_RSS_GROWTH_MIB} MiB`);
  }
});
