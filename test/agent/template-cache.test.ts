/** The agent's template cache against a real HTTP server serving the controller's template zip. */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TemplateCache } from '../../src/agent/template-cache';
import { zipStream } from '../../src/cluster/template-zip';
import { tempDir } from '../support/controller';

const tmp = tempDir('svc-template-cache-');
const source = join(tmp.dir, 'source');
mkdirSync(join(source, 'plugins'), { recursive: true });
writeFileSync(join(source, 'plugins', 'a.jar'), crypto.getRandomValues(new Uint8Array(300_000)));
writeFileSync(join(source, 'server.properties'), 'motd=cached\n');
const files = new Map([
  ['plugins/a.jar', join(source, 'plugins', 'a.jar')],
  ['server.properties', join(source, 'server.properties')],
]);
const requests: string[] = [];
let servedHash = 'h1';
const server = Bun.serve({
  port: 0,
  fetch(request) {
    requests.push(new URL(request.url).pathname);
    if (request.headers.get('authorization') !== 'Bearer secret') return Response.json({ message: 'bad token' }, { status: 401 });
    return new Response(zipStream(files), { headers: { 'content-type': 'application/zip', 'x-template-hash': servedHash } });
  },
});
afterAll(() => {
  server.stop(true);
  tmp.remove();
});

describe('TemplateCache', () => {
  test('downloads once, unpacks from disk into <name>@<hash>, leaves no temporary file', async () => {
    const root = join(tmp.dir, 'cache');
    const cache = new TemplateCache(root, server.url.href, 'secret');
    const [dir, again] = await Promise.all([cache.ensure('lobby', 'h1', 'PAPER'), cache.ensure('lobby', 'h1', 'PAPER')]);
    expect(dir).toBe(join(root, 'lobby@h1'));
    expect(again).toBe(dir);
    expect(readFileSync(join(dir, 'plugins', 'a.jar'))).toEqual(readFileSync(files.get('plugins/a.jar')!));
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).toBe('motd=cached\n');
    expect(readdirSync(root)).toEqual(['lobby@h1']);
    expect(requests).toEqual(['/api/templates/lobby/download']);
    await cache.ensure('lobby', 'h1', 'PAPER');
    expect(requests.length).toBe(1);
  });

  test('a template that changed while fetched, or a refusal, leaves nothing behind', async () => {
    const root = join(tmp.dir, 'cache-2');
    servedHash = 'other';
    await expect(new TemplateCache(root, server.url.href, 'secret').ensure('lobby', 'h1', 'PAPER')).rejects.toThrow(/changed while it was fetched/);
    servedHash = 'h1';
    await expect(new TemplateCache(root, server.url.href, 'wrong').ensure('lobby', 'h1', 'PAPER')).rejects.toThrow(/401: bad token/);
    let left: string[] = [];
    try {
      left = readdirSync(root);
    } catch {
      left = [];
    }
    expect(left).toEqual([]);
  });
});
