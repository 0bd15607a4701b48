/**
 * A large server pack through the chunked upload and the import, with the controller's memory
 * watched: chunks go from the request stream to a file, the archive is unpacked entry by
 * entry from disk, so memory must not grow with the pack's size.
 *
 * Size: 300 MB here (a few seconds on two cores); the 1 GB run is test/bench/modpack-upload.bench.ts.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readJson, startController, tempDir, waitFor, type TestController } from '../support/controller';
import { writeStoredZip } from '../fixtures/modpack-zip';

const MB = 1024 * 1024;
const CHUNK = 4 * MB;
const ENTRY = 30 * MB;
const ENTRIES = 10;
/**
 * Peak RSS growth allowed. The controller runs inside this test process, so the figure also
 * holds the client side (fetch sending 4 MiB slices of the file) and whatever the collector has
 * not returned yet. Chunk bodies are written to disk by Bun natively and the archive is read
 * 1 MiB at a time, so what remains is small and does not grow with the pack (about 7 MiB
 * measured here); 32 MiB leaves room for a busy machine and is a tenth of what a buffered
 * upload (or an unzip of the whole archive in memory) would take.
 */
const MAX_GROWTH = 32 * MB;

let c: TestController;
const scratch = tempDir('svc-large-pack-');
let packPath = '';
let packSize = 0;

beforeAll(async () => {
  c = await startController();
  packPath = join(scratch.dir, 'server-pack.zip');
  packSize = writeStoredZip(packPath, [
    ...Array.from({ length: ENTRIES }, (_, i) => ({ name: `mods/big-${i}.jar`, size: ENTRY })),
    { name: 'libraries/net/minecraftforge/forge/1.20.1-47.2.0/forge-1.20.1-47.2.0.jar', size: 1000 },
  ]);
});
afterAll(async () => {
  await c.stop();
  scratch.remove();
});

async function upload(path: string, size: number, groupName: string): Promise<Response> {
  const init = await readJson(await c.api(`/api/modpacks/upload/init?target=group&filename=pack.zip&size=${size}`, { method: 'POST' }));
  const file = Bun.file(path);
  for (let index = 0, at = 0; at < size; index++, at += CHUNK) {
    const res = await c.api(`/api/modpacks/upload/chunk?uploadId=${init.uploadId}&index=${index}`, { method: 'POST', body: file.slice(at, Math.min(size, at + CHUNK)) });
    if (res.status !== 200) throw new Error(`chunk ${index}: ${res.status} ${await res.text()}`);
  }
  return c.api('/api/modpacks/upload/finalize', { method: 'POST', json: { uploadId: init.uploadId, groupName, minInstances: 0 } });
}

test(`a ${ENTRIES * ENTRY / MB} MB server pack: chunked upload and import with flat memory`, async () => {
  // Warm-up on a small pack, so code paths compiled once and pools filled do not count as growth.
  const small = join(scratch.dir, 'small.zip');
  const smallSize = writeStoredZip(small, [
    { name: 'mods/a.jar', size: 9 * MB },
    { name: 'libraries/net/minecraftforge/forge/1.20.1-47.2.0/x.jar', size: 10 },
  ]);
  expect((await upload(small, smallSize, 'WarmUp')).status).toBe(201);
  Bun.gc(true);
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const res = await upload(packPath, packSize, 'Huge');
    const body = await readJson(res);
    expect(res.status).toBe(201);
    expect(body.group).toMatchObject({ name: 'Huge', software: 'FORGE', version: '1.20.1' });
    await waitFor(async () => (await c.api('/api/groups/Huge')).status === 200, { what: 'the group' });
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  const growth = peak - baseline;
  console.log(`large pack: ${(packSize / MB).toFixed(0)} MB, RSS baseline ${(baseline / MB).toFixed(1)} MiB, peak ${(peak / MB).toFixed(1)} MiB, growth ${(growth / MB).toFixed(1)} MiB`);
  expect(growth).toBeLessThan(MAX_GROWTH);
  for (let i = 0; i < ENTRIES; i++) expect(statSync(join(c.dir, 'templates', 'Huge', 'mods', `big-${i}.jar`)).size).toBe(ENTRY);
}, 120_000);
