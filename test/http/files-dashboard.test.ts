/**
 * The dashboard's file browser against the files API, every request replayed as the dashboard
 * builds it (components/file-browser.tsx, file-image-preview.tsx, lib/api.ts):
 *
 *   editor     apiFetch GET …/{path}: Authorization + Content-Type: application/json, reads {content}
 *   download   fetch GET …/{path}: Authorization only, saves res.blob()
 *   preview    the same plain GET, shows res.blob() as an <img>
 *   New Folder apiFetch POST …/{path}?mkdir: Content-Type: application/json and no body
 *   upload     XHR POST …/{dir}/ (trailing slash), multipart "file"
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectErrorBody, readJson, startController, type TestController } from '../support/controller';
import { rawRequest } from '../support/raw-http';
import { TINY_PNG } from '../fixtures/tiny-png';

const c: TestController = await startController();
afterAll(() => c.stop());
const { templates } = c.controller.kernel.paths;

mkdirSync(join(templates, 'lobby/plugins'), { recursive: true });
writeFileSync(join(templates, 'lobby/server.properties'), 'motd=Hello\n');
writeFileSync(join(templates, 'lobby/config.json'), '{"a": 1}\n');
writeFileSync(join(templates, 'lobby/banner.png'), TINY_PNG);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n';
writeFileSync(join(templates, 'lobby/logo.svg'), SVG);
const EMPTY_PNG = 'empty.png';
writeFileSync(join(templates, `lobby/${EMPTY_PNG}`), '');
const LEVEL = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
writeFileSync(join(templates, 'lobby/level.dat'), LEVEL);
const LATIN1 = Buffer.from([0x6d, 0x6f, 0x74, 0x64, 0x3a, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]); // "motd: café" in Latin-1
writeFileSync(join(templates, 'lobby/messages.yml'), LATIN1);
const ODD_NAME = 'Bild "ä" (1).png';
writeFileSync(join(templates, `lobby/${ODD_NAME}`), TINY_PNG);

/** What apiFetch sends (lib/api.ts buildRequest): JSON content type on every request, GET included. */
const apiFetch = (path: string, init: RequestInit = {}) => c.api(path, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
/** What the Download button and the image preview send: the token, nothing else. */
const plainFetch = (path: string) => c.api(path);

async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  const body = await expectErrorBody(res);
  expect(body.error).toBe(code);
  return body.message;
}

async function expectRaw(res: Response, bytes: Uint8Array, type: string, name: string): Promise<void> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toStartWith(type);
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${name}"; filename*=UTF-8''${name}`);
  expect(res.headers.get('content-length')).toBe(String(bytes.length));
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('vary')).toBe('Origin, Accept');
  expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
}

describe('GET a file, as the dashboard asks', () => {
  test('the editor gets JSON {scope, path, content, size} for a text file', async () => {
    for (const [file, text] of [
      ['server.properties', 'motd=Hello\n'],
      ['config.json', '{"a": 1}\n'],
    ] as const) {
      const res = await apiFetch(`/api/files/templates/lobby/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toStartWith('application/json');
      expect(res.headers.get('vary')).toBe('Origin, Accept');
      const body = await readJson(res);
      expect(body).toMatchObject({ scope: 'templates', path: `lobby/${file}`, content: text, size: text.length, encoding: 'utf8' });
      expect(typeof body.scope).toBe('string');
      expect(typeof body.path).toBe('string');
      expect(typeof body.content).toBe('string');
      expect(Number.isInteger(body.size)).toBe(true);
    }
  });

  test('Download and image preview of a PNG get its bytes, typed image/png, as an attachment', async () => {
    await expectRaw(await plainFetch('/api/files/templates/lobby/banner.png'), TINY_PNG, 'image/png', 'banner.png');
    // The editor's headers change nothing for a binary file: the file decides.
    await expectRaw(await apiFetch('/api/files/templates/lobby/banner.png'), TINY_PNG, 'image/png', 'banner.png');
  });

  test('an svg is an image: previewed from its bytes, not JSON, though it is UTF-8 text', async () => {
    await expectRaw(await plainFetch('/api/files/templates/lobby/logo.svg'), new TextEncoder().encode(SVG), 'image/svg+xml', 'logo.svg');
  });

  test('binary by name (an empty .png, a .dat) or by content (a Latin-1 .yml) is raw', async () => {
    await expectRaw(await plainFetch(`/api/files/templates/lobby/${EMPTY_PNG}`), new Uint8Array(0), 'image/png', EMPTY_PNG);
    await expectRaw(await plainFetch('/api/files/templates/lobby/level.dat'), LEVEL, 'application/octet-stream', 'level.dat');
    const yml = await plainFetch('/api/files/templates/lobby/messages.yml');
    expect(yml.status).toBe(200);
    expect(yml.headers.get('content-disposition')).toStartWith('attachment;');
    expect(new Uint8Array(await yml.arrayBuffer())).toEqual(new Uint8Array(LATIN1));
  });

  test('a text file downloaded with the plain GET is JSON (as the reference answers); ?raw=1 gives its bytes', async () => {
    const json = await plainFetch('/api/files/templates/lobby/server.properties');
    expect((await readJson(json)).content).toBe('motd=Hello\n');
    await expectRaw(await plainFetch('/api/files/templates/lobby/server.properties?raw=1'), new TextEncoder().encode('motd=Hello\n'), 'application/octet-stream', 'server.properties');
  });

  test('the download is readable cross-origin: the dashboard origin is allowed, and caches vary on Origin and Accept', async () => {
    const res = await c.api('/api/files/templates/lobby/banner.png', { headers: { origin: 'http://localhost:3000' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('vary')).toBe('Origin, Accept');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(TINY_PNG))).toBe(true);
  });

  test('a name with quotes, spaces and non-ASCII: an ASCII fallback and the exact name in filename*', async () => {
    const res = await plainFetch(`/api/files/templates/lobby/${encodeURIComponent(ODD_NAME)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Bild ___ (1).png"; filename*=UTF-8''Bild%20%22%C3%A4%22%20%281%29.png`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(TINY_PNG);
  });

  test('a directory is still a listing; a missing file 404; traversal refused', async () => {
    const list = await readJson(await plainFetch('/api/files/templates/lobby'));
    expect(list.entries.map((e: { name: string }) => e.name)).toContain('banner.png');
    await expectError(await plainFetch('/api/files/templates/lobby/missing.png'), 404, 'PATH_NOT_FOUND');
    await expectError(await plainFetch('/api/files/templates/lobby/..%2f..%2fsecret.png'), 400, 'PATH_TRAVERSAL');
    await expectError(await plainFetch('/api/files/templates/lobby/banner.png?raw=yes'), 400, 'VALIDATION_FAILED');
  });
});

describe('New Folder: POST …?mkdir', () => {
  test('the dashboard request (JSON content type, no body) creates the directory: 201 and the creation answer', async () => {
    const res = await apiFetch('/api/files/templates/lobby/plugins/NewFolder?mkdir', { method: 'POST' });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body).toEqual({ success: true, message: 'created directory lobby/plugins/NewFolder', scope: 'templates', path: 'lobby/plugins/NewFolder' });
    expect(statSync(join(templates, 'lobby/plugins/NewFolder')).isDirectory()).toBe(true);
  });

  test('?mkdir with {} or {"type":"directory"}, ?mkdir=1, and {"type":"directory"} alone all create', async () => {
    const cases: [string, RequestInit][] = [
      ['/api/files/templates/lobby/a?mkdir', { body: '{}' }],
      ['/api/files/templates/lobby/b?mkdir', { body: '{"type":"directory"}' }],
      ['/api/files/templates/lobby/c?mkdir=1', {}],
      ['/api/files/templates/lobby/d', { body: '{"type":"directory"}' }],
    ];
    for (const [path, init] of cases) {
      const res = await apiFetch(path, { method: 'POST', ...init });
      expect({ path, status: res.status }).toEqual({ path, status: 201 });
    }
    for (const name of ['a', 'b', 'c', 'd']) expect(statSync(join(templates, 'lobby', name)).isDirectory()).toBe(true);
    // No content type at all (a bare POST) works too.
    expect((await c.api('/api/files/templates/lobby/e?mkdir', { method: 'POST' })).status).toBe(201);
  });

  test('refusals: existing, missing parent, the root, a body that is not a directory, a file with ?mkdir, a bad value, groups, traversal', async () => {
    await expectError(await apiFetch('/api/files/templates/lobby/plugins/NewFolder?mkdir', { method: 'POST' }), 409, 'VALIDATION_FAILED');
    await expectError(await apiFetch('/api/files/templates/lobby/banner.png?mkdir', { method: 'POST' }), 409, 'VALIDATION_FAILED');
    expect(await expectError(await apiFetch('/api/files/templates/nope/x?mkdir', { method: 'POST' }), 404, 'PATH_NOT_FOUND')).toContain('parent');
    await expectError(await apiFetch('/api/files/templates?mkdir', { method: 'POST' }), 409, 'VALIDATION_FAILED');
    await expectError(await apiFetch('/api/files/templates/lobby/f?mkdir', { method: 'POST', body: '{"type":"file"}' }), 400, 'VALIDATION_FAILED');
    await expectError(await apiFetch('/api/files/templates/lobby/f?mkdir', { method: 'POST', body: '[]' }), 400, 'VALIDATION_FAILED');
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    await expectError(await c.api('/api/files/templates/lobby/f?mkdir', { method: 'POST', body: form }), 400, 'VALIDATION_FAILED');
    expect(await expectError(await apiFetch('/api/files/templates/lobby/f?mkdir=yes', { method: 'POST' }), 400, 'VALIDATION_FAILED')).toContain('"mkdir"');
    expect(existsSync(join(templates, 'lobby/f'))).toBe(false);
    expect(existsSync(join(templates, 'lobby/x.txt'))).toBe(false);
    await expectError(await apiFetch('/api/files/groups/New?mkdir', { method: 'POST' }), 403, 'READ_ONLY');
    const auth = { authorization: `Bearer ${c.master}`, 'content-type': 'application/json' };
    for (const target of ['/api/files/templates/..%2fescaped?mkdir', '/api/files/templates/lobby/%2e%2e%2f%2e%2e%2fescaped?mkdir', '/api/files/templates/lobby/..%5c..%5cescaped?mkdir']) {
      const res = await rawRequest(c.controller.port, { method: 'POST', target, headers: auth });
      expect({ target, status: res.status, code: (JSON.parse(res.text) as { error: string }).error }).toEqual({ target, status: 400, code: 'PATH_TRAVERSAL' });
    }
    expect(readdirSync(c.dir)).not.toContain('escaped');
    expect(readdirSync(templates)).not.toContain('escaped');
  });

  test('auth: 401 without a token, 403 for a files:read JWT', async () => {
    await expectError(await c.api('/api/files/templates/lobby/g?mkdir', { method: 'POST', token: null }), 401, 'UNAUTHORIZED');
    const reader = (await c.controller.kernel.auth.mintJwt('dashboard', ['files:read'], 600)).token;
    await expectError(await c.api('/api/files/templates/lobby/g?mkdir', { method: 'POST', token: reader }), 403, 'FORBIDDEN');
    expect(existsSync(join(templates, 'lobby/g'))).toBe(false);
  });
});

test('upload as the dashboard sends it: multipart "file" to the directory with a trailing slash', async () => {
  const form = new FormData();
  form.append('file', new Blob([TINY_PNG]), 'uploaded.png');
  const res = await c.api('/api/files/templates/lobby/', { method: 'POST', body: form });
  expect(res.status).toBe(201);
  await expectRaw(await plainFetch('/api/files/templates/lobby/uploaded.png'), TINY_PNG, 'image/png', 'uploaded.png');
});

test('the OpenAPI document: GET answers JSON or the bytes; POST takes ?mkdir', async () => {
  const doc = await readJson(await c.api('/api/openapi.json'));
  const get = doc.paths['/api/files/{scope}/{path}'].get;
  expect(Object.keys(get.responses['200'].content).sort()).toEqual(['application/json', 'application/octet-stream']);
  expect(get.summary).toContain('Content-Disposition: attachment');
  const post = doc.paths['/api/files/{scope}/{path}'].post;
  expect(post.parameters.map((p: { name: string }) => p.name)).toContain('mkdir');
  expect(post.summary).toContain('?mkdir');
});
