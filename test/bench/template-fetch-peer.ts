/**
 * The agent side of template-download.bench.ts, in its own process so its memory is its own:
 *
 *   bun template-fetch-peer.ts streamed <url> <cache dir> <digest>   the agent's TemplateCache (src/),
 *       which checks what it unpacked against the digest
 *   bun template-fetch-peer.ts in-memory <url> <dest dir>   the way it was done before: the
 *       whole body as one buffer, fflate's unzipSync over it, every file written from memory
 *
 * Prints `ready` once loaded, waits for SIGUSR2 (the bench has read its RSS), fetches, prints a JSON line with
 * the seconds taken and the files written, then exits. Not a bench itself; never loaded by `bun test`.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { TemplateCache } from '../../src/agent/template-cache';

const [mode, url, dir, digest] = Bun.argv.slice(2) as ['streamed' | 'in-memory', string, string, string];

function countFiles(root: string): number {
  let n = 0;
  for (const name of readdirSync(root)) n += statSync(join(root, name)).isDirectory() ? countFiles(join(root, name)) : 1;
  return n;
}

async function inMemory(): Promise<string> {
  const response = await fetch(url, { headers: { authorization: 'Bearer bench' } });
  const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
  for (const [entry, bytes] of Object.entries(files)) {
    if (entry.endsWith('/')) continue;
    mkdirSync(dirname(join(dir, entry)), { recursive: true });
    writeFileSync(join(dir, entry), bytes);
  }
  return dir;
}

const go = new Promise((resolve) => process.once('SIGUSR2', resolve));
console.log('ready');
await go;
const started = performance.now();
const out = mode === 'streamed' ? await new TemplateCache(dir, { origin: url, fetch, token: () => 'bench' }).ensure('big', digest, 'PAPER') : await inMemory();
console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000, files: countFiles(out) }));
process.exit(0);
