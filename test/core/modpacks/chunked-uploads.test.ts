/** Chunked uploads without a server: order, interruption, claims, expiry (with a fake clock). */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../../src/errors';
import { ChunkedUploads } from '../../../src/core/modpacks/chunked-uploads';
import { tempDir } from '../../support/controller';

const tmp = tempDir('svc-chunked-');
afterAll(() => tmp.remove());

let clock = 1_000_000;
const HOUR = 3_600_000;
function uploads(name: string, maxBytes = 1000, maxChunkBytes = 300): ChunkedUploads {
  const u = new ChunkedUploads({ dir: join(tmp.dir, name), ttlMs: HOUR, maxBytes, maxChunkBytes, now: () => clock });
  u.reset();
  return u;
}
/** A chunk request: with its Content-Length (written by Bun natively) or without (streamed). */
const body = (text: string, length: number | null = Buffer.byteLength(text)) =>
  new Request('http://svc.test/chunk', { method: 'POST', body: text, headers: length === null ? {} : { 'content-length': String(length) } });

async function code(promise: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof ApiError) return `${error.status} ${error.errorCode}`;
    throw error;
  }
  return 'ok';
}

/** A chunk request whose body sends `text` and then breaks, as a dropped connection does. */
function breaking(text: string, length: number | null): Request {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.error(new Error('The connection was closed.'));
    },
  });
  return new Request('http://svc.test/chunk', { method: 'POST', body: stream, headers: length === null ? {} : { 'content-length': String(length) } });
}
const contents = (parts: string[]) => parts.map((p) => readFileSync(p, 'utf8')).join('');

describe('ChunkedUploads', () => {
  test('chunks are stored in order; read one after another they are the upload', async () => {
    const u = uploads('order');
    const { uploadId } = await u.init('group', 'p.zip', null);
    await u.append(uploadId, 0, body('abc'));
    const view = await u.append(uploadId, 1, body('def', null));
    expect(view).toMatchObject({ chunks: 2, bytes: 6 });
    const claimed = u.claim(uploadId, 'group');
    expect(claimed.parts.length).toBe(2);
    expect(contents(claimed.parts)).toBe('abcdef');
  });

  test('repeated, skipped, empty and unknown chunks are refused with the next index named', async () => {
    const u = uploads('refusals');
    const { uploadId } = await u.init('group', 'p.zip', null);
    await u.append(uploadId, 0, body('abc'));
    expect(await code(u.append(uploadId, 0, body('abc')))).toBe('400 CHUNKED_UPLOAD_INVALID');
    expect(await code(u.append(uploadId, 5, body('abc')))).toBe('400 CHUNKED_UPLOAD_INVALID');
    expect(await code(u.append(uploadId, 1, body('')))).toBe('400 CHUNKED_UPLOAD_INVALID');
    expect(await code(u.append('f'.repeat(32), 0, body('abc')))).toBe('404 CHUNKED_UPLOAD_NOT_FOUND');
    expect((await u.append(uploadId, 1, body('d'))).bytes).toBe(4);
  });

  test('a chunk that breaks off, or falls short of its Content-Length, is dropped whole', async () => {
    const u = uploads('broken');
    const { uploadId } = await u.init('group', 'p.zip', null);
    await u.append(uploadId, 0, body('keep', null));
    expect(await code(u.append(uploadId, 1, breaking('half of it', 100)))).toBe('422 MODPACK_UPLOAD_FAILED');
    expect(await code(u.append(uploadId, 1, breaking('half of it', null)))).toBe('422 MODPACK_UPLOAD_FAILED');
    expect(await code(u.append(uploadId, 1, body('short', 100)))).toBe('422 MODPACK_UPLOAD_FAILED');
    await u.append(uploadId, 1, body('-more', null));
    expect(readdirSync(join(tmp.dir, 'broken', uploadId)).sort()).toEqual(['0.part', '1.part']);
    expect(contents(u.claim(uploadId, 'group').parts)).toBe('keep-more');
  });

  test('a chunk over the chunk limit, or the pack past its limit, is PAYLOAD_TOO_LARGE', async () => {
    const u = uploads('large', 500, 300);
    const { uploadId } = await u.init('group', 'p.zip', null);
    expect(await code(u.append(uploadId, 0, body('x'.repeat(301), null)))).toBe('413 PAYLOAD_TOO_LARGE');
    await u.append(uploadId, 0, body('x'.repeat(300), null));
    expect(await code(u.append(uploadId, 1, body('x'.repeat(201), null)))).toBe('413 PAYLOAD_TOO_LARGE');
    expect(await code(u.append(uploadId, 1, body('x'.repeat(201), 201)))).toBe('413 PAYLOAD_TOO_LARGE');
    expect((await u.append(uploadId, 1, body('x'.repeat(200), null))).bytes).toBe(500);
    expect(await code(u.init('group', 'p.zip', 501))).toBe('413 PAYLOAD_TOO_LARGE');
  });

  test('claims: the target must match; a claimed upload takes no chunk; release gives it back; take removes it', async () => {
    const u = uploads('claims');
    const { uploadId } = await u.init('dedicated', 'p.zip', null);
    expect(await code(() => u.claim(uploadId, 'dedicated'))).toBe('400 CHUNKED_UPLOAD_INVALID'); // nothing received yet
    await u.append(uploadId, 0, body('abc'));
    expect(await code(() => u.claim(uploadId, 'group'))).toBe('400 CHUNKED_UPLOAD_INVALID');
    const claimed = u.claim(uploadId, 'dedicated');
    expect(await code(u.append(uploadId, 1, body('d')))).toBe('400 CHUNKED_UPLOAD_INVALID');
    claimed.release();
    await u.append(uploadId, 1, body('d'));
    const again = u.claim(uploadId, 'dedicated');
    const { dir } = again.take();
    expect(existsSync(join(dir, '1.part'))).toBe(true); // the caller's now
    expect(await code(u.append(uploadId, 2, body('e')))).toBe('404 CHUNKED_UPLOAD_NOT_FOUND');
  });

  test('without a target either finalize may claim it (shown as group); announced chunks are held to', async () => {
    const u = uploads('untargeted');
    const started = await u.init(null, 'p.zip', null, 2);
    expect(started.target).toBe('group');
    await u.append(started.uploadId, 0, body('ab'));
    expect(await code(() => u.claim(started.uploadId, 'dedicated'))).toBe('400 CHUNKED_UPLOAD_INVALID'); // 1 of 2 chunks
    expect(await code(u.append(started.uploadId, 2, body('x')))).toBe('400 CHUNKED_UPLOAD_INVALID'); // past the 2 announced
    await u.append(started.uploadId, 1, body('cd'));
    expect(await code(u.append(started.uploadId, 2, body('x')))).toBe('400 CHUNKED_UPLOAD_INVALID');
    const claimed = u.claim(started.uploadId, 'dedicated');
    expect(contents(claimed.parts)).toBe('abcd');
    claimed.release();
    expect(contents(u.claim(started.uploadId, 'group').parts)).toBe('abcd');
  });

  test('an upload idle for the TTL is removed with its file; a recently active one stays', async () => {
    const u = uploads('expiry');
    const idle = await u.init('group', 'a.zip', null);
    const active = await u.init('group', 'b.zip', null);
    await u.append(idle.uploadId, 0, body('abc'));
    clock += HOUR / 2;
    await u.append(active.uploadId, 0, body('abc'));
    clock += HOUR / 2 + 1;
    expect(await u.sweep()).toBe(1);
    expect(await code(u.append(idle.uploadId, 1, body('x')))).toBe('404 CHUNKED_UPLOAD_NOT_FOUND');
    expect(readdirSync(join(tmp.dir, 'expiry'))).toEqual([active.uploadId]);
    expect((await u.append(active.uploadId, 1, body('x'))).bytes).toBe(4);
  });

  test('reset removes what an earlier run left', () => {
    const dir = join(tmp.dir, 'reset');
    const u = uploads('reset');
    writeFileSync(join(dir, 'leftover'), 'x');
    u.reset();
    expect(readdirSync(dir)).toEqual([]);
  });
});
