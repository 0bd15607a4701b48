/**
 * Resource pack benchmark: the controller binary receiving and serving LOCAL packs. Each figure
 * is the median of BENCH_RUNS runs, its peer measured in the same run, phases alternated run by
 * run so drifts of the machine hit both alike.
 *
 *   (a) upload: a 250 MiB zip (one stored entry of random bytes: textures and sounds do not
 *       compress) POSTed to /api/resourcepacks/upload as a streamed file body with its
 *       Content-Length; the controller writes it to a part file, checks it is a zip, hashes it
 *       (SHA-1), fsyncs it and moves it into place before it answers 201. Timed from the first
 *       byte sent to the answer. Peer: what that takes without svc, `sha1sum <file>` then
 *       `dd if=<file> of=<new file on the controller's disk> bs=1M conv=fsync`. Dirty pages are
 *       flushed (`sync`, untimed) before every phase. Goals: peer time / upload time ≥ 0.7; the
 *       controller's peak VmRSS growth (sampled every 20 ms) ≤ 16 MiB.
 *   (b) download: 100 parallel GETs of a 50 MiB LOCAL pack from
 *       /api/resourcepacks/files/<uuid>.zip (no token, as Minecraft clients fetch it), every body
 *       read to its end; aggregate MiB/s. Peer: the same file served by a bare Bun.serve
 *       (`new Response(Bun.file(path))`) in a child process of the same Bun. Goal: ≥ 0.8 × bare.
 *
 *   bun run bench resourcepacks
 *   BENCH_RUNS=3 BENCH_PACK_MIB=250 BENCH_DOWNLOAD_MIB=50 BENCH_DOWNLOADS=100 BENCH_ENFORCE=1 (exit 1 when a goal is missed)
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeStoredZip } from '../fixtures/modpack-zip';
import { backgroundLoad, benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, listeningPort, loadLine, makeTempDir, median, printSetup, readRssKiB, resolveSvcBinary, runBench } from './lib';
import { measureUpload, startSvc, type RunningController } from './upload.bench';

const MIB = 1024 * 1024;
const RUNS = envNumber('BENCH_RUNS', 3);
const PACK_MIB = envNumber('BENCH_PACK_MIB', 250);
const DOWNLOAD_MIB = envNumber('BENCH_DOWNLOAD_MIB', 50);
const DOWNLOADS = envNumber('BENCH_DOWNLOADS', 100);
const GOAL_UPLOAD_RATIO = 0.7;
const GOAL_RSS_GROWTH_MIB = 16;
const GOAL_DOWNLOAD_RATIO = 0.8;
const RSS_SAMPLE_MS = 20;
/** Room above the pack for the controller's upload limit. */
const MAX_UPLOAD_BYTES = (PACK_MIB + 64) * MIB;
const ENTRY = 'assets/minecraft/textures/bench.bin';
/** A zip of one stored entry: local header (30 + name), central record (46 + name), end record (22). */
const ZIP_OVERHEAD = 30 + 46 + 2 * ENTRY.length + 22;

interface Row {
  figure: string;
  svc: string;
  peer: string;
  ratio: string;
  goal: string;
  met: boolean;
}

interface PackView {
  id: number;
  packUuid: string;
  url: string;
  sha1Hash: string;
  fileSize: number;
}

/** A zip of exactly `mib` MiB: one stored entry of random bytes. Returns its path. */
function makePack(dir: string, name: string, mib: number): string {
  const path = join(dir, name);
  const size = writeStoredZip(path, [{ name: ENTRY, size: mib * MIB - ZIP_OVERHEAD }]);
  if (size !== mib * MIB) throw new Error(`${name}: ${size} bytes, meant ${mib * MIB}`);
  return path;
}

/** Flushes dirty pages, so a timed phase does not pay for the previous one's writeback. */
function settleDisk(): void {
  Bun.spawnSync(['sync']);
}

/** Milliseconds a command takes to run to completion; throws unless it exits 0. Returns its stdout too. */
async function timed(cmd: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: childEnv() });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${cmd.join(' ')} exited ${code}: ${stderr.trim()}`);
  return { ms, stdout };
}

/** The peer of an upload: hash the file, then write its bytes durably to a new file on `dest`'s disk. */
async function peerUpload(source: string, dest: string): Promise<{ ms: number; hashMs: number; copyMs: number; sha1: string }> {
  settleDisk();
  const hash = await timed(['sha1sum', source]);
  const copy = await timed(['dd', `if=${source}`, `of=${dest}`, 'bs=1M', 'conv=fsync', 'status=none']);
  rmSync(dest, { force: true });
  return { ms: hash.ms + copy.ms, hashMs: hash.ms, copyMs: copy.ms, sha1: hash.stdout.split(/\s/)[0] ?? '' };
}

const auth = (controller: RunningController) => ({ authorization: `Bearer ${controller.token}` });

/** POSTs the file as the dashboard does (raw octet-stream body, metadata in the query); returns the stored pack. */
async function upload(controller: RunningController, path: string, name: string): Promise<PackView> {
  const size = statSync(path).size;
  const res = await fetch(`${controller.url}/api/resourcepacks/upload?name=${encodeURIComponent(name)}&force=false`, {
    method: 'POST',
    headers: { ...auth(controller), 'content-type': 'application/octet-stream', 'content-length': String(size) },
    body: Bun.file(path),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`upload of ${name}: ${res.status} ${text.slice(0, 300)}`);
  const pack = JSON.parse(text) as PackView;
  if (pack.fileSize !== size) throw new Error(`upload of ${name}: stored ${pack.fileSize} bytes, sent ${size}`);
  return pack;
}

async function deletePack(controller: RunningController, id: number): Promise<void> {
  const res = await fetch(`${controller.url}/api/resourcepacks/${id}`, { method: 'DELETE', headers: auth(controller) });
  if (res.status !== 200) throw new Error(`delete of pack ${id}: ${res.status} ${await res.text()}`);
}

/** One GET read to its end without keeping the bytes; returns the byte count (throws unless 200). */
async function drain(url: string, hasher?: Bun.CryptoHasher): Promise<number> {
  const res = await fetch(url);
  if (res.status !== 200 || !res.body) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    hasher?.update(chunk);
  }
  return bytes;
}

/** `count` parallel downloads of `url`, each checked to be `size` bytes; returns aggregate MiB/s. */
async function parallelDownloads(url: string, count: number, size: number): Promise<number> {
  const started = performance.now();
  const sizes = await Promise.all(Array.from({ length: count }, () => drain(url)));
  const seconds = (performance.now() - started) / 1000;
  const short = sizes.filter((n) => n !== size);
  if (short.length > 0) throw new Error(`${short.length} of ${count} downloads of ${url} had the wrong size (e.g. ${short[0]} of ${size} bytes)`);
  return (count * size) / MIB / seconds;
}

/** Runs `work` while sampling the controller's VmRSS; returns its result and the peak growth in MiB. */
async function withRssPeak<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; growthMiB: number }> {
  const baseline = readRssKiB(pid);
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, readRssKiB(pid));
  }, RSS_SAMPLE_MS);
  try {
    const result = await work();
    return { result, growthMiB: (Math.max(peak, readRssKiB(pid)) - baseline) / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

/** The peer server: a bare Bun.serve of this Bun that answers every request with the file. */
async function startBareFileServer(path: string): Promise<{ child: Child; url: string }> {
  const code = [
    `const file = ${JSON.stringify(path)};`,
    `const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(Bun.file(file), { headers: { 'content-type': 'application/zip' } }) });`,
    `console.log(JSON.stringify({ msg: 'bare listening', port: server.port }));`,
  ].join('\n');
  const child = new Child('bare file server', [process.execPath, '-e', code], { env: childEnv() });
  const port = await child.waitForLine((line) => listeningPort(line, 'bare listening'), 10_000, 'bare listening');
  return { child, url: `http://127.0.0.1:${port}` };
}

// ---------------------------------------------------------------------------------------------
// Parts

/** (a) a PACK_MIB upload against sha1sum + a durable copy of the same bytes. */
async function uploadPart(controller: RunningController, scratch: string): Promise<Row[]> {
  const source = makePack(scratch, 'upload.zip', PACK_MIB);
  const peerDest = join(controller.dir, 'data', 'peer-copy.zip');

  // Warm-up (page cache of the source, JIT, first connection), not counted.
  await deletePack(controller, (await upload(controller, source, 'warm-up')).id);
  const expectedSha1 = (await peerUpload(source, peerDest)).sha1;

  const uploads: { seconds: number; cpuSeconds: number; rssGrowthKiB: number }[] = [];
  const peers: number[] = [];
  let peerSplit = '';
  for (let run = 0; run < RUNS; run++) {
    const measureSvc = async () => {
      settleDisk();
      let pack: PackView | undefined;
      uploads.push(
        await measureUpload(controller.child.pid, async () => {
          pack = await upload(controller, source, `bench-${run}`);
        }),
      );
      if (pack!.sha1Hash !== expectedSha1) throw new Error(`the controller hashed the pack as ${pack!.sha1Hash}; sha1sum says ${expectedSha1}`);
      await deletePack(controller, pack!.id);
      controller.child.assertRunning('during the uploads');
    };
    const measurePeer = async () => {
      const peer = await peerUpload(source, peerDest);
      if (peer.sha1 !== expectedSha1) throw new Error(`sha1sum disagrees with itself: ${peer.sha1} vs ${expectedSha1}`);
      peers.push(peer.ms / 1000);
      peerSplit = `sha1sum ${fixed(peer.hashMs / 1000, 2)} s + dd ${fixed(peer.copyMs / 1000, 2)} s`;
    };
    if (run % 2 === 0) {
      await measureSvc();
      await measurePeer();
    } else {
      await measurePeer();
      await measureSvc();
    }
    const u = uploads.at(-1)!;
    console.log(`  upload run ${run + 1}: svc ${fixed(u.seconds, 2)} s (${fixed(PACK_MIB / u.seconds)} MiB/s, CPU ${fixed(u.cpuSeconds * 1000, 0)} ms, RSS +${fixed(u.rssGrowthKiB / 1024)} MiB); peer ${fixed(peers.at(-1)!, 2)} s (${peerSplit})`);
  }
  rmSync(source, { force: true });

  const svcSeconds = median(uploads.map((u) => u.seconds));
  const peerSeconds = median(peers);
  const ratio = peerSeconds / svcSeconds;
  const rssGrowthMiB = median(uploads.map((u) => u.rssGrowthKiB)) / 1024;
  const worstRssMiB = Math.max(...uploads.map((u) => u.rssGrowthKiB)) / 1024;
  return [
    {
      figure: `upload ${PACK_MIB} MiB, POST /api/resourcepacks/upload (s)`,
      svc: `${fixed(svcSeconds, 2)} (${fixed(PACK_MIB / svcSeconds)} MiB/s)`,
      peer: `${fixed(peerSeconds, 2)} (sha1sum + dd conv=fsync)`,
      ratio: fixed(ratio, 2),
      goal: `≥ ${GOAL_UPLOAD_RATIO}`,
      met: ratio >= GOAL_UPLOAD_RATIO,
    },
    {
      figure: '  controller CPU per upload (ms, user + system)',
      svc: fixed(median(uploads.map((u) => u.cpuSeconds)) * 1000, 0),
      peer: '-',
      ratio: '-',
      goal: '-',
      met: true,
    },
    {
      figure: 'controller peak RSS growth during the upload (MiB)',
      svc: `${fixed(rssGrowthMiB)} (worst ${fixed(worstRssMiB)})`,
      peer: `${GOAL_RSS_GROWTH_MIB} (limit)`,
      ratio: fixed(rssGrowthMiB / GOAL_RSS_GROWTH_MIB, 2),
      goal: '≤ 1.00',
      met: rssGrowthMiB <= GOAL_RSS_GROWTH_MIB,
    },
  ];
}

/** (b) DOWNLOADS parallel downloads of a DOWNLOAD_MIB pack against a bare Bun.serve of the same file. */
async function downloadPart(controller: RunningController, scratch: string): Promise<Row[]> {
  const source = makePack(scratch, 'download.zip', DOWNLOAD_MIB);
  const pack = await upload(controller, source, 'download bench');
  rmSync(source, { force: true });
  const size = pack.fileSize;
  const file = join(controller.dir, 'data', 'resourcepacks', `${pack.packUuid}.zip`);
  const svcUrl = controller.url + pack.url;
  const bare = await startBareFileServer(file);
  try {
    const bareUrl = `${bare.url}/${pack.packUuid}.zip`;
    // Warm-up and check: both serve the pack's bytes (SHA-1 as a client checks it).
    for (const url of [svcUrl, bareUrl]) {
      const hasher = new Bun.CryptoHasher('sha1');
      await drain(url, hasher);
      if (hasher.digest('hex') !== pack.sha1Hash) throw new Error(`${url} served bytes whose SHA-1 is not the pack's`);
      await parallelDownloads(url, Math.min(10, DOWNLOADS), size);
    }

    const svcRates: number[] = [];
    const bareRates: number[] = [];
    const rssGrowth: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const measureSvc = async () => {
        const { result, growthMiB } = await withRssPeak(controller.child.pid, () => parallelDownloads(svcUrl, DOWNLOADS, size));
        svcRates.push(result);
        rssGrowth.push(growthMiB);
        controller.child.assertRunning('during the downloads');
      };
      const measureBare = async () => {
        bareRates.push(await parallelDownloads(bareUrl, DOWNLOADS, size));
        bare.child.assertRunning('during the downloads');
      };
      if (run % 2 === 0) {
        await measureSvc();
        await measureBare();
      } else {
        await measureBare();
        await measureSvc();
      }
      console.log(`  download run ${run + 1}: svc ${fixed(svcRates.at(-1)!, 0)} MiB/s (RSS +${fixed(rssGrowth.at(-1)!)} MiB); bare ${fixed(bareRates.at(-1)!, 0)} MiB/s`);
    }
    const svcRate = median(svcRates);
    const bareRate = median(bareRates);
    const ratio = svcRate / bareRate;
    return [
      {
        figure: `${DOWNLOADS} parallel downloads of a ${DOWNLOAD_MIB} MiB pack (MiB/s, all together)`,
        svc: fixed(svcRate, 0),
        peer: `${fixed(bareRate, 0)} (bare Bun.serve, Bun.file)`,
        ratio: fixed(ratio, 2),
        goal: `≥ ${GOAL_DOWNLOAD_RATIO}`,
        met: ratio >= GOAL_DOWNLOAD_RATIO,
      },
      {
        figure: '  controller peak RSS growth during the downloads (MiB)',
        svc: fixed(median(rssGrowth)),
        peer: '-',
        ratio: '-',
        goal: '-',
        met: true,
      },
    ];
  } finally {
    await bare.child.stop();
  }
}

runBench('resourcepacks', benchTimeoutMs(900), async () => {
  const svc = await resolveSvcBinary();
  printSetup(`resourcepacks: upload and parallel downloads of LOCAL packs; median of ${RUNS} runs`, svc, [
    `upload ${PACK_MIB} MiB; ${DOWNLOADS} parallel downloads of ${DOWNLOAD_MIB} MiB; RSS sampled every ${RSS_SAMPLE_MS} ms`,
    loadLine('load before', await backgroundLoad()),
  ]);
  const controller = await startSvc(svc, `\n[resourcepacks]\nmax_upload_bytes = ${MAX_UPLOAD_BYTES}\n`);
  // The sources live on the controller's disk: the peers read and write where the controller does.
  const scratch = makeTempDir('svc-bench-rp-source-');
  const rows: Row[] = [];
  try {
    rows.push(...(await uploadPart(controller, scratch)));
    rows.push(...(await downloadPart(controller, scratch)));
  } finally {
    await controller.child.stop();
  }
  console.log('');
  console.log(formatTable(['figure', 'svc', 'peer / limit', 'ratio', 'goal', 'met'], rows.map((r) => [r.figure, r.svc, r.peer, r.ratio, r.goal, r.met ? 'yes' : 'NO'])));
  console.log(loadLine('load after ', await backgroundLoad()));
  if (process.env.BENCH_ENFORCE === '1' && rows.some((r) => !r.met)) throw new Error('a resource pack goal was missed (BENCH_ENFORCE=1)');
});
