import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, errorBody } from '../../../src/errors';
import { packFileResponse, packUuidOfFileName, type PackFile } from '../../../src/modules/resourcepacks/download';
import { startChildServer } from '../../support/child-memory';
import { expectErrorBody, tempDir } from '../../support/controller';
import { rawRequest } from '../../support/raw-http';
import { LEXICAL_PAYLOADS } from '../../support/traversal-corpus';

/**
 * packFileResponse served by a real Bun.serve on port 0, so what is checked is what Bun puts
 * on the wire (Bun has Range handling of its own for file bodies, and sets Content-Length of
 * file bodies itself). Thrown ApiErrors are rendered as the HTTP kernel does: status, extra
 * headers, `{success:false, message, error}`.
 */

const sha1Of = (bytes: Uint8Array) => new Bun.CryptoHasher('sha1').update(bytes).digest('hex');

function packFileAt(path: string, sha1: string): PackFile {
  const info = statSync(path);
  return { path, size: info.size, sha1, modifiedMs: info.mtimeMs };
}

const temp = tempDir('svc-pack-download-');
const data = new Uint8Array(randomBytes(3 * 1024 * 1024 + 517)); // uneven on purpose
const SIZE = data.length;
const packs = new Map<string, PackFile>();
let pack: PackFile;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let port: number;

function serve(request: Request): Response {
  const file = packs.get(new URL(request.url).pathname.slice(1));
  if (!file) return new Response('no such test file', { status: 500 });
  try {
    return packFileResponse(request, file);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return Response.json(errorBody(error.errorCode, error.message), { status: error.status, headers: error.headers });
  }
}

beforeAll(() => {
  const path = join(temp.dir, 'pack.zip');
  writeFileSync(path, data);
  pack = packFileAt(path, sha1Of(data));
  packs.set('pack', pack);
  const emptyPath = join(temp.dir, 'empty.zip');
  writeFileSync(emptyPath, new Uint8Array(0));
  packs.set('empty', packFileAt(emptyPath, sha1Of(new Uint8Array(0))));
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: serve });
  port = server.port!;
  base = `http://127.0.0.1:${port}`;
});

afterAll(() => {
  server.stop(true);
  temp.remove();
});

const get = (headers: Record<string, string> = {}, name = 'pack', method = 'GET') => fetch(`${base}/${name}`, { method, headers });
const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

async function expectWhole(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-range')).toBeNull();
  expect(response.headers.get('content-length')).toBe(String(SIZE));
  const body = await bytesOf(response);
  expect(body.length).toBe(SIZE);
  expect(sha1Of(body)).toBe(pack.sha1);
}

async function expectPart(response: Response, start: number, end: number): Promise<void> {
  expect(response.status).toBe(206);
  expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${SIZE}`);
  expect(response.headers.get('content-length')).toBe(String(end - start + 1));
  expect(response.headers.get('etag')).toBe(`"${pack.sha1}"`);
  expect(response.headers.get('content-type')).toBe('application/zip');
  expect(Buffer.from(await bytesOf(response)).equals(Buffer.from(data.subarray(start, end + 1)))).toBe(true);
}

async function expectUnsatisfiable(response: Response, size = SIZE): Promise<void> {
  expect(response.status).toBe(416);
  expect(response.headers.get('content-range')).toBe(`bytes */${size}`);
  const body = await expectErrorBody(response);
  expect(body.error).toBe('VALIDATION_FAILED');
  expect(body.message).toContain(`${size} bytes`);
}

describe('whole download', () => {
  test('200 carries every header and exactly the file’s bytes', async () => {
    const response = await get();
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('etag')).toBe(`"${pack.sha1}"`);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('last-modified')).toBe(new Date(Math.floor(pack.modifiedMs / 1000) * 1000).toUTCString());
    await expectWhole(response);
  });

  test('on the wire: a plain Content-Length body, not chunked', async () => {
    const raw = await rawRequest(port, { method: 'GET', target: '/pack' });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-length']).toBe(String(SIZE));
    expect(raw.headers['transfer-encoding']).toBeUndefined();
    expect(raw.body.length).toBe(SIZE);
    expect(sha1Of(raw.body)).toBe(pack.sha1);
  });

  test('HEAD: the same headers with the full length, and no body', async () => {
    const response = await get({}, 'pack', 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(SIZE));
    expect(response.headers.get('etag')).toBe(`"${pack.sha1}"`);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect((await bytesOf(response)).length).toBe(0);

    const raw = await rawRequest(port, { method: 'HEAD', target: '/pack' });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-length']).toBe(String(SIZE));
    expect(raw.body.length).toBe(0);
  });

  test('HEAD ignores Range (defined for GET only)', async () => {
    const raw = await rawRequest(port, { method: 'HEAD', target: '/pack', headers: { range: 'bytes=0-99' } });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-length']).toBe(String(SIZE));
    expect(raw.headers['content-range']).toBeUndefined();
  });

  test('an empty pack: 200 with length 0; a suffix range sends it whole; a start is unsatisfiable', async () => {
    const whole = await get({}, 'empty');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe('0');
    expect((await bytesOf(whole)).length).toBe(0);
    const suffix = await get({ range: 'bytes=-5' }, 'empty');
    expect(suffix.status).toBe(200);
    expect((await bytesOf(suffix)).length).toBe(0);
    await expectUnsatisfiable(await get({ range: 'bytes=0-' }, 'empty'), 0);
  });
});

describe('If-None-Match', () => {
  test.each([
    ['the exact ETag', () => `"${pack.sha1}"`],
    ['a list containing it', () => `"0000000000000000000000000000000000000000", "${pack.sha1}"`],
    ['the weak form', () => `W/"${pack.sha1}"`],
    ['a list with the weak form', () => `W/"abc",W/"${pack.sha1}"`],
    ['*', () => '*'],
  ])('%s → 304 with the validators and no body', async (_what, header) => {
    const response = await get({ 'if-none-match': header() });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(`"${pack.sha1}"`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('last-modified')).not.toBeNull();
    expect((await bytesOf(response)).length).toBe(0);
  });

  test('304 wins over Range, and HEAD gets 304 too', async () => {
    const ranged = await get({ 'if-none-match': `"${pack.sha1}"`, range: 'bytes=0-9' });
    expect(ranged.status).toBe(304);
    expect((await bytesOf(ranged)).length).toBe(0);
    const raw = await rawRequest(port, { method: 'HEAD', target: '/pack', headers: { 'if-none-match': `"${pack.sha1}"` } });
    expect(raw.status).toBe(304);
    expect(raw.body.length).toBe(0);
  });

  test.each([
    ['another tag', '"0000000000000000000000000000000000000000"'],
    ['the sha1 unquoted', 'SHA1'],
    ['the sha1 in upper case', 'UPPER'],
    ['an empty tag', '""'],
  ])('%s → 200 with the whole file', async (_what, header) => {
    const value = header === 'SHA1' ? pack.sha1 : header === 'UPPER' ? `"${pack.sha1.toUpperCase()}"` : header;
    await expectWhole(await get({ 'if-none-match': value }));
  });
});

describe('Range', () => {
  test('bytes=0-99 → the first 100 bytes', async () => {
    await expectPart(await get({ range: 'bytes=0-99' }), 0, 99);
  });

  test('bytes=100- → from 100 to the end', async () => {
    await expectPart(await get({ range: 'bytes=100-' }), 100, SIZE - 1);
  });

  test('bytes=-100 → the last 100 bytes', async () => {
    await expectPart(await get({ range: 'bytes=-100' }), SIZE - 100, SIZE - 1);
  });

  test('a suffix longer than the file → the whole file as 206', async () => {
    await expectPart(await get({ range: `bytes=-${SIZE + 10}` }), 0, SIZE - 1);
  });

  test('an end past the file is clamped to the last byte', async () => {
    await expectPart(await get({ range: `bytes=${SIZE - 10}-${SIZE + 1000}` }), SIZE - 10, SIZE - 1);
    await expectPart(await get({ range: `bytes=5-${'9'.repeat(30)}` }), 5, SIZE - 1);
  });

  test('one byte, the last byte, and a range in the middle', async () => {
    await expectPart(await get({ range: 'bytes=0-0' }), 0, 0);
    await expectPart(await get({ range: `bytes=${SIZE - 1}-` }), SIZE - 1, SIZE - 1);
    await expectPart(await get({ range: 'bytes=1048576-2097151' }), 1048576, 2097151);
  });

  test('the unit is case-insensitive and whitespace is tolerated', async () => {
    await expectPart(await get({ range: 'BYTES=10-19' }), 10, 19);
    await expectPart(await get({ range: 'bytes = 10 - 19' }), 10, 19);
  });

  test('on the wire: 206 with a plain Content-Length body of the slice', async () => {
    const raw = await rawRequest(port, { method: 'GET', target: '/pack', headers: { range: 'bytes=1000-1999' } });
    expect(raw.status).toBe(206);
    expect(raw.headers['content-range']).toBe(`bytes 1000-1999/${SIZE}`);
    expect(raw.headers['content-length']).toBe('1000');
    expect(raw.headers['transfer-encoding']).toBeUndefined();
    expect(raw.body.equals(Buffer.from(data.subarray(1000, 2000)))).toBe(true);
  });

  test.each([
    ['a start at the size', () => `bytes=${SIZE}-`],
    ['a start past the end', () => `bytes=${SIZE + 5}-${SIZE + 10}`],
    ['a huge start', () => `bytes=${'9'.repeat(30)}-`],
    ['a zero-length suffix', () => 'bytes=-0'],
  ])('%s → 416 with Content-Range bytes */size and the error body', async (_what, range) => {
    await expectUnsatisfiable(await get({ range: range() }));
  });

  test('the 416 on the wire has `bytes */size` without a space', async () => {
    const raw = await rawRequest(port, { method: 'GET', target: '/pack', headers: { range: `bytes=${SIZE}-` } });
    expect(raw.status).toBe(416);
    expect(raw.headers['content-range']).toBe(`bytes */${SIZE}`);
    expect(JSON.parse(raw.text)).toMatchObject({ success: false, error: 'VALIDATION_FAILED' });
  });

  test.each([
    ['two ranges', 'bytes=0-9,20-29'],
    ['two ranges, spaced', 'bytes=0-9, 20-29'],
    ['a trailing comma', 'bytes=0-9,'],
    ['garbage', 'garbage'],
    ['another unit', 'items=0-9'],
    ['no positions', 'bytes=-'],
    ['last before first', 'bytes=20-10'],
    ['signs and hex', 'bytes=+0-9'],
    ['hex', 'bytes=0x0-9'],
    ['exponent', 'bytes=1e1-20'],
    ['empty', 'bytes='],
    ['a trailing semicolon', 'bytes=0-9;'],
  ])('%s → 200 with the whole file', async (_what, range) => {
    await expectWhole(await get({ range }));
  });
});

describe('If-Range', () => {
  test('the ETag → the range is served', async () => {
    await expectPart(await get({ range: 'bytes=0-99', 'if-range': `"${pack.sha1}"` }), 0, 99);
  });

  test('Last-Modified exactly → the range is served', async () => {
    const lastModified = (await get({}, 'pack', 'HEAD')).headers.get('last-modified')!;
    await expectPart(await get({ range: 'bytes=0-99', 'if-range': lastModified }), 0, 99);
  });

  test.each([
    ['another ETag', () => '"0000000000000000000000000000000000000000"'],
    ['the weak ETag (If-Range compares strongly)', () => `W/"${pack.sha1}"`],
    ['the sha1 unquoted', () => pack.sha1],
    ['a later date', () => new Date(pack.modifiedMs + 60_000).toUTCString()],
    ['an earlier date', () => new Date(pack.modifiedMs - 60_000).toUTCString()],
    ['garbage', () => 'garbage'],
  ])('%s → Range ignored, 200 whole', async (_what, ifRange) => {
    await expectWhole(await get({ range: 'bytes=0-99', 'if-range': ifRange() }));
  });

  test('a mismatch ignores even an unsatisfiable range', async () => {
    await expectWhole(await get({ range: `bytes=${SIZE}-`, 'if-range': '"other"' }));
  });
});

describe('what packFileResponse decides is what goes on the wire', () => {
  // Bun answers Range on a 200 file body by itself; these cases would show it overriding us.
  function decided(headers: Record<string, string>, method = 'GET'): { status: number; contentRange: string | null } {
    try {
      const response = packFileResponse(new Request(`${base}/pack`, { method, headers }), pack);
      return { status: response.status, contentRange: response.headers.get('content-range') };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.status, contentRange: error.headers['content-range'] ?? null };
    }
  }

  const cases: [string, () => Record<string, string>][] = [
    ['no conditions', () => ({})],
    ['a range', () => ({ range: 'bytes=5-15' })],
    ['a suffix', () => ({ range: 'bytes=-7' })],
    ['an open range', () => ({ range: `bytes=${SIZE - 3}-` })],
    ['two ranges', () => ({ range: 'bytes=0-1,4-5' })],
    ['garbage', () => ({ range: 'bytes=x-y' })],
    ['last before first', () => ({ range: 'bytes=9-1' })],
    ['unsatisfiable', () => ({ range: `bytes=${SIZE}-` })],
    ['If-Range mismatch', () => ({ range: 'bytes=0-9', 'if-range': '"nope"' })],
    ['If-Range weak', () => ({ range: 'bytes=0-9', 'if-range': `W/"${pack.sha1}"` })],
    ['If-Range match', () => ({ range: 'bytes=0-9', 'if-range': `"${pack.sha1}"` })],
    ['If-Range date match', () => ({ range: 'bytes=0-9', 'if-range': new Date(Math.floor(pack.modifiedMs / 1000) * 1000).toUTCString() })],
    ['If-Range other date', () => ({ range: 'bytes=0-9', 'if-range': new Date(0).toUTCString() })],
    ['If-None-Match hit', () => ({ 'if-none-match': `"${pack.sha1}"`, range: 'bytes=0-9' })],
  ];
  test.each(cases)('%s', async (_what, headers) => {
    const wire = await rawRequest(port, { method: 'GET', target: '/pack', headers: headers() });
    expect({ status: wire.status, contentRange: wire.headers['content-range'] ?? null }).toEqual(decided(headers()));
  });
});

describe('packUuidOfFileName', () => {
  const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

  function refusal(name: string): ApiError {
    let thrown: unknown;
    try {
      const uuid = packUuidOfFileName(name);
      throw new Error(`${JSON.stringify(name.slice(0, 80))} was taken for pack ${uuid}`);
    } catch (error) {
      thrown = error;
    }
    if (!(thrown instanceof ApiError)) throw thrown;
    return thrown;
  }

  const expectCode = (name: string, code: 'PATH_TRAVERSAL' | 'RESOURCE_PACK_NOT_FOUND') => {
    const error = refusal(name);
    expect({ name, code: error.errorCode, status: error.status }).toEqual({ name, code, status: code === 'PATH_TRAVERSAL' ? 400 : 404 });
    expect(error.message.length).toBeGreaterThan(0);
  };

  test('a uuid.zip gives the uuid in lower case', () => {
    expect(packUuidOfFileName(`${UUID}.zip`)).toBe(UUID);
    expect(packUuidOfFileName(`${UUID.toUpperCase()}.zip`)).toBe(UUID);
    expect(packUuidOfFileName('0F8fAD5b-D9cb-469F-a165-70867728950E.zip')).toBe(UUID);
  });

  test.each([
    ['no extension', UUID],
    ['upper-case .ZIP (only .zip exactly)', `${UUID}.ZIP`],
    ['.Zip', `${UUID}.Zip`],
    ['another extension', `${UUID}.jar`],
    ['.zip with a trailing space', `${UUID}.zip `],
    ['.zip then more', `${UUID}.zip.txt`],
    ['a percent-encoded .zip', `${UUID}%2ezip`],
  ])('not ending in .zip (%s) → RESOURCE_PACK_NOT_FOUND', (_what, name) => {
    expectCode(name, 'RESOURCE_PACK_NOT_FOUND');
  });

  test.each([
    ['only .zip', '.zip'],
    ['a name', 'pack.zip'],
    ['a uuid without dashes', `${UUID.replaceAll('-', '')}.zip`],
    ['a uuid with braces', `{${UUID}}.zip`],
    ['a uuid one character short', `${UUID.slice(1)}.zip`],
    ['a uuid with a non-hex digit', `${UUID.slice(0, -1)}g.zip`],
    ['.zip twice', `${UUID}.zip.zip`],
    ['a uuid with spaces', ` ${UUID}.zip`],
    ['a uuid then a NUL', `${UUID}\0.zip`],
    ['a percent-encoded uuid digit', `%30${UUID.slice(1)}.zip`],
    ['a single dot', '..zip'],
  ])('a safe name that is no uuid (%s) → RESOURCE_PACK_NOT_FOUND', (_what, name) => {
    expectCode(name, 'RESOURCE_PACK_NOT_FOUND');
  });

  test.each([
    ['a slash', `a/${UUID}.zip`],
    ['a leading slash', `/${UUID}.zip`],
    ['a backslash', `a\\${UUID}.zip`],
    ['a backslash alone', `${UUID}\\.zip`],
    ['.. in the middle', `${UUID.slice(0, 8)}..${UUID.slice(10)}.zip`],
    ['.. at the start', `..${UUID}.zip`],
    ['.. at the end of the stem', `${UUID}...zip`],
    ['dot-dot alone', '...zip'],
    ['an encoded slash', `..%2f${UUID}.zip`],
    ['an encoded backslash', `x%5C${UUID}.zip`],
    ['encoded dots', `%2e%2e.zip`],
    ['double-encoded dots', `%252e%252e.zip`],
    ['quadruple-encoded dots', `%2525252e%2525252e.zip`],
    ['double-encoded slash', `a%252fb.zip`],
    ['a uuid then an encoded traversal', `${UUID}%2f..%2f${UUID}.zip`],
  ])('%s → PATH_TRAVERSAL', (_what, name) => {
    expectCode(name, 'PATH_TRAVERSAL');
  });

  test('every lexical traversal payload with .zip is refused, never taken for a pack', () => {
    for (const payload of LEXICAL_PAYLOADS) {
      const name = `${payload}.zip`;
      const error = refusal(name);
      expect({ name: name.slice(0, 120), code: error.errorCode }).toEqual({
        name: name.slice(0, 120),
        code: expect.stringMatching(/^(PATH_TRAVERSAL|RESOURCE_PACK_NOT_FOUND)$/) as unknown as string,
      });
      // A payload with a literal separator or dot-dot in it is a traversal, not merely unknown.
      if (/[/\\]|\.\./.test(payload)) expect({ name: name.slice(0, 120), code: error.errorCode }).toEqual({ name: name.slice(0, 120), code: 'PATH_TRAVERSAL' });
    }
  });

  test('a message never echoes a long name whole', () => {
    const name = `${'a/'.repeat(2100)}x.zip`;
    expect(refusal(name).message.length).toBeLessThan(300);
  });
});

describe('a large pack to many clients at once (the responder in a process of its own, its peak resident set read from /proc)', () => {
  test('20 parallel downloads of 50 MiB: every body is intact and the server streams (its peak stays flat)', async () => {
    const path = join(temp.dir, 'large.zip');
    const writer = Bun.file(path).writer();
    const hasher = new Bun.CryptoHasher('sha1');
    for (let i = 0; i < 50; i++) {
      const chunk = new Uint8Array(randomBytes(1024 * 1024));
      hasher.update(chunk);
      writer.write(chunk);
    }
    await writer.end();
    const sha1 = hasher.digest('hex');
    const server = await startChildServer(join(import.meta.dir, '../../fixtures/pack-server.ts'), [temp.dir]);
    try {
      const url = `${server.url}/download?path=${encodeURIComponent(path)}&sha1=${sha1}`;
      expect((await fetch(url, { headers: { range: 'bytes=0-9' } })).status).toBe(206);
      server.markBaseline();
      const download = async (i: number) => {
        // Half ask for several ranges, which the server ignores: that path streams the file too.
        const response = await fetch(url, { headers: i % 2 === 0 ? {} : { range: 'bytes=0-9,20-29' } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-length')).toBe(String(50 * 1024 * 1024));
        const digest = new Bun.CryptoHasher('sha1');
        let received = 0;
        for await (const part of response.body!) {
          digest.update(part);
          received += part.length;
        }
        return { received, sha1: digest.digest('hex') };
      };
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => download(i)));
      for (const result of results) expect(result).toEqual({ received: 50 * 1024 * 1024, sha1 });
      // A server that read each file into memory would peak past 1 GiB (20 × 50 MiB).
      expect(server.peakGrowthMiB()).toBeLessThan(64);
    } finally {
      await server.stop();
    }
  }, 30_000);
});
