/** The files API end to end: list, read (text, binary, raw), overwrite, mkdir, upload, delete, read-only groups, auth. */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { multipartBody } from '../../src/cluster/state-sync/multipart-body';
import { MAX_JSON_READ_BYTES, MAX_UPLOAD_BYTES } from '../../src/core/files/file-store';
import { UPLOAD_TEMP_PREFIX } from '../../src/core/files/upload';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

const c: TestController = await startController();
afterAll(() => c.stop());
const { templates, services, config } = c.controller.kernel.paths;
const groups = join(config, 'groups');

mkdirSync(join(templates, 'lobby/plugins/Essentials'), { recursive: true });
mkdirSync(join(templates, 'lobby/world'), { recursive: true });
writeFileSync(join(templates, 'lobby/server.properties'), 'motd=Hello\nmax-players=20\n');
writeFileSync(join(templates, 'lobby/Zeta.txt'), 'z');
writeFileSync(join(templates, 'lobby/alpha.yml'), 'a: 1\n');
const BINARY = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0xfe, 0x80, 0x0a, 0x00]);
writeFileSync(join(templates, 'lobby/plugins/plugin.jar'), BINARY);
writeFileSync(join(templates, 'lobby/latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1: no NUL, not UTF-8
mkdirSync(groups, { recursive: true });
writeFileSync(join(groups, 'Lobby.toml'), 'name = "Lobby"\n');

/** Temp files an upload or write left in a directory. */
const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith(UPLOAD_TEMP_PREFIX) || name.endsWith('.tmp'));

function form(parts: { name: string; value: string | Blob; filename?: string }[]): FormData {
  const data = new FormData();
  for (const part of parts) {
    if (typeof part.value === 'string') data.append(part.name, part.value);
    else data.append(part.name, part.value, part.filename);
  }
  return data;
}

async function expectError(res: Response, status: number, code: string): Promise<string> {
  expect(res.status).toBe(status);
  const body = await expectErrorBody(res);
  expect(body.error).toBe(code);
  return body.message;
}

describe('GET: list and read', () => {
  test('lists a directory: directories first, then files by name, with sizes and ISO times', async () => {
    const res = await c.api('/api/files/templates/lobby');
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.scope).toBe('templates');
    expect(body.path).toBe('lobby');
    expect(body.entries.map((e: { name: string }) => e.name)).toEqual(['plugins', 'world', 'Zeta.txt', 'alpha.yml', 'latin1.txt', 'server.properties']);
    expect(body.total).toBe(6);
    const props = body.entries.find((e: { name: string }) => e.name === 'server.properties');
    expect(props).toEqual({ name: 'server.properties', path: 'lobby/server.properties', isDirectory: false, size: 26, lastModified: statSync(join(templates, 'lobby/server.properties')).mtime.toISOString() });
    expect(body.entries[0]).toMatchObject({ name: 'plugins', path: 'lobby/plugins', isDirectory: true, size: 0 });
  });

  test('the scope root, with or without a trailing slash; a trailing slash on a directory', async () => {
    for (const path of ['/api/files/templates', '/api/files/templates/']) {
      const body = await readJson(await c.api(path));
      expect(body).toMatchObject({ scope: 'templates', path: '' });
      expect(body.entries.map((e: { name: string }) => e.name)).toContain('lobby');
    }
    expect((await readJson(await c.api('/api/files/templates/lobby/'))).path).toBe('lobby');
  });

  test('reads a text file as UTF-8', async () => {
    const body = await readJson(await c.api('/api/files/templates/lobby/server.properties'));
    expect(body).toEqual({
      scope: 'templates',
      path: 'lobby/server.properties',
      content: 'motd=Hello\nmax-players=20\n',
      encoding: 'utf8',
      size: 26,
      lastModified: expect.any(String),
    });
  });

  test('asked for JSON (Accept: application/json or ?raw=0), binary files come as base64, byte for byte (NUL bytes or invalid UTF-8)', async () => {
    const jar = await readJson(await c.api('/api/files/templates/lobby/plugins/plugin.jar', { headers: { accept: 'application/json' } }));
    expect(jar.encoding).toBe('base64');
    expect([...Buffer.from(jar.content, 'base64')]).toEqual([...BINARY]);
    expect(jar.size).toBe(BINARY.length);
    const latin1 = await readJson(await c.api('/api/files/templates/lobby/latin1.txt?raw=0'));
    expect(latin1.encoding).toBe('base64');
    expect(Buffer.from(latin1.content, 'base64').toString('latin1')).toBe('café');
  });

  test('?raw=1 streams the bytes with a content type, as a download', async () => {
    const res = await c.api('/api/files/templates/lobby/plugins/plugin.jar?raw=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('java-archive');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="plugin.jar"; filename*=UTF-8''plugin.jar`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([...BINARY]);
    const yml = await c.api('/api/files/templates/lobby/alpha.yml?raw=true');
    expect(await yml.text()).toBe('a: 1\n');
    // raw=0 is the JSON answer.
    expect((await readJson(await c.api('/api/files/templates/lobby/alpha.yml?raw=0'))).content).toBe('a: 1\n');
    await expectError(await c.api('/api/files/templates/lobby?raw=1'), 400, 'VALIDATION_FAILED');
  });

  test(`a file over ${MAX_JSON_READ_BYTES} bytes is 413 when JSON is asked for, and streamed whole otherwise`, async () => {
    const big = new Uint8Array(MAX_JSON_READ_BYTES + 1).fill(0x61);
    writeFileSync(join(templates, 'big.log'), big);
    for (const init of [{ headers: { accept: 'application/json' } }, {}] as const) {
      const path = 'headers' in init ? '/api/files/templates/big.log' : '/api/files/templates/big.log?raw=0';
      const message = await expectError(await c.api(path, init), 413, 'PAYLOAD_TOO_LARGE');
      expect(message).toContain('?raw=1');
    }
    for (const path of ['/api/files/templates/big.log?raw=1', '/api/files/templates/big.log']) {
      const raw = await c.api(path);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-length')).toBe(String(big.length));
      expect(raw.headers.get('content-disposition')).toStartWith('attachment;');
      expect((await raw.arrayBuffer()).byteLength).toBe(big.length);
    }
  });

  test('a link inside the scope is followed; missing paths and unknown scopes', async () => {
    symlinkSync('lobby/alpha.yml', join(templates, 'alias.yml'));
    expect((await readJson(await c.api('/api/files/templates/alias.yml'))).content).toBe('a: 1\n');
    expect((await expectError(await c.api('/api/files/templates/lobby/nope.txt'), 404, 'PATH_NOT_FOUND'))).toContain('lobby/nope.txt');
    await expectError(await c.api('/api/files/templates/lobby/server.properties/x'), 404, 'PATH_NOT_FOUND');
    expect(await expectError(await c.api('/api/files/worlds/x'), 400, 'INVALID_SCOPE')).toContain('templates, services, groups');
    await expectError(await c.api('/api/files/worlds'), 400, 'INVALID_SCOPE');
    await expectError(await c.api('/api/files/templates/a%2fb'), 400, 'PATH_TRAVERSAL');
  });

  test('the services scope is the service work dirs', async () => {
    mkdirSync(join(services, 'Lobby-1'), { recursive: true });
    writeFileSync(join(services, 'Lobby-1/eula.txt'), 'eula=true\n');
    expect((await readJson(await c.api('/api/files/services/Lobby-1/eula.txt'))).content).toBe('eula=true\n');
  });

  test('a pipe (a service console FIFO) is never read, replaced or uploaded over', async () => {
    const fifo = join(services, 'Lobby-1/console.fifo');
    expect(Bun.spawnSync(['mkfifo', fifo]).exitCode).toBe(0);
    await expectError(await c.api('/api/files/services/Lobby-1/console.fifo'), 404, 'PATH_NOT_FOUND');
    await expectError(await c.api('/api/files/services/Lobby-1/console.fifo?raw=1'), 404, 'PATH_NOT_FOUND');
    await expectError(await c.api('/api/files/services/Lobby-1/console.fifo', { method: 'PUT', json: { content: 'x' } }), 409, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/services/Lobby-1', { method: 'POST', body: form([{ name: 'file', value: new Blob(['x']), filename: 'console.fifo' }]) }), 409, 'VALIDATION_FAILED');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    const listed = (await readJson(await c.api('/api/files/services/Lobby-1'))).entries.find((e: { name: string }) => e.name === 'console.fifo');
    expect(listed).toMatchObject({ isDirectory: false, size: 0 });
  });
});

describe('PUT: create or overwrite', () => {
  test('creates (201) then replaces (200) atomically, leaving no temp file', async () => {
    const created = await c.api('/api/files/templates/lobby/new.yml', { method: 'PUT', json: { content: 'one: 1\n' } });
    expect(created.status).toBe(201);
    expect(await readJson(created)).toEqual({ success: true, message: expect.stringContaining('created'), scope: 'templates', path: 'lobby/new.yml', size: 7, created: true });
    const replaced = await c.api('/api/files/templates/lobby/new.yml', { method: 'PUT', json: { content: 'two: 2\n', encoding: 'utf8' } });
    expect(replaced.status).toBe(200);
    expect((await readJson(replaced)).created).toBe(false);
    expect(readFileSync(join(templates, 'lobby/new.yml'), 'utf8')).toBe('two: 2\n');
    expect(leftovers(join(templates, 'lobby'))).toEqual([]);
  });

  test('binary content as base64; the replaced file keeps its mode', async () => {
    const script = join(templates, 'lobby/start.sh');
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o755);
    const res = await c.api('/api/files/templates/lobby/start.sh', { method: 'PUT', json: { content: Buffer.from('#!/bin/sh\nexec java\n').toString('base64'), encoding: 'base64' } });
    expect(res.status).toBe(200);
    expect(readFileSync(script, 'utf8')).toBe('#!/bin/sh\nexec java\n');
    expect(statSync(script).mode & 0o777).toBe(0o755);
    const bin = await c.api('/api/files/templates/lobby/data.bin', { method: 'PUT', json: { content: Buffer.from(BINARY).toString('base64'), encoding: 'base64' } });
    expect(bin.status).toBe(201);
    expect([...readFileSync(join(templates, 'lobby/data.bin'))]).toEqual([...BINARY]);
  });

  test('a link inside the scope is written through; its target changes, the link stays', async () => {
    symlinkSync('server.properties', join(templates, 'lobby/props-link'));
    expect((await c.api('/api/files/templates/lobby/props-link', { method: 'PUT', json: { content: 'motd=via link\n' } })).status).toBe(200);
    expect(lstatSync(join(templates, 'lobby/props-link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(templates, 'lobby/server.properties'), 'utf8')).toBe('motd=via link\n');
  });

  test('refusals: missing parent, a directory, bad base64, the root, a body over 1 MiB, no content', async () => {
    expect(await expectError(await c.api('/api/files/templates/nope/x.yml', { method: 'PUT', json: { content: 'x' } }), 404, 'PATH_NOT_FOUND')).toContain('parent');
    await expectError(await c.api('/api/files/templates/lobby/world', { method: 'PUT', json: { content: 'x' } }), 409, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/lobby/x.bin', { method: 'PUT', json: { content: '%%%', encoding: 'base64' } }), 400, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/', { method: 'PUT', json: { content: 'x' } }), 400, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/lobby/huge.txt', { method: 'PUT', json: { content: 'x'.repeat(1024 * 1024) } }), 413, 'PAYLOAD_TOO_LARGE');
    await expectError(await c.api('/api/files/templates/lobby/x.txt', { method: 'PUT', json: { encoding: 'utf8' } }), 400, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/lobby/x.txt', { method: 'PUT', json: { content: 'x', encoding: 'latin1' } }), 400, 'VALIDATION_FAILED');
    expect(existsSync(join(templates, 'lobby/huge.txt'))).toBe(false);
    expect(existsSync(join(templates, 'lobby/x.bin'))).toBe(false);
  });
});

describe('POST: directories and uploads', () => {
  test('JSON {type:"directory"} creates a directory (201); existing → 409; missing parent → 404; other JSON → 400', async () => {
    const res = await c.api('/api/files/templates/lobby/plugins/LuckPerms', { method: 'POST', json: { type: 'directory' } });
    expect(res.status).toBe(201);
    expect(await readJson(res)).toEqual({ success: true, message: expect.any(String), scope: 'templates', path: 'lobby/plugins/LuckPerms' });
    expect(statSync(join(templates, 'lobby/plugins/LuckPerms')).isDirectory()).toBe(true);
    await expectError(await c.api('/api/files/templates/lobby/plugins/LuckPerms', { method: 'POST', json: { type: 'directory' } }), 409, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/a/b/c', { method: 'POST', json: { type: 'directory' } }), 404, 'PATH_NOT_FOUND');
    await expectError(await c.api('/api/files/templates/lobby/d', { method: 'POST', json: { type: 'file' } }), 400, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/lobby/d', { method: 'POST' }), 400, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/lobby/d', { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<d/>' }), 400, 'VALIDATION_FAILED');
  });

  test('a multipart upload lands in the directory under its filename (201), replaces an existing file (keeping its mode)', async () => {
    const res = await c.api('/api/files/templates/lobby/plugins', { method: 'POST', body: form([{ name: 'file', value: new Blob([BINARY]), filename: 'Vault.jar' }]) });
    expect(res.status).toBe(201);
    expect(await readJson(res)).toEqual({ success: true, message: expect.any(String), scope: 'templates', path: 'lobby/plugins/Vault.jar', size: BINARY.length, created: true });
    expect([...readFileSync(join(templates, 'lobby/plugins/Vault.jar'))]).toEqual([...BINARY]);
    chmodSync(join(templates, 'lobby/plugins/Vault.jar'), 0o600);
    const again = await c.api('/api/files/templates/lobby/plugins', { method: 'POST', body: form([{ name: 'file', value: new Blob(['v2']), filename: 'Vault.jar' }]) });
    expect(again.status).toBe(201);
    expect((await readJson(again)).created).toBe(false);
    expect(readFileSync(join(templates, 'lobby/plugins/Vault.jar'), 'utf8')).toBe('v2');
    expect(statSync(join(templates, 'lobby/plugins/Vault.jar')).mode & 0o777).toBe(0o600);
    expect(leftovers(join(templates, 'lobby/plugins'))).toEqual([]);
  });

  test('into the scope root; a "filename" field before the file renames it; other fields are ignored', async () => {
    const res = await c.api('/api/files/templates', {
      method: 'POST',
      body: form([
        { name: 'note', value: 'ignored' },
        { name: 'filename', value: 'renamed.txt' },
        { name: 'file', value: new Blob(['hello']), filename: 'original.txt' },
      ]),
    });
    expect(res.status).toBe(201);
    expect((await readJson(res)).path).toBe('renamed.txt');
    expect(readFileSync(join(templates, 'renamed.txt'), 'utf8')).toBe('hello');
    expect(existsSync(join(templates, 'original.txt'))).toBe(false);
  });

  test('refusals: a filename field after the file, no file part, two file parts, onto a directory, into a file, into a missing dir', async () => {
    const dir = join(templates, 'lobby/world');
    const cases: [string, FormData, number, string][] = [
      ['filename after file', form([{ name: 'file', value: new Blob(['x']), filename: 'a.txt' }, { name: 'filename', value: 'b.txt' }]), 400, 'VALIDATION_FAILED'],
      ['no file part', form([{ name: 'other', value: 'x' }]), 400, 'VALIDATION_FAILED'],
      ['two file parts', form([{ name: 'file', value: new Blob(['x']), filename: 'a.txt' }, { name: 'file', value: new Blob(['y']), filename: 'b.txt' }]), 400, 'VALIDATION_FAILED'],
      ['onto a directory', form([{ name: 'file', value: new Blob(['x']), filename: 'region' }]), 409, 'VALIDATION_FAILED'],
    ];
    mkdirSync(join(dir, 'region'));
    for (const [what, body, status, code] of cases) {
      const res = await c.api('/api/files/templates/lobby/world', { method: 'POST', body });
      expect({ what, status: res.status, code: (await expectErrorBody(res)).error }).toEqual({ what, status, code });
    }
    expect(readdirSync(dir)).toEqual(['region']);
    const file = form([{ name: 'file', value: new Blob(['x']), filename: 'a.txt' }]);
    await expectError(await c.api('/api/files/templates/lobby/alpha.yml', { method: 'POST', body: file }), 409, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/lobby/missing', { method: 'POST', body: file }), 404, 'PATH_NOT_FOUND');
  });

  test('a 50 MB upload streams to disk and matches byte for byte', async () => {
    const source = join(c.dir, 'upload-50.bin');
    const bytes = new Uint8Array(50 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) & 0xff;
    writeFileSync(source, bytes);
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'world.zip', path: source }]);
    const res = await c.api('/api/files/templates/lobby', { method: 'POST', body, headers: { 'content-type': contentType } });
    expect(res.status).toBe(201);
    expect((await readJson(res)).size).toBe(bytes.length);
    const sha = (data: Uint8Array) => new Bun.CryptoHasher('sha256').update(data).digest('hex');
    expect(sha(readFileSync(join(templates, 'lobby/world.zip')))).toBe(sha(bytes));
    expect(leftovers(join(templates, 'lobby'))).toEqual([]);
  }, 30_000);

  test(`over ${MAX_UPLOAD_BYTES} bytes: 413 from Content-Length before reading, and while streaming; nothing left`, async () => {
    const source = join(c.dir, 'upload-150.bin');
    writeFileSync(source, new Uint8Array(150 * 1024 * 1024));
    const dir = join(templates, 'lobby/plugins');
    const before = readdirSync(dir).sort();
    // FormData of a file: the length is known, the guard refuses it before the body is read.
    const declared = await c.api('/api/files/templates/lobby/plugins', { method: 'POST', body: form([{ name: 'file', value: Bun.file(source), filename: 'huge.bin' }]) });
    expect(await expectError(declared, 413, 'PAYLOAD_TOO_LARGE')).toContain('exceeds the limit');
    // A stream (chunked, no length): refused once the file passes the limit.
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'huge.bin', path: source }]);
    const streamed = await c.api('/api/files/templates/lobby/plugins', { method: 'POST', body, headers: { 'content-type': contentType } });
    expect(await expectError(streamed, 413, 'PAYLOAD_TOO_LARGE')).toContain(`upload limit of ${MAX_UPLOAD_BYTES} bytes`);
    await waitFor(() => readdirSync(dir).sort().join() === before.join(), { what: 'no file and no temp file left' });
    expect((await c.api('/api/health')).status).toBe(200);
  }, 30_000);

  test('an upload cut mid-body leaves neither the file nor a temp file', async () => {
    const dir = join(templates, 'lobby/world');
    const before = readdirSync(dir).sort();
    const boundary = 'cut-off';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n`;
    // Raw TCP: promise 20 MB, send 4 MB, wait until the temp file is being written, then hang up.
    const socket = await Bun.connect({ hostname: '127.0.0.1', port: c.controller.port, socket: { data() {} } });
    socket.write(
      `POST /api/files/templates/lobby/world HTTP/1.1\r\nHost: 127.0.0.1:${c.controller.port}\r\nAuthorization: Bearer ${c.master}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n${head}`,
    );
    const chunk = new Uint8Array(64 * 1024).fill(0x41);
    for (let sent = 0; sent < 4 * 1024 * 1024; sent += chunk.length) {
      while (socket.write(chunk) === 0) await Bun.sleep(1);
    }
    await waitFor(() => leftovers(dir).length > 0, { what: 'the upload to start writing its temp file' });
    socket.terminate();
    await waitFor(() => readdirSync(dir).sort().join() === before.join(), { what: 'the temp file to be removed' });
    expect(existsSync(join(dir, 'cut.bin'))).toBe(false);
    // An aborted fetch the same way.
    const abort = new AbortController();
    const source = join(c.dir, 'abort.bin');
    writeFileSync(source, new Uint8Array(40 * 1024 * 1024));
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'aborted.bin', path: source }]);
    let pulled = 0;
    const slow = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        async transform(piece, controller) {
          pulled += piece.byteLength;
          if (pulled > 8 * 1024 * 1024) await Bun.sleep(50); // slow enough to be cut mid-body
          controller.enqueue(piece);
        },
      }),
    );
    const request = c.api('/api/files/templates/lobby/world', { method: 'POST', body: slow, headers: { 'content-type': contentType }, signal: abort.signal }).catch((error: Error) => error);
    await waitFor(() => leftovers(dir).length > 0, { what: 'the second upload to start' });
    abort.abort();
    expect(await request).toBeInstanceOf(Error);
    await waitFor(() => readdirSync(dir).sort().join() === before.join(), { what: 'the aborted upload to be cleaned up' });
    expect(c.logs.join('')).not.toContain('INTERNAL_ERROR');
  }, 30_000);
});

describe('DELETE', () => {
  test('a file, an empty directory; a non-empty directory is 409; the root is never deleted; missing is 404', async () => {
    writeFileSync(join(templates, 'lobby/trash.txt'), 'x');
    const res = await c.api('/api/files/templates/lobby/trash.txt', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ success: true, message: 'deleted lobby/trash.txt', scope: 'templates', path: 'lobby/trash.txt' });
    expect(existsSync(join(templates, 'lobby/trash.txt'))).toBe(false);
    mkdirSync(join(templates, 'lobby/empty'));
    expect((await c.api('/api/files/templates/lobby/empty/', { method: 'DELETE' })).status).toBe(200);
    expect(existsSync(join(templates, 'lobby/empty'))).toBe(false);
    expect(await expectError(await c.api('/api/files/templates/lobby/plugins', { method: 'DELETE' }), 409, 'VALIDATION_FAILED')).toContain('not empty');
    expect(existsSync(join(templates, 'lobby/plugins/plugin.jar'))).toBe(true);
    await expectError(await c.api('/api/files/templates/', { method: 'DELETE' }), 400, 'VALIDATION_FAILED');
    await expectError(await c.api('/api/files/templates/lobby/trash.txt', { method: 'DELETE' }), 404, 'PATH_NOT_FOUND');
    expect(existsSync(templates)).toBe(true);
  });

  test('a link is removed, never what it points to', async () => {
    symlinkSync('alpha.yml', join(templates, 'lobby/alpha-link'));
    expect((await c.api('/api/files/templates/lobby/alpha-link', { method: 'DELETE' })).status).toBe(200);
    expect(existsSync(join(templates, 'lobby/alpha-link'))).toBe(false);
    expect(readFileSync(join(templates, 'lobby/alpha.yml'), 'utf8')).toBe('a: 1\n');
  });
});

describe('the groups scope is read-only', () => {
  test('reads work', async () => {
    const list = await readJson(await c.api('/api/files/groups'));
    expect(list.entries.map((e: { name: string }) => e.name)).toEqual(['Lobby.toml']);
    expect((await readJson(await c.api('/api/files/groups/Lobby.toml'))).content).toBe('name = "Lobby"\n');
  });

  test('PUT, POST (directory and upload, even a large one) and DELETE are 403 READ_ONLY pointing at the group routes', async () => {
    const attempts: Promise<Response>[] = [
      c.api('/api/files/groups/Lobby.toml', { method: 'PUT', json: { content: 'x' } }),
      c.api('/api/files/groups/new', { method: 'POST', json: { type: 'directory' } }),
      c.api('/api/files/groups/new?mkdir', { method: 'POST' }),
      c.api('/api/files/groups', { method: 'POST', body: form([{ name: 'file', value: new Blob(['x']), filename: 'Evil.toml' }]) }),
      c.api('/api/files/groups', { method: 'POST', body: form([{ name: 'file', value: new Blob([new Uint8Array(20 * 1024 * 1024)]), filename: 'Big.toml' }]) }),
      c.api('/api/files/groups/Lobby.toml', { method: 'DELETE' }),
    ];
    for (const res of await Promise.all(attempts)) expect(await expectError(res, 403, 'READ_ONLY')).toContain('/api/groups');
    expect(readdirSync(groups)).toEqual(['Lobby.toml']);
    expect(readFileSync(join(groups, 'Lobby.toml'), 'utf8')).toBe('name = "Lobby"\n');
  });
});

describe('auth', () => {
  const routes: [string, string, RequestInit & { json?: unknown }][] = [
    ['GET', '/api/files/templates/lobby', {}],
    ['GET', '/api/files/templates', {}],
    ['PUT', '/api/files/templates/lobby/auth.txt', { json: { content: 'x' } }],
    ['POST', '/api/files/templates/lobby/authdir', { json: { type: 'directory' } }],
    ['POST', '/api/files/templates', { json: { type: 'directory' } }],
    ['POST', '/api/files/templates/lobby/authdir?mkdir', {}],
    ['DELETE', '/api/files/templates/lobby/alpha.yml', {}],
  ];

  test('401 without a token, 403 with the derived service token, nothing changed', async () => {
    for (const [method, path, init] of routes) {
      await expectError(await c.api(path, { ...init, method, token: null }), 401, 'UNAUTHORIZED');
      await expectError(await c.api(path, { ...init, method, token: c.service }), 403, 'FORBIDDEN');
    }
    expect(existsSync(join(templates, 'lobby/auth.txt'))).toBe(false);
    expect(existsSync(join(templates, 'lobby/alpha.yml'))).toBe(true);
  });

  test('JWT scopes: files:read reads but cannot write; files:write writes', async () => {
    const reader = (await c.controller.kernel.auth.mintJwt('dashboard', ['files:read'], 600)).token;
    const writer = (await c.controller.kernel.auth.mintJwt('deployer', ['files:write'], 600)).token;
    expect((await c.api('/api/files/templates/lobby', { token: reader })).status).toBe(200);
    await expectError(await c.api('/api/files/templates/lobby/jwt.txt', { method: 'PUT', json: { content: 'x' }, token: reader }), 403, 'FORBIDDEN');
    expect((await c.api('/api/files/templates/lobby/jwt.txt', { method: 'PUT', json: { content: 'x' }, token: writer })).status).toBe(201);
    await expectError(await c.api('/api/files/templates/lobby', { token: writer }), 403, 'FORBIDDEN');
    expect((await c.api('/api/files/templates/lobby/jwt.txt', { method: 'DELETE', token: writer })).status).toBe(200);
  });
});
