/**
 * Template download benchmark (memory): an agent fetching a large template from the
 * controller's template zip and unpacking it, with its resident memory sampled every 20 ms.
 *
 * The template (BENCH_TEMPLATE_MIB, default 1024 MiB of incompressible data in 64 MiB jars and
 * 1 MiB world files, plus small config files) is served by this process with the controller's
 * own zip writer (src/cluster/template-zip.ts) at /api/templates/big/download. Each agent is a
 * `bun template-fetch-peer.ts` child:
 *   streamed    the agent's TemplateCache: the body streamed to a file, unpacked from disk
 *   in-memory   the previous way (peer): the body as one buffer, unzipSync, files from memory
 * Reported: peak RSS growth over the child's RSS just before the fetch, and time. Limit: growth
 * ≤ 64 MiB for a 1 GiB template. BENCH_TEMPLATE_INMEMORY=0 skips the peer (it needs ~2.5× the
 * template in RAM).
 *
 *   bun run bench template-download
 *   BENCH_ENFORCE=1   exit 1 when the limit is missed
 */
import { randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { zipStream } from '../../src/cluster/template-zip';
import { digestFiles } from '../../src/cluster/template-digest';
import { backgroundLoad, benchTimeoutMs, Child, childEnv, envNumber, fixed, formatTable, loadLine, makeTempDir, readRssKiB, removeDir, runBench } from './lib';

const PEER = join(import.meta.dir, 'template-fetch-peer.ts');
const TEMPLATE_MIB = envNumber('BENCH_TEMPLATE_MIB', 1024);
const LIMIT_GROWTH_MIB = 64;
const SAMPLE_MS = 20;
const MIB = 1024 * 1024;

/** Writes `mib` MiB of random bytes to `path`, 4 MiB at a time. */
function randomFile(path: string, mib: number): void {
  const fd = openSync(path, 'w');
  const buffer = Buffer.allocUnsafe(4 * MIB);
  try {
    for (let written = 0; written < mib; written += 4) writeSync(fd, randomFillSync(buffer), 0, Math.min(4, mib - written) * MIB);
  } finally {
    closeSync(fd);
  }
}

function buildTemplate(root: string): Map<string, string> {
  const files = new Map<string, string>();
  mkdirSync(join(root, 'plugins'), { recursive: true });
  mkdirSync(join(root, 'world', 'region'), { recursive: true });
  let left = TEMPLATE_MIB;
  for (let i = 0; left >= 64 && left > TEMPLATE_MIB / 4; i++, left -= 64) {
    const rel = `plugins/plugin-${i}.jar`;
    randomFile(join(root, rel), 64);
    files.set(rel, join(root, rel));
  }
  for (let i = 0; left > 0; i++, left -= 1) {
    const rel = `world/region/r.${i}.0.mca`;
    randomFile(join(root, rel), 1);
    files.set(rel, join(root, rel));
  }
  for (let i = 0; i < 200; i++) {
    const rel = `config/file-${i}.yml`;
    mkdirSync(join(root, 'config'), { recursive: true });
    const fd = openSync(join(root, rel), 'w');
    writeSync(fd, `key: value-${i}\n`.repeat(100));
    closeSync(fd);
    files.set(rel, join(root, rel));
  }
  return files;
}

async function fetchOnce(mode: 'streamed' | 'in-memory', url: string, dir: string, digest: string): Promise<{ growthMiB: number; seconds: number; files: number }> {
  const child = new Child(`agent ${mode}`, [process.execPath, PEER, mode, url, dir, digest], { env: childEnv() });
  await child.waitForLine((l) => (l === 'ready' ? true : undefined), 30_000, 'ready');
  const before = readRssKiB(child.pid);
  let peak = before;
  // Go: the RSS before is read, now the fetch may start.
  process.kill(child.pid, 'SIGUSR2');
  const sampler = setInterval(() => {
    if (child.running) peak = Math.max(peak, readRssKiB(child.pid));
  }, SAMPLE_MS);
  try {
    const line = await child.waitForLine((l) => (l.startsWith('{') ? l : undefined), 600_000, `${mode} result`);
    const result = JSON.parse(line) as { seconds: number; files: number };
    return { growthMiB: (peak - before) / 1024, ...result };
  } finally {
    clearInterval(sampler);
    await child.stop(5000);
  }
}

async function main(): Promise<void> {
  const work = makeTempDir('svc-bench-template-');
  try {
    console.log(loadLine('load before', await backgroundLoad()));
    const started = performance.now();
    const files = buildTemplate(join(work, 'template'));
    console.log(`template: ${files.size} files, ${TEMPLATE_MIB} MiB of random data, written in ${fixed((performance.now() - started) / 1000)} s`);
    // The agent checks what it unpacked against the digest the controller names (template-digest.ts).
    const digest = await digestFiles(files);
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(zipStream(files), { headers: { 'content-type': 'application/zip', 'x-template-hash': digest } }) });
    const url = `http://127.0.0.1:${server.port}/`;
    try {
      const streamed = await fetchOnce('streamed', url, join(work, 'cache'), digest);
      if (streamed.files !== files.size) throw new Error(`streamed: ${streamed.files} files unpacked, expected ${files.size}`);
      const runPeer = process.env.BENCH_TEMPLATE_INMEMORY !== '0';
      const inMemory = runPeer ? await fetchOnce('in-memory', url, join(work, 'in-memory'), digest) : null;
      if (inMemory && inMemory.files !== files.size) throw new Error(`in-memory: ${inMemory.files} files unpacked, expected ${files.size}`);
      console.log(`\ntemplate download, ${TEMPLATE_MIB} MiB, one run each (RSS sampled every ${SAMPLE_MS} ms; growth over the agent's RSS before the fetch)\n`);
      const rows = [
        ['peak RSS growth', `${fixed(streamed.growthMiB)} MiB`, `limit ≤ ${LIMIT_GROWTH_MIB} MiB`, fixed(streamed.growthMiB / LIMIT_GROWTH_MIB, 2)],
        ...(inMemory
          ? [
              ['peak RSS growth', `${fixed(streamed.growthMiB)} MiB`, `in memory (before) ${fixed(inMemory.growthMiB)} MiB`, fixed(streamed.growthMiB / inMemory.growthMiB, 3)],
              ['time', `${fixed(streamed.seconds, 2)} s`, `in memory (before) ${fixed(inMemory.seconds, 2)} s`, fixed(streamed.seconds / inMemory.seconds, 2)],
            ]
          : []),
      ];
      console.log(formatTable(['metric', 'streamed', 'peer/limit', 'ratio'], rows));
      const ok = streamed.growthMiB <= LIMIT_GROWTH_MIB;
      console.log(`\nlimit RSS growth ≤ ${LIMIT_GROWTH_MIB} MiB for a ${TEMPLATE_MIB} MiB template: ${ok ? 'MET' : 'MISSED'} (${fixed(streamed.growthMiB)} MiB)`);
      if (process.env.BENCH_ENFORCE === '1' && !ok) throw new Error('the memory limit was missed (BENCH_ENFORCE=1)');
    } finally {
      server.stop(true);
    }
  } finally {
    removeDir(work);
  }
}

runBench('template-download.bench', benchTimeoutMs(600), main);
