import { afterEach, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { downloadBeside, DownloadError, fetchSmallAsset, MAX_BINARY_BYTES } from '../../../src/core/update/download';
import type { ReleaseAsset } from '../../../src/core/update/release';
import { tempDir } from '../../support/controller';
import { serve } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

const UA = 'svc/0.13.0';
const PAYLOAD = randomBytes(300_000);

/** A folder holding the "current binary" the download goes beside. */
function binaryFolder() {
  const temp = tempDir('svc-download-');
  cleanups.push(temp.remove);
  const binary = join(temp.dir, 'svc');
  writeFileSync(binary, 'the current binary');
  return { dir: temp.dir, binary, entries: () => readdirSync(temp.dir).sort() };
}

function server(handler: (request: Request) => Response | Promise<Response>) {
  const s = serve(handler);
  cleanups.push(s.stop);
  return s;
}

const asset = (url: string, size: number, name = 'svc-linux-x64'): ReleaseAsset => ({ name, url, size });

async function downloadError(promise: Promise<unknown>): Promise<DownloadError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DownloadError);
  return error as DownloadError;
}

describe('downloadBeside', () => {
  test('writes a dot-named file beside the binary, owner-only, and returns its SHA-256 and length', async () => {
    const folder = binaryFolder();
    const s = server(() => new Response(PAYLOAD));
    const result = await downloadBeside(folder.binary, asset(`${s.url}/svc`, PAYLOAD.length), { userAgent: UA });
    expect(result.sha256).toBe(new Bun.CryptoHasher('sha256').update(PAYLOAD).digest('hex'));
    expect(result.bytes).toBe(PAYLOAD.length);
    expect(result.path.startsWith(`${folder.dir}/`)).toBe(true);
    expect(basename(result.path)).toMatch(/^\.svc\.download-[0-9a-f]{12}$/);
    expect(Buffer.compare(readFileSync(result.path), PAYLOAD)).toBe(0);
    expect(statSync(result.path).mode & 0o777).toBe(0o700);
    expect(readFileSync(folder.binary, 'utf8')).toBe('the current binary');
    expect(folder.entries()).toEqual([basename(result.path), 'svc'].sort());
    expect(s.requests[0]!.headers['user-agent']).toBe(UA);
    expect(s.requests[0]!.headers.accept).toBe('application/octet-stream');
  });

  test('two downloads beside one binary get different names', async () => {
    const folder = binaryFolder();
    const s = server(() => new Response('twelve bytes'));
    const [a, b] = await Promise.all([downloadBeside(folder.binary, asset(`${s.url}/a`, 12), { userAgent: UA }), downloadBeside(folder.binary, asset(`${s.url}/b`, 12), { userAgent: UA })]);
    expect(a.path).not.toBe(b.path);
    expect(a.sha256).toBe(b.sha256);
  });

  test('a streamed body in many chunks is hashed whole', async () => {
    const folder = binaryFolder();
    const chunks = Array.from({ length: 50 }, () => randomBytes(4093));
    const s = server(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              const chunk = chunks.shift();
              if (chunk) controller.enqueue(chunk);
              else controller.close();
            },
          }),
        ),
    );
    const whole = Buffer.concat(chunks);
    const result = await downloadBeside(folder.binary, asset(`${s.url}/svc`, whole.length), { userAgent: UA });
    expect(result.sha256).toBe(new Bun.CryptoHasher('sha256').update(whole).digest('hex'));
  });

  test('fewer bytes than the release lists: "truncated download", nothing left behind', async () => {
    const folder = binaryFolder();
    const s = server(() => new Response(PAYLOAD.subarray(0, 1000)));
    const error = await downloadError(downloadBeside(folder.binary, asset(`${s.url}/svc`, PAYLOAD.length), { userAgent: UA }));
    expect(error.message).toBe(`svc-linux-x64: truncated download, 1000 of ${PAYLOAD.length} bytes`);
    expect(folder.entries()).toEqual(['svc']);
  });

  test('more bytes than the release lists: refused, nothing left behind', async () => {
    const folder = binaryFolder();
    const s = server(() => new Response(PAYLOAD));
    const error = await downloadError(downloadBeside(folder.binary, asset(`${s.url}/svc`, 1000), { userAgent: UA }));
    expect(error.message).toBe('svc-linux-x64: more than the 1000 bytes the release lists');
    expect(folder.entries()).toEqual(['svc']);
  });

  test('a connection dropped mid-body: refused, nothing left behind', async () => {
    const folder = binaryFolder();
    // A raw HTTP server that promises 100000 bytes, sends 1000 and hangs up.
    const listener = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        data(socket) {
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nContent-Type: application/octet-stream\r\n\r\n${'x'.repeat(1000)}`);
          socket.end();
        },
      },
    });
    cleanups.push(() => listener.stop(true));
    const error = await downloadError(downloadBeside(folder.binary, asset(`http://127.0.0.1:${listener.port}/svc`, 100_000), { userAgent: UA }));
    expect(error.message).toMatch(/^svc-linux-x64: the download broke off after \d+ bytes \(.+\)$/);
    expect(folder.entries()).toEqual(['svc']);
  });

  test('a 404: refused before a file is made', async () => {
    const folder = binaryFolder();
    const s = server(() => new Response('no such asset', { status: 404 }));
    const error = await downloadError(downloadBeside(folder.binary, asset(`${s.url}/svc`, 10), { userAgent: UA }));
    expect(error.message).toBe(`svc-linux-x64: ${s.url}/svc answered 404 Not Found`);
    expect(folder.entries()).toEqual(['svc']);
  });

  test('a server that does not answer', async () => {
    const folder = binaryFolder();
    const s = server(() => new Response('x'));
    s.stop();
    const error = await downloadError(downloadBeside(folder.binary, asset(`${s.url}/svc`, 10), { userAgent: UA }));
    expect(error.message).toStartWith(`svc-linux-x64: ${s.url}/svc did not answer (`);
    expect(folder.entries()).toEqual(['svc']);
  });

  test('a folder that does not exist: "cannot write beside"', async () => {
    const folder = binaryFolder();
    const s = server(() => new Response('0123456789'));
    const missing = join(folder.dir, 'gone', 'svc');
    const error = await downloadError(downloadBeside(missing, asset(`${s.url}/svc`, 10), { userAgent: UA }));
    expect(error.message).toBe(`cannot write beside ${missing}: ENOENT`);
  });

  test.each([0, -1, MAX_BINARY_BYTES + 1, Number.MAX_SAFE_INTEGER])('an implausible listed size (%p) is refused before any request', async (size) => {
    const folder = binaryFolder();
    const s = server(() => new Response('x'));
    const error = await downloadError(downloadBeside(folder.binary, asset(`${s.url}/svc`, size), { userAgent: UA }));
    expect(error.message).toBe(`the release lists svc-linux-x64 as ${size} bytes, which is not a plausible svc binary`);
    expect(s.requests).toHaveLength(0);
    expect(folder.entries()).toEqual(['svc']);
  });
});

describe('fetchSmallAsset', () => {
  test('reads the whole file', async () => {
    const s = server(() => new Response('abc  SHA256SUMS\n'));
    const bytes = await fetchSmallAsset(asset(`${s.url}/SHA256SUMS`, 0, 'SHA256SUMS'), { userAgent: UA });
    expect(new TextDecoder().decode(bytes)).toBe('abc  SHA256SUMS\n');
    expect(s.requests[0]!.headers['user-agent']).toBe(UA);
  });

  test('exactly maxBytes is accepted, one more is refused', async () => {
    const s = server((request) => new Response('x'.repeat(new URL(request.url).pathname === '/ok' ? 100 : 101)));
    expect((await fetchSmallAsset(asset(`${s.url}/ok`, 0, 'SHA256SUMS'), { userAgent: UA, maxBytes: 100 })).length).toBe(100);
    const error = await downloadError(fetchSmallAsset(asset(`${s.url}/big`, 0, 'SHA256SUMS'), { userAgent: UA, maxBytes: 100 }));
    expect(error.message).toBe('SHA256SUMS is larger than the 100 bytes such a file can be');
  });

  test('the default limit is 64 KiB', async () => {
    const s = server(() => new Response(Buffer.alloc(64 * 1024 + 1, 0x41)));
    expect((await downloadError(fetchSmallAsset(asset(`${s.url}/sig`, 0, 'SHA256SUMS.sig'), { userAgent: UA }))).message).toBe("SHA256SUMS.sig is larger than the 65536 bytes such a file can be");
  });

  test('a 404 is a DownloadError naming the asset and the answer', async () => {
    const s = server(() => new Response('nope', { status: 404 }));
    expect((await downloadError(fetchSmallAsset(asset(`${s.url}/SHA256SUMS`, 0, 'SHA256SUMS'), { userAgent: UA }))).message).toBe(`SHA256SUMS: ${s.url}/SHA256SUMS answered 404 Not Found`);
  });

  test('a connection dropped mid-body is a DownloadError', async () => {
    const listener = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        data(socket) {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\nabc');
          socket.end();
        },
      },
    });
    cleanups.push(() => listener.stop(true));
    const error = await downloadError(fetchSmallAsset(asset(`http://127.0.0.1:${listener.port}/SHA256SUMS`, 0, 'SHA256SUMS'), { userAgent: UA }));
    expect(error.message).toMatch(/^SHA256SUMS: (the download broke off|http:\S+ did not answer) \(/);
  });
});
