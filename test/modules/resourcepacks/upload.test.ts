import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, readSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Server } from 'bun';
import { ApiError, errorBody } from '../../../src/errors';
import { diskError, receiveBody } from '../../../src/core/modpacks/receive-body';
import { receivePack, sweepPartFiles, type ReceivedPack } from '../../../src/modules/resourcepacks/upload';
import { startChildServer, type ChildServer } from '../../support/child-memory';
import { expectErrorBody, readJson, tempDir, waitFor } from '../../support/controller';
import { hex, writeStoredZip, zipOf } from '../../fixtures/modpack-zip';

/** What the receiver answered, as the server saw it (a client that hung up sees nothing). */
type Outcome = { declared: string | null } & ({ ok: true; pack: ReceivedPack } | { ok: false; status: number; error: string; message: string });

const MiB = 1024 * 1024;
const PACK_SERVER = join(import.meta.dir, '../../fixtures/pack-server.ts');
const temp = tempDir('svc-rp-upload-');
let server: Server<undefined>;
let dir: string;
let maxBytes: number;
let cases = 0;
const outcomes: Outcome[] = [];

beforeAll(() => {
  // Requests come through a real socket, as in production, with Bun's own body ceiling out of the way.
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    maxRequestBodySize: 1024 * MiB,
    fetch: async (request) => {
      const uuid = new URL(request.url).searchParams.get('uuid') ?? randomUUID();
      const declared = request.headers.get('content-length');
      try {
        const pack = await receivePack(request, dir, uuid, maxBytes);
        outcomes.push({ declared, ok: true, pack });
        return Response.json(pack, { status: 201 });
      } catch (error) {
        const status = error instanceof ApiError ? error.status : 500;
        const code = error instanceof ApiError ? error.errorCode : 'INTERNAL_ERROR';
        outcomes.push({ declared, ok: false, status, error: code, message: (error as Error).message });
        return Response.json(errorBody(code, (error as Error).message), { status });
      }
    },
  });
});

afterAll(() => {
  server.stop(true);
  temp.remove();
});

beforeEach(() => {
  // A directory that does not exist yet: the receiver makes it.
  dir = join(temp.dir, `case-${++cases}`, 'resourcepacks');
  maxBytes = MiB;
  outcomes.length = 0;
});

const post = (uuid: string, body: Uint8Array | ReadableStream<Uint8Array> | Blob, headers: Record<string, string> = {}) =>
  fetch(`${server.url}?uuid=${uuid}`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream', ...headers } });

const smallPack = () => zipOf({ 'pack.mcmeta': '{"pack":{"pack_format":15,"description":"test"}}', 'assets/minecraft/blob.bin': randomBytes(20_000) }, 0);

/** The names in `dir`, sorted; [] when it does not exist. */
const listing = (path = dir) => (existsSync(path) ? readdirSync(path).sort() : []);

/** Writes raw HTTP on a socket, then half-closes it; resolves with whatever the server answered. */
function rawRequest(head: string, body: Uint8Array | null): Promise<string> {
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    const socket = connect(server.port!, '127.0.0.1', () => {
      socket.write(head);
      if (body) socket.write(body);
      socket.end();
    });
    socket.on('data', (data: Buffer) => received.push(data));
    socket.on('close', () => resolve(Buffer.concat(received).toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
  });
}

async function expectRefused(res: Response, status: number, error: string, message: RegExp): Promise<void> {
  expect(res.status).toBe(status);
  const body = await expectErrorBody(res);
  expect(body.error).toBe(error);
  expect(body.message).toMatch(message);
}

describe('a valid zip', () => {
  test('is written to <uuid>.zip with its SHA-1 and size, in a directory made 0750, and no part file stays', async () => {
    const bytes = smallPack();
    const uuid = randomUUID();
    const res = await post(uuid, bytes);
    expect(res.status).toBe(201);
    const pack = (await readJson(res)) as ReceivedPack;
    expect(pack).toEqual({ file: join(dir, `${uuid}.zip`), sha1: hex('sha1', bytes), size: bytes.length });
    expect(pack.sha1).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(pack.file).equals(bytes)).toBe(true);
    expect(listing()).toEqual([`${uuid}.zip`]);
    expect(statSync(dir).mode & 0o777).toBe(0o750 & ~process.umask());
    expect(statSync(pack.file).mode & 0o777).toBe(0o640 & ~process.umask());
    expect(outcomes[0]!.declared).toBe(String(bytes.length));
  });

  test('arrives whole through chunked transfer encoding (no Content-Length)', async () => {
    const bytes = smallPack();
    const uuid = randomUUID();
    const thirds = [bytes.subarray(0, 7000), bytes.subarray(7000, 15_000), bytes.subarray(15_000)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = thirds.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const res = await post(uuid, stream);
    expect(res.status).toBe(201);
    expect(outcomes[0]!.declared).toBeNull();
    expect(statSync(join(dir, `${uuid}.zip`)).mode & 0o777).toBe(0o640 & ~process.umask());
    expect(await readJson(res)).toEqual({ file: join(dir, `${uuid}.zip`), sha1: hex('sha1', bytes), size: bytes.length });
    expect(readFileSync(join(dir, `${uuid}.zip`)).equals(bytes)).toBe(true);
    expect(listing()).toEqual([`${uuid}.zip`]);
  });

  test('with the longest comment a zip may carry (65,535 bytes) is still found to be a zip', async () => {
    const bytes = withComment(smallPack(), 0xffff);
    const res = await post(randomUUID(), bytes);
    expect(res.status).toBe(201);
    expect((await readJson(res)).sha1).toBe(hex('sha1', bytes));
  });

  test('never replaces a file already at <uuid>.zip', async () => {
    const uuid = randomUUID();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${uuid}.zip`), 'the pack that was there');
    await expectRefused(await post(uuid, smallPack()), 409, 'RESOURCE_PACK_ALREADY_EXISTS', /already exists/);
    expect(readFileSync(join(dir, `${uuid}.zip`), 'utf8')).toBe('the pack that was there');
    expect(listing()).toEqual([`${uuid}.zip`]);
  });
});

describe('the size limit', () => {
  test('a Content-Length over the limit is 413 before any of the body is read, and nothing is written', async () => {
    // The head promises a gigabyte and no body follows: only a receiver that refuses up front answers.
    const answer = await rawRequest(`POST /?uuid=${randomUUID()} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${1024 * MiB}\r\n\r\n`, null);
    expect(answer).toStartWith('HTTP/1.1 413');
    expect(answer).toContain('"error":"PAYLOAD_TOO_LARGE"');
    expect(outcomes).toHaveLength(1);
    expect(existsSync(dir)).toBe(false);
  });

  test('a fetch with a body one byte over the limit gets 413', async () => {
    maxBytes = 4096;
    const bytes = zipOf({ 'a.bin': randomBytes(4096) }, 0);
    await expectRefused(await post(randomUUID(), bytes), 413, 'PAYLOAD_TOO_LARGE', /exceeds the limit of 4096 bytes/);
    expect(listing()).toEqual([]);
  });

  test('a chunked body is stopped as soon as it passes the limit, and nothing is left', async () => {
    maxBytes = 256 * 1024;
    const total = 64 * MiB;
    let sent = 0;
    const piece = new Uint8Array(64 * 1024).fill(7);
    piece.set([0x50, 0x4b, 0x03, 0x04]);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= total) return controller.close();
        sent += piece.length;
        controller.enqueue(piece);
      },
    });
    const res = await post(randomUUID(), stream).catch((error: Error) => error);
    await waitFor(() => outcomes.length === 1, { what: 'the receiver to give up' });
    const outcome = outcomes[0]!;
    expect(outcome).toMatchObject({ ok: false, status: 413, error: 'PAYLOAD_TOO_LARGE', declared: null });
    // Bun's client may still be writing when the answer comes; when it reads it, it is the 413.
    if (res instanceof Response) await expectRefused(res, 413, 'PAYLOAD_TOO_LARGE', /exceeds the limit/);
    expect(sent).toBeLessThan(total);
    expect(listing()).toEqual([]);
  });
});

describe('a body that is not a zip is 422 and leaves nothing', () => {
  const cases: Array<[string, () => Uint8Array, RegExp]> = [
    ['random bytes', () => randomBytes(10_000), /not a zip file: it does not start with a local file header/],
    ['an empty body', () => new Uint8Array(0), /not a zip file: the body is empty/],
    ['a zip cut before its end-of-central-directory record', () => smallPack().slice(0, -22), /not a zip file: it has no end-of-central-directory record/],
    ['an end-of-central-directory record with no local header (an empty zip)', () => zipOf({}), /not a zip file: it does not start with a local file header/],
    ['a zip with 65,536 bytes after its record (past where a comment can reach)', () => concat(smallPack(), new Uint8Array(0x10000)), /no end-of-central-directory record \(PK\\x05\\x06\) in its last 65557 bytes/],
  ];
  for (const [what, body, message] of cases) {
    test(what, async () => {
      const uuid = randomUUID();
      await expectRefused(await post(uuid, body()), 422, 'RESOURCE_PACK_UPLOAD_FAILED', message);
      expect(listing()).toEqual([]);
    });
  }
});

describe('a client that goes away mid-body', () => {
  test('after half of its Content-Length: "interrupted", and nothing is left in the directory', async () => {
    const bytes = zipOf({ 'big.bin': randomBytes(400_000) }, 0);
    const uuid = randomUUID();
    const head = `POST /?uuid=${uuid} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes.length}\r\n\r\n`;
    await rawRequest(head, bytes.subarray(0, bytes.length >> 1));
    await waitFor(() => outcomes.length === 1, { what: 'the receiver to notice the cut' });
    expect(outcomes[0]).toMatchObject({ ok: false, status: 422, error: 'RESOURCE_PACK_UPLOAD_FAILED' });
    expect((outcomes[0] as { message: string }).message).toMatch(/interrupted/);
    expect(listing()).toEqual([]);
  });

  test('in the middle of a chunked body: "interrupted", and nothing is left in the directory', async () => {
    const bytes = smallPack();
    const head = `POST /?uuid=${randomUUID()} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`;
    // One whole chunk, then the connection closes where the next chunk (or the last, empty one) should be.
    const chunk = concat(new TextEncoder().encode(`${bytes.length.toString(16)}\r\n`), bytes, new TextEncoder().encode('\r\n'));
    await rawRequest(head, chunk);
    await waitFor(() => outcomes.length === 1, { what: 'the receiver to notice the cut' });
    expect(outcomes[0]).toMatchObject({ ok: false, status: 422, error: 'RESOURCE_PACK_UPLOAD_FAILED', declared: null });
    expect((outcomes[0] as { message: string }).message).toMatch(/interrupted/);
    expect(listing()).toEqual([]);
  });
});

describe('memory (the receiver in a process of its own, its peak resident set read from /proc)', () => {
  let server: ChildServer;
  beforeAll(async () => {
    server = await startChildServer(PACK_SERVER, [dir]);
  });
  afterAll(() => server.stop());

  /** Uploads `body` to the child; its answer, and the child's peak RSS growth over the upload. */
  async function upload(body: Blob | ReadableStream<Uint8Array>, max: number): Promise<{ pack: ReceivedPack; growthMiB: number }> {
    // One small upload first, so code loaded on first use is in the baseline, not the growth.
    const warm = await fetch(`${server.url}/upload?uuid=${randomUUID()}&max=${max}`, { method: 'POST', body: zipOf({ 'pack.mcmeta': '{}' }, 0) });
    expect(warm.status).toBe(200);
    server.markBaseline();
    const res = await fetch(`${server.url}/upload?uuid=${randomUUID()}&max=${max}`, { method: 'POST', body });
    expect(res.status).toBe(200);
    return { pack: (await res.json()) as ReceivedPack, growthMiB: server.peakGrowthMiB() };
  }

  test('a 64 MiB upload with a Content-Length is written natively: the peak stays flat, and its SHA-1 is right', async () => {
    const source = join(temp.dir, 'big-pack.zip');
    const size = writeStoredZip(source, [{ name: 'pack.mcmeta', size: 100 }, { name: 'assets/blob.bin', size: 64 * MiB }]);
    const { pack, growthMiB } = await upload(Bun.file(source), 128 * MiB);
    // A receiver that held the body, even for a moment, would peak past 64 MiB.
    expect(growthMiB).toBeLessThan(16);
    expect(pack.size).toBe(size);
    expect(pack.sha1).toBe(sha1OfFile(source));
    expect(sha1OfFile(pack.file)).toBe(pack.sha1);
  });

  test('a 192 MiB chunked upload (no Content-Length) peaks far below the body', async () => {
    const source = join(temp.dir, 'big-chunked-pack.zip');
    const size = writeStoredZip(source, [{ name: 'assets/blob.bin', size: 192 * MiB }]);
    const { pack, growthMiB } = await upload(Bun.file(source).stream(), 256 * MiB);
    // Through a JS stream, chunks wait for the collector: about 30 MiB whatever the size
    // (measured up to 500 MiB). A receiver that held the body whole would pass 192 MiB.
    expect(growthMiB).toBeLessThan(64);
    expect(pack.size).toBe(size);
    expect(pack.sha1).toBe(sha1OfFile(source));
  });
});

describe('sweepPartFiles', () => {
  test('removes the *.zip.part files a dead controller left, and nothing else', () => {
    mkdirSync(join(dir, 'kept.zip.part'), { recursive: true }); // a directory by that name is not an upload
    for (const name of ['a.zip.part', 'b.zip.part', 'c.zip', 'd.part', 'e.zip.part.txt', 'notes.txt']) writeFileSync(join(dir, name), name);
    expect(sweepPartFiles(dir)).toBe(2);
    expect(listing()).toEqual(['c.zip', 'd.part', 'e.zip.part.txt', 'kept.zip.part', 'notes.txt']);
    expect(sweepPartFiles(dir)).toBe(0);
  });

  test('finds none in a directory that does not exist', () => {
    expect(sweepPartFiles(join(dir, 'missing'))).toBe(0);
  });
});

describe('receive-body options', () => {
  test('a full disk is 507 with the code and noun the caller passes', async () => {
    const full = await open('/dev/full', 'w');
    try {
      const body = new Blob([new Uint8Array(4096)]).stream();
      const error = await receiveBody(body, full, 0, MiB, null, { errorCode: 'RESOURCE_PACK_UPLOAD_FAILED', noun: 'resource pack' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ errorCode: 'RESOURCE_PACK_UPLOAD_FAILED', status: 507 });
      expect((error as ApiError).message).toBe("no space left on the controller's disk (ENOSPC) while writing the resource pack");
    } finally {
      await full.close();
    }
  });

  test('without options it is still the modpack code and noun', () => {
    const error = diskError(Object.assign(new Error('quota'), { code: 'EDQUOT' }));
    expect(error).toMatchObject({ errorCode: 'MODPACK_UPLOAD_FAILED', status: 507, message: "no space left on the controller's disk (EDQUOT) while writing the modpack" });
  });
});

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The zip with a comment of `length` bytes appended, its length written into the end record. */
function withComment(zip: Uint8Array, length: number): Uint8Array {
  const out = concat(zip, new Uint8Array(length).fill(0x41));
  new DataView(out.buffer).setUint16(zip.length - 2, length, true);
  return out;
}

/** SHA-1 of a file read 4 MiB at a time. */
function sha1OfFile(path: string): string {
  const hasher = new Bun.CryptoHasher('sha1');
  const buffer = Buffer.alloc(4 * MiB);
  const fd = openSync(path, 'r');
  try {
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hasher.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hasher.digest('hex');
}
