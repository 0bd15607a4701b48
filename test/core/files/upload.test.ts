/** Streamed uploads without a server: limits while streaming, cut-off bodies, names, and nothing left behind. */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { receiveUpload } from '../../../src/core/files/upload';
import { ApiError } from '../../../src/errors';
import { tempDir } from '../../support/controller';

const scratch = tempDir('svc-upload-');
afterAll(() => scratch.remove());
const root = realpathSync(scratch.dir);

const BOUNDARY = 'unit-boundary';
const encoder = new TextEncoder();

/** A body delivered in small chunks; `cut` ends it with an error (a dropped connection) after that many chunks. */
function body(text: string, options: { chunk?: number; cut?: number } = {}): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  const size = options.chunk ?? 7;
  let at = 0;
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (options.cut !== undefined && sent === options.cut) return controller.error(new Error('The connection was closed.'));
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
      sent++;
    },
  });
}

const part = (headers: string, content: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n${content}\r\n`;
const filePart = (filename: string, content: string) => part(`Content-Disposition: form-data; name="file"; filename="${filename}"`, content);
const end = `--${BOUNDARY}--\r\n`;

function dir(name: string): string {
  const path = join(root, name);
  mkdirSync(path);
  return path;
}

async function upload(into: string, text: string, options: { chunk?: number; cut?: number; maxFileBytes?: number } = {}) {
  return receiveUpload({
    body: body(text, options),
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    dir: into,
    rootReal: root,
    rel: into.slice(root.length + 1),
    maxFileBytes: options.maxFileBytes ?? 1024,
    maxBodyBytes: (options.maxFileBytes ?? 1024) + 4096,
  });
}

async function failure(run: () => Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.errorCode, status: error.status, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('receiveUpload', () => {
  test('writes the file part under its name, chunk by chunk', async () => {
    const into = dir('ok');
    expect(await upload(into, filePart('a.txt', 'hello world') + end)).toEqual({ name: 'a.txt', size: 11, replaced: false });
    expect(readFileSync(join(into, 'a.txt'), 'utf8')).toBe('hello world');
    expect(readdirSync(into)).toEqual(['a.txt']);
  });

  test('a file at the limit passes; one byte more is PAYLOAD_TOO_LARGE while streaming, leaving nothing', async () => {
    const into = dir('limit');
    expect((await upload(into, filePart('exact.bin', 'x'.repeat(100)) + end, { maxFileBytes: 100 })).size).toBe(100);
    const refused = await failure(() => upload(into, filePart('over.bin', 'x'.repeat(101)) + end, { maxFileBytes: 100 }));
    expect(refused).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(readdirSync(into)).toEqual(['exact.bin']);
  });

  test('a body cut mid-file is refused as incomplete (400, not a server fault), leaving nothing', async () => {
    const into = dir('cut');
    const refused = await failure(() => upload(into, filePart('cut.bin', 'y'.repeat(500)) + end, { cut: 20 }));
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(refused.message).toContain('cut off');
    expect(readdirSync(into)).toEqual([]);
  });

  test('a body that just ends without the closing boundary leaves nothing', async () => {
    const into = dir('truncated');
    const refused = await failure(() => upload(into, filePart('t.bin', 'z'.repeat(50)).slice(0, -10)));
    expect(refused.code).toBe('VALIDATION_FAILED');
    expect(readdirSync(into)).toEqual([]);
  });

  test('the filename field wins when it comes first; a traversal name is refused before any byte is written', async () => {
    const into = dir('names');
    const named = part('Content-Disposition: form-data; name="filename"', 'chosen.txt') + filePart('ignored.txt', 'data') + end;
    expect((await upload(into, named)).name).toBe('chosen.txt');
    const evil = part('Content-Disposition: form-data; name="filename"', '../escape.txt') + filePart('ok.txt', 'data') + end;
    expect((await failure(() => upload(into, evil))).code).toBe('PATH_TRAVERSAL');
    expect(readdirSync(into)).toEqual(['chosen.txt']);
    expect(readdirSync(root)).not.toContain('escape.txt');
  });

  test('replacing keeps the old file whole until the new one is complete', async () => {
    const into = dir('replace');
    writeFileSync(join(into, 'keep.txt'), 'old');
    await failure(() => upload(into, filePart('keep.txt', 'new content') + end, { cut: 3 }));
    expect(readFileSync(join(into, 'keep.txt'), 'utf8')).toBe('old');
    expect((await upload(into, filePart('keep.txt', 'new content') + end)).replaced).toBe(true);
    expect(readFileSync(join(into, 'keep.txt'), 'utf8')).toBe('new content');
  });

  test('not multipart, or no boundary: VALIDATION_FAILED', async () => {
    const into = dir('types');
    for (const contentType of ['application/octet-stream', 'multipart/form-data', null]) {
      const refused = await failure(() => receiveUpload({ body: body('x'), contentType, dir: into, rootReal: root, rel: 'types', maxFileBytes: 10, maxBodyBytes: 100 }));
      expect(refused.code).toBe('VALIDATION_FAILED');
    }
  });
});
