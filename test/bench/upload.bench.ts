/**
 * Upload benchmark: the controller binary receives large uploads over HTTP and writes them to
 * disk. Each figure is the median of BENCH_RUNS runs, with its peer measured in the same run.
 *
 *   Part 1, files API: a 100 MiB multipart file through POST /api/files/templates/<dir>
 *     (streamed to a temp file, fsynced, renamed). Peer: Bun.write of the same 100 MiB buffer to
 *     the same file system. Goals: throughput ≥ 0.7 × the plain disk write; the controller's
 *     peak RSS growth during the upload ≤ 32 MiB (VmRSS sampled every 20 ms). Shown too: the
 *     ratio to Bun.write + fsync, the like-for-like peer (the upload is durable when it answers;
 *     a plain Bun.write leaves its bytes in the page cache).
 *
 * Further parts (a chunked modpack upload, for one) add a `Part` to PARTS: measureUpload()
 * times any `send` and samples the controller's memory while it runs.
 *
 *   bun run bench upload
 *   BENCH_RUNS=5 BENCH_UPLOAD_MIB=100 BENCH_ENFORCE=1 (exit 1 when a goal is missed)
 */
import { closeSync, fsyncSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { multipartBody } from '../../src/cluster/state-sync/multipart-body';
import { backgroundLoad, benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, freePort, loadLine, makeTempDir, median, printSetup, readCpuSeconds, readRssKiB, resolveSvcBinary, runBench, type SvcBinary } from './lib';

const RUNS = envNumber('BENCH_RUNS', 5);
const UPLOAD_MIB = envNumber('BENCH_UPLOAD_MIB', 100);
const TOKEN = 'bench-master-token-0123456789abcdef';
const RSS_SAMPLE_MS = 20;
const GOAL_THROUGHPUT_RATIO = 0.7;
const GOAL_RSS_GROWTH_MIB = 32;
const MIB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Building blocks (exported for further parts)

export interface RunningController {
  child: Child;
  url: string;
  token: string;
  /** Its working directory (templates/, services/ … below it). */
  dir: string;
}

/** Starts the svc binary in a fresh temp dir on a free port and waits until the API listens. */
export async function startSvc(svc: SvcBinary, extraToml = ''): Promise<RunningController> {
  const dir = makeTempDir('svc-bench-upload-');
  const port = freePort();
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = ${port}\ntoken = "${TOKEN}"\nrate_limit = 0\nservice_rate_limit = 0\n${extraToml}\n`);
  const child = new Child('controller', [svc.path, '--dir', dir], { env: childEnv({ SVC_LOG_FORMAT: 'json' }) });
  await child.waitForLine((line) => (line.includes('API listening') ? true : undefined), 20_000, 'API listening');
  return { child, url: `http://127.0.0.1:${port}`, token: TOKEN, dir };
}

export interface UploadSample {
  seconds: number;
  /** CPU seconds the controller spent (user + system). */
  cpuSeconds: number;
  /** Peak VmRSS during `send` minus VmRSS just before it, in KiB. */
  rssGrowthKiB: number;
}

/**
 * Times `send` (one whole upload, answer included) while sampling the controller's VmRSS every
 * 20 ms; the growth is the peak over the baseline taken right before the upload starts.
 */
export async function measureUpload(pid: number, send: () => Promise<void>): Promise<UploadSample> {
  Bun.gc(true);
  const baseline = readRssKiB(pid);
  const cpu0 = readCpuSeconds(pid);
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, readRssKiB(pid));
  }, RSS_SAMPLE_MS);
  const started = performance.now();
  try {
    await send();
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  peak = Math.max(peak, readRssKiB(pid));
  return { seconds, cpuSeconds: readCpuSeconds(pid) - cpu0, rssGrowthKiB: peak - baseline };
}

/**
 * Seconds for a plain Bun.write of `bytes` to `path` (the peer of an upload to that file system);
 * with `durable`, followed by an fsync, as the upload does before it answers.
 */
export async function measureDiskWrite(path: string, bytes: Uint8Array, durable = false): Promise<number> {
  const started = performance.now();
  await Bun.write(path, bytes);
  if (durable) {
    const fd = openSync(path, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  rmSync(path, { force: true });
  return seconds;
}

/** A file of `mib` MiB of varied bytes (not all zeros: no file system may shortcut it). */
export function makeSourceFile(dir: string, name: string, mib: number): { path: string; bytes: Uint8Array } {
  const bytes = new Uint8Array(mib * MIB);
  const block = crypto.getRandomValues(new Uint8Array(64 * 1024));
  for (let offset = 0; offset < bytes.length; offset += block.length) bytes.set(block.subarray(0, Math.min(block.length, bytes.length - offset)), offset);
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return { path, bytes };
}

/** One multipart upload of a file from disk through the files API; throws unless it is a 201 of the right size. */
export async function uploadThroughFilesApi(controller: RunningController, dirInScope: string, source: string, filename: string, size: number): Promise<void> {
  // A pull stream reads the file as the connection takes it: the sender's memory stays small.
  const { body, contentType } = multipartBody([{ name: 'file', filename, path: source }]);
  const response = await fetch(`${controller.url}/api/files/templates/${dirInScope}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${controller.token}`, 'content-type': contentType },
    body,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text) as { size: number };
  if (answer.size !== size) throw new Error(`upload stored ${answer.size} bytes, sent ${size}`);
}

// ---------------------------------------------------------------------------------------------
// Parts

export interface Row {
  figure: string;
  value: string;
  peer: string;
  ratio: string;
  goal: string;
  met: boolean;
}

export type Part = (svc: SvcBinary) => Promise<Row[]>;

/** Part 1: a 100 MiB file through POST /api/files/templates/<dir>, against Bun.write of the same bytes. */
export const filesApiUpload: Part = async (svc) => {
  const controller = await startSvc(svc);
  try {
    const templates = join(controller.dir, 'templates');
    const target = join(templates, 'bench');
    await Bun.write(join(target, '.keep'), '');
    const source = makeSourceFile(makeTempDir('svc-bench-source-'), 'upload.bin', UPLOAD_MIB);
    const size = source.bytes.length;

    // Warm-up (page cache, JIT, first-connection costs), not counted.
    await uploadThroughFilesApi(controller, 'bench', source.path, 'warmup.bin', size);
    rmSync(join(target, 'warmup.bin'));
    await measureDiskWrite(join(target, 'peer-warmup.bin'), source.bytes);

    const uploads: UploadSample[] = [];
    const disk: number[] = [];
    const durableDisk: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Alternated, so drifts of the machine hit every figure alike.
      disk.push(await measureDiskWrite(join(target, 'peer.bin'), source.bytes));
      durableDisk.push(await measureDiskWrite(join(target, 'peer.bin'), source.bytes, true));
      uploads.push(await measureUpload(controller.child.pid, () => uploadThroughFilesApi(controller, 'bench', source.path, 'upload.bin', size)));
      rmSync(join(target, 'upload.bin'));
      controller.child.assertRunning('during the uploads');
    }
    const uploadRate = UPLOAD_MIB / median(uploads.map((u) => u.seconds));
    const diskRate = UPLOAD_MIB / median(disk);
    const durableRate = UPLOAD_MIB / median(durableDisk);
    const rssGrowthMiB = median(uploads.map((u) => u.rssGrowthKiB)) / 1024;
    const worstRssMiB = Math.max(...uploads.map((u) => u.rssGrowthKiB)) / 1024;
    const ratio = uploadRate / diskRate;
    return [
      {
        figure: `files API upload, ${UPLOAD_MIB} MiB multipart (MiB/s)`,
        value: fixed(uploadRate),
        peer: `${fixed(diskRate)} (Bun.write, same fs)`,
        ratio: fixed(ratio, 2),
        goal: `≥ ${GOAL_THROUGHPUT_RATIO}`,
        met: ratio >= GOAL_THROUGHPUT_RATIO,
      },
      {
        figure: '  the same upload against a durable write',
        value: fixed(uploadRate),
        peer: `${fixed(durableRate)} (Bun.write + fsync)`,
        ratio: fixed(uploadRate / durableRate, 2),
        goal: '- (like for like: the upload fsyncs)',
        met: true,
      },
      {
        figure: '  controller CPU per upload (ms, user + system)',
        value: fixed(median(uploads.map((u) => u.cpuSeconds)) * 1000, 0),
        peer: '-',
        ratio: '-',
        goal: '- (steadier than time on a busy machine)',
        met: true,
      },
      {
        figure: 'controller peak RSS growth during the upload (MiB)',
        value: `${fixed(rssGrowthMiB)} (worst ${fixed(worstRssMiB)})`,
        peer: `${GOAL_RSS_GROWTH_MIB} (limit)`,
        ratio: fixed(rssGrowthMiB / GOAL_RSS_GROWTH_MIB, 2),
        goal: '≤ 1.00',
        met: rssGrowthMiB <= GOAL_RSS_GROWTH_MIB,
      },
    ];
  } finally {
    await controller.child.stop();
  }
};

const PARTS: readonly { name: string; run: Part }[] = [{ name: 'files API', run: filesApiUpload }];

if (import.meta.main) {
  runBench('upload', benchTimeoutMs(600), async () => {
    const svc = await resolveSvcBinary();
    printSetup(`upload: ${PARTS.map((p) => p.name).join(', ')}; median of ${RUNS} runs`, svc, [
      `upload size: ${UPLOAD_MIB} MiB; RSS sampled every ${RSS_SAMPLE_MS} ms`,
      loadLine('load before', await backgroundLoad()),
    ]);
    const rows: Row[] = [];
    for (const part of PARTS) rows.push(...(await part.run(svc)));
    console.log(formatTable(['figure', 'value', 'peer / limit', 'ratio', 'goal', 'met'], rows.map((r) => [r.figure, r.value, r.peer, r.ratio, r.goal, r.met ? 'yes' : 'NO'])));
    console.log(loadLine('load after ', await backgroundLoad()));
    if (process.env.BENCH_ENFORCE === '1' && rows.some((r) => !r.met)) throw new Error('an upload goal was missed (BENCH_ENFORCE=1)');
  });
}
