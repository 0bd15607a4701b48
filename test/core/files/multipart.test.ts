/** The streaming multipart reader: every chunking of a body reads the same, bad bodies are named. */
import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MultipartReader, boundaryOf } from '../../../src/core/files/multipart';
import { multipartBody } from '../../../src/cluster/state-sync/multipart-body';
import { tempDir } from '../../support/controller';
import { ApiError } from '../../../src/errors';

const encoder = new TextEncoder();

function streamOf(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.slice(at, cut));
    at = cut;
  }
  return new ReadableStream({
    pull(controller) {
      const next = pieces.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

async function readAll(reader: MultipartReader): Promise<{ name: string; filename: string | null; body: string }[]> {
  const out: { name: string; filename: string | null; body: string }[] = [];
  for (let head = await reader.nextPart(); head; head = await reader.nextPart()) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of reader.body()) chunks.push(chunk);
    out.push({ ...head, body: Buffer.concat(chunks).toString('latin1') });
  }
  return out;
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('boundaryOf', () => {
  test.each([
    ['multipart/form-data; boundary=abc', 'abc'],
    ['Multipart/Form-Data; charset=utf-8; boundary="a b c"', 'a b c'],
    ['multipart/form-data', null],
    ['multipart/mixed; boundary=abc', null],
    ['application/json', null],
    [null, null],
  ])('%p → %p', (type, boundary) => {
    expect(boundaryOf(type)).toBe(boundary);
  });
});

describe('MultipartReader', () => {
  // A body with a preamble, a part without filename, a binary part holding near-boundaries,
  // an empty part, transport padding after a boundary, and an epilogue.
  const binary = Buffer.from([0, 13, 10, 45, 45, 255, 13, 10, 45, 45, 88, 13, 10]).toString('latin1');
  const text =
    'preamble to ignore\r\n' +
    '--XyZ\r\nContent-Disposition: form-data; name="manifest"\r\n\r\n{"files":{}}\r\n' +
    `--XyZ  \r\ncontent-disposition: form-data; name="file:a \\"q\\".bin"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${binary}\r\n--XyA-almost\r\n--Xy` +
    '\r\n--XyZ\r\nContent-Disposition: form-data; name="file:empty"\r\n\r\n\r\n' +
    '--XyZ--\r\nepilogue';
  const bytes = new Uint8Array(Buffer.from(text, 'latin1'));
  const expected = [
    { name: 'manifest', filename: null, body: '{"files":{}}' },
    { name: 'file:a "q".bin', filename: 'a.bin', body: `${binary}\r\n--XyA-almost\r\n--Xy` },
    { name: 'file:empty', filename: null, body: '' },
  ];

  test('reads the parts whole and in order, however the body is cut', async () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      const parts = await readAll(new MultipartReader(streamOf(bytes, [cut]), 'XyZ', 1 << 20));
      expect(parts, `cut at ${cut}`).toEqual(expected);
    }
    const byteByByte = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    expect(await readAll(new MultipartReader(streamOf(bytes, byteByByte), 'XyZ', 1 << 20))).toEqual(expected);
  });

  test('a part left unread is skipped', async () => {
    const reader = new MultipartReader(streamOf(bytes, [7, 50]), 'XyZ', 1 << 20);
    expect((await reader.nextPart())?.name).toBe('manifest');
    expect((await reader.nextPart())?.name).toBe('file:a "q".bin');
    expect((await reader.nextPart())?.name).toBe('file:empty');
    expect(await reader.nextPart()).toBeNull();
    expect(reader.bytesRead).toBe(bytes.length);
  });

  test.each([
    ['no boundary at all', 'just text', 'no boundary found'],
    ['no closing boundary', '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nbody', 'the body ended inside a part'],
    ['headers never end', '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n', 'the body ended inside part headers'],
    ['no Content-Disposition', '--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--', 'no Content-Disposition'],
    ['no name', '--XyZ\r\nContent-Disposition: form-data; filename="a"\r\n\r\nx\r\n--XyZ--', 'no name'],
    ['garbage after a boundary', '--XyZ!!\r\n\r\nx\r\n--XyZ--', 'not followed by a line break'],
  ])('%s is VALIDATION_FAILED', async (_label, body, fragment) => {
    const reader = new MultipartReader(streamOf(encoder.encode(body), []), 'XyZ', 1 << 20);
    const error = await failure(readAll(reader));
    expect(error.errorCode).toBe('VALIDATION_FAILED');
    expect(error.message).toContain(fragment);
  });

  test('overlong part headers are refused without reading on', async () => {
    const body = `--XyZ\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\nx\r\n--XyZ--`;
    const error = await failure(readAll(new MultipartReader(streamOf(encoder.encode(body), [100, 200]), 'XyZ', 1 << 20)));
    expect(error.message).toContain('part headers longer than');
  });

  test('more than the limit is PAYLOAD_TOO_LARGE', async () => {
    const big = `--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n${'x'.repeat(5000)}\r\n--XyZ--`;
    const error = await failure(readAll(new MultipartReader(streamOf(encoder.encode(big), [1000, 2000, 3000]), 'XyZ', 2500)));
    expect(error.errorCode).toBe('PAYLOAD_TOO_LARGE');
    expect(error.status).toBe(413);
  });
});

describe('multipartBody', () => {
  test('what it streams reads back part for part, names with quotes included', async () => {
    const scratch = tempDir('svc-multipart-');
    try {
      const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) % 256);
      writeFileSync(join(scratch.dir, 'big.bin'), big);
      writeFileSync(join(scratch.dir, 'empty'), '');
      const { body, contentType } = multipartBody([
        { name: 'manifest', text: '{"files":{}}' },
        { name: 'file:dir/a "quoted" ünï.bin', filename: 'a "quoted" ünï.bin', path: join(scratch.dir, 'big.bin') },
        { name: 'file:empty', filename: 'empty', path: join(scratch.dir, 'empty') },
      ]);
      const reader = new MultipartReader(body, boundaryOf(contentType)!, 1 << 30);
      const parts = await readAll(reader);
      expect(parts.map((p) => [p.name, p.filename])).toEqual([
        ['manifest', null],
        ['file:dir/a %22quoted%22 ünï.bin', 'a %22quoted%22 ünï.bin'],
        ['file:empty', 'empty'],
      ]);
      expect(Buffer.from(parts[1]!.body, 'latin1').equals(Buffer.from(big))).toBe(true);
      expect(parts[2]!.body).toBe('');
    } finally {
      scratch.remove();
    }
  });
});
