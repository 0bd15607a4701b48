/**
 * The public pack download through a real controller (`GET /api/resourcepacks/files/<uuid>.zip`,
 * no token): the exact bytes with the headers a client and a cache need, conditional and range
 * requests, what is not found (a URL pack, an unknown uuid, a file gone from disk — each with
 * the error body, where the reference sent a bare 404), and traversal names sent raw over TCP
 * (fetch would normalise `..`), none of which reaches a file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resourcePacksModule } from '../../../src/modules/resourcepacks';
import type { PackView } from '../../../src/modules/resourcepacks/model';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { rawRequest, type RawResponse } from '../../support/raw-http';
import { LEXICAL_PAYLOADS } from '../../support/traversal-corpus';
import { buildZip, packMcmeta, sha1Hex } from './zip-fixture';

let c: TestController;
let port: number;
let zip: Uint8Array<ArrayBuffer>;
let pack: PackView;
/** What a file planted where a traversal would land holds; no response may contain it. */
const PLANTED = 'PLANTED-OUTSIDE-THE-PACK-DIRECTORY';

beforeAll(async () => {
  c = await startController({ modules: [resourcePacksModule] });
  port = Number(new URL(c.url).port);
  // A few KiB over several entries, so ranges have something to cut.
  zip = buildZip([
    { name: 'pack.mcmeta', content: packMcmeta('download test') },
    { name: 'assets/minecraft/lang/en_us.json', content: JSON.stringify(Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`key.${i}`, `value ${i}`]))) },
  ]);
  pack = await upload(zip, 'Download');
  // Lures one and two levels above the pack directory, named as `../<x>.zip` would resolve.
  for (const dir of [join(c.dir, 'data'), c.dir]) {
    for (const name of ['secret.txt.zip', 'passwd.zip', 'x.zip', '..zip', 'c:.zip']) writeFileSync(join(dir, name), PLANTED);
  }
});
afterAll(() => c.stop());

async function upload(bytes: Uint8Array<ArrayBuffer>, name: string): Promise<PackView> {
  const res = await c.api(`/api/resourcepacks/upload?name=${name}`, { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
  expect(res.status).toBe(201);
  return (await readJson(res)) as PackView;
}

const fileUrl = (name: string) => `/api/resourcepacks/files/${name}`;
const download = (name: string, headers: Record<string, string> = {}) => c.api(fileUrl(name), { token: null, headers });

async function notFound(res: Response): Promise<string> {
  const body = await expectErrorBody(res);
  expect({ status: res.status, error: body.error }).toEqual({ status: 404, error: 'RESOURCE_PACK_NOT_FOUND' });
  return body.message;
}

describe('GET /api/resourcepacks/files/<uuid>.zip', () => {
  test('no token: 200, the exact bytes, application/zip, Content-Length, Cache-Control, ETag of the SHA-1', async () => {
    const res = await download(`${pack.packUuid}.zip`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect({
      status: res.status,
      type: res.headers.get('content-type'),
      length: res.headers.get('content-length'),
      cache: res.headers.get('cache-control'),
      etag: res.headers.get('etag'),
    }).toEqual({ status: 200, type: 'application/zip', length: String(zip.length), cache: 'public, max-age=3600', etag: `"${sha1Hex(zip)}"` });
    expect(bytes).toEqual(zip);
    expect(sha1Hex(bytes)).toBe(pack.sha1Hash);
  });

  test('the pack url as registered (relative to the API) is the download', async () => {
    expect(pack.url).toBe(fileUrl(`${pack.packUuid}.zip`));
    const res = await c.api(pack.url, { token: null });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(zip);
  });

  test('the uuid in upper case names the same pack', async () => {
    const res = await download(`${pack.packUuid.toUpperCase()}.zip`);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(zip);
  });

  test('If-None-Match with the ETag (strong, weak or in a list) → 304 without a body; another tag → 200', async () => {
    const etag = `"${pack.sha1Hash}"`;
    for (const header of [etag, `W/${etag}`, `"0000000000000000000000000000000000000000", ${etag}`, '*']) {
      const res = await download(`${pack.packUuid}.zip`, { 'if-none-match': header });
      expect({ header, status: res.status, etag: res.headers.get('etag'), body: await res.text() }).toEqual({ header, status: 304, etag, body: '' });
    }
    const other = await download(`${pack.packUuid}.zip`, { 'if-none-match': '"0000000000000000000000000000000000000000"' });
    expect(other.status).toBe(200);
    expect(new Uint8Array(await other.arrayBuffer())).toEqual(zip);
  });

  test('Range bytes=0-9 → 206 with those ten bytes; a suffix range → the tail; past the end → 416 with the error body', async () => {
    const first = await download(`${pack.packUuid}.zip`, { range: 'bytes=0-9' });
    expect({ status: first.status, range: first.headers.get('content-range'), length: first.headers.get('content-length') }).toEqual({
      status: 206,
      range: `bytes 0-9/${zip.length}`,
      length: '10',
    });
    expect(new Uint8Array(await first.arrayBuffer())).toEqual(zip.slice(0, 10));

    const tail = await download(`${pack.packUuid}.zip`, { range: 'bytes=-22' });
    expect({ status: tail.status, range: tail.headers.get('content-range') }).toEqual({ status: 206, range: `bytes ${zip.length - 22}-${zip.length - 1}/${zip.length}` });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(zip.slice(zip.length - 22));

    const past = await download(`${pack.packUuid}.zip`, { range: `bytes=${zip.length}-` });
    expect({ status: past.status, range: past.headers.get('content-range') }).toEqual({ status: 416, range: `bytes */${zip.length}` });
    await expectErrorBody(past);
  });

  test('a URL pack has no file here: 404 RESOURCE_PACK_NOT_FOUND', async () => {
    const res = await c.api('/api/resourcepacks', { method: 'POST', json: { name: 'Elsewhere', url: 'https://cdn.example.com/e.zip', sha1Hash: 'b'.repeat(40) } });
    const remote = (await readJson(res)) as PackView;
    await notFound(await download(`${remote.packUuid}.zip`));
  });

  test('an unknown uuid, a name without .zip, and .ZIP are 404 with the error body', async () => {
    await notFound(await download('6b1f0e0c-1f4a-4c8e-9d7a-2a3b4c5d6e7f.zip'));
    await notFound(await download(pack.packUuid));
    await notFound(await download(`${pack.packUuid}.ZIP`));
    await notFound(await download(`${pack.packUuid}.zip.part`));
    await notFound(await download('not-a-uuid.zip'));
  });

  test('a file removed behind the controller’s back → 404 whose message says it is missing', async () => {
    const doomed = await upload(buildZip(), 'Vanishing');
    expect((await download(`${doomed.packUuid}.zip`)).status).toBe(200);
    rmSync(join(c.dir, 'data', 'resourcepacks', `${doomed.packUuid}.zip`));
    const message = await notFound(await download(`${doomed.packUuid}.zip`));
    expect(message).toContain('missing');
    expect(message).toContain('Vanishing');
  });

  test('a deleted pack’s file is not served any more', async () => {
    const gone = await upload(buildZip(), 'Deleted');
    expect((await c.api(`/api/resourcepacks/${gone.id}`, { method: 'DELETE' })).status).toBe(200);
    await notFound(await download(`${gone.packUuid}.zip`));
  });
});

describe('traversal names over raw HTTP', () => {
  const FILES = '/api/resourcepacks/files/';
  /**
   * Whether the request still targets the download route once the URL standard has resolved
   * its dot segments and backslashes (as Bun does before routing): `files/../x.zip` is a request
   * for `/api/resourcepacks/x.zip`, another route, which answers for itself (401 without a
   * token, 404 where nothing is routed). Either way no file under the pack directory is named.
   */
  const onDownloadRoute = (target: string) => {
    const path = new URL(target, 'http://127.0.0.1').pathname;
    return path.startsWith(FILES) && !path.slice(FILES.length).includes('/');
  };

  /** What is wrong with the answer to this request, or null. */
  function judge(target: string, res: RawResponse): string | null {
    const where = `${target.slice(FILES.length, FILES.length + 80)} → ${res.status} ${res.text.slice(0, 160)}`;
    if (res.text.includes(PLANTED)) return `LEAK: ${where}`;
    if (res.status === 200 || res.status === 206 || res.status >= 500) return `not refused: ${where}`;
    let body: { success?: unknown; error?: unknown; message?: unknown };
    try {
      body = JSON.parse(res.text) as typeof body;
    } catch {
      return `not the error body: ${where}`;
    }
    if (body.success !== false || typeof body.message !== 'string' || typeof body.error !== 'string') return `not the error body: ${where}`;
    const allowed = !onDownloadRoute(target)
      ? ['400 PATH_TRAVERSAL', '401 UNAUTHORIZED', '404 ROUTE_NOT_FOUND', '404 RESOURCE_PACK_NOT_FOUND']
      : escapes(target)
        ? ['400 PATH_TRAVERSAL']
        : // The route's parameter bound: a name over 256 characters is no pack file name either.
          ['404 RESOURCE_PACK_NOT_FOUND', ...(decodedForms(nameOf(target)).some((form) => form.length > 256) ? ['400 VALIDATION_FAILED'] : [])];
    return allowed.includes(`${res.status} ${body.error}`) ? null : `unexpected ${res.status} ${body.error}: ${where}`;
  }

  /** The file name as the route sees it: the last segment of the resolved path. */
  const nameOf = (target: string) => new URL(target, 'http://127.0.0.1').pathname.slice(FILES.length);

  /** The name and each further percent-decoded form of it (an attacker may encode many times). */
  function decodedForms(name: string): string[] {
    const forms = [name];
    for (;;) {
      let next: string;
      try {
        next = decodeURIComponent(forms.at(-1)!);
      } catch {
        return forms;
      }
      if (next === forms.at(-1)) return forms;
      forms.push(next);
    }
  }

  /** Spec download rule 2: a name whose stem holds `/`, `\` or `..` in any decoded form is PATH_TRAVERSAL. */
  const escapes = (target: string) =>
    decodedForms(nameOf(target))
      .map((form) => (form.endsWith('.zip') ? form.slice(0, -'.zip'.length) : form))
      .some((stem) => stem.includes('/') || stem.includes('\\') || stem.includes('..'));

  test('every lexical payload with .zip appended is 400 PATH_TRAVERSAL or 404, never 200 or 500, and leaks nothing', async () => {
    // Spaces cannot travel in a request line; they are sent encoded, as a client would.
    const payloads = [...new Set(LEXICAL_PAYLOADS.map((p) => p.replaceAll(' ', '%20')))];
    const problems: string[] = [];
    const codes = new Map<string, number>();
    let handled = 0;
    for (const payload of payloads) {
      const target = `${FILES}${payload}.zip`;
      const res = await rawRequest(port, { method: 'GET', target });
      const problem = judge(target, res);
      if (problem) problems.push(problem);
      if (onDownloadRoute(target)) handled += 1;
      codes.set(`${res.status}`, (codes.get(`${res.status}`) ?? 0) + 1);
    }
    expect(problems).toEqual([]);
    // A good part of the corpus (the encoded escapes, which survive the URL standard) reaches
    // the download handler itself: this tests its refusals, not only routing.
    expect(handled).toBeGreaterThan(payloads.length / 3);
    expect(codes.get('400') ?? 0).toBeGreaterThan(payloads.length / 4);
  });

  test('a traversal around a real pack uuid is still refused', async () => {
    for (const target of [`../resourcepacks/${pack.packUuid}`, `..%2fresourcepacks%2f${pack.packUuid}`, `%2e%2e%5c${pack.packUuid}`, `x%252f..%252f${pack.packUuid}`]) {
      const full = `${FILES}${target}.zip`;
      const res = await rawRequest(port, { method: 'GET', target: full });
      expect({ target, problem: judge(full, res) }).toEqual({ target, problem: null });
    }
  });
});
