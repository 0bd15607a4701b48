/**
 * A state pull writes nothing it has not checked (issue 37, finding 2). The agent pulls over the
 * pinned channel (trust.ts), so an on-path party with a certificate of its own cannot answer
 * at all; and what the pinned server itself sends is checked file by file against the
 * manifest's size and SHA-256 before it replaces anything: a rewritten file, or a manifest
 * that names other bytes than those served, leaves the folder as it was.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openChannel } from '../../../src/agent/trust';
import { loadOrCreateCertificate } from '../../../src/cluster/certificate';
import { pullState, StateSyncError } from '../../../src/cluster/state-sync/client';
import { tempDir } from '../../support/controller';

const tmp = tempDir('svc-pull-verify-');
const { certificate } = await loadOrCreateCertificate(join(tmp.dir, 'controller-tls'), ['localhost', '127.0.0.1']);
const { certificate: stranger } = await loadOrCreateCertificate(join(tmp.dir, 'proxy-tls'), ['localhost', '127.0.0.1']);

const sha256 = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex');
const entry = (text: string) => ({ sha256: sha256(text), size: Buffer.byteLength(text) });
const GENUINE = { 'server.properties': 'motd=genuine\n', 'world/level.dat': 'the world' };

/** What the server answers: a manifest and file bodies, each chosen by the test. */
let manifest: unknown = { files: Object.fromEntries(Object.entries(GENUINE).map(([rel, text]) => [rel, entry(text)])) };
let bodies: Record<string, string> = { ...GENUINE };
const asked: string[] = [];
const handler = (request: Request) => {
  const path = new URL(request.url).pathname;
  asked.push(path);
  if (path.endsWith('/state/manifest')) return Response.json(manifest);
  const rel = decodeURIComponent(path.split('/state/file/')[1] ?? '');
  return rel in bodies ? new Response(bodies[rel]) : Response.json({ success: false, message: 'no', error: 'PATH_NOT_FOUND' }, { status: 404 });
};
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert: certificate.certPem, key: certificate.keyPem }, fetch: handler });
// An on-path party ending TLS with its own certificate (it would rewrite the manifest).
const proxy = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert: stranger.certPem, key: stranger.keyPem }, fetch: handler });
afterAll(() => {
  server.stop(true);
  proxy.stop(true);
  tmp.remove();
});

function connection(dir: string, port = server.port!) {
  const channel = openChannel({ fingerprint: certificate.fingerprint, certPem: certificate.certPem, wsUrl: `wss://127.0.0.1:${port}/cluster`, pinnedAt: '' }, { fingerprint: '', allowInsecure: false });
  return { baseUrl: channel.dataOrigin, fetch: channel.fetch, token: 'svcn_node-secret-for-tests', service: 'Keep-1', dir };
}

/** A work dir as the agent has it before the pull: an old world. */
function workDir(name: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(join(dir, 'world'), { recursive: true });
  writeFileSync(join(dir, 'world', 'level.dat'), 'the old world');
  writeFileSync(join(dir, 'server.properties'), 'motd=old\n');
  return dir;
}
const contents = (dir: string) => ({
  'server.properties': readFileSync(join(dir, 'server.properties'), 'utf8'),
  'world/level.dat': readFileSync(join(dir, 'world', 'level.dat'), 'utf8'),
  leftovers: [...readdirSync(dir), ...readdirSync(join(dir, 'world'))].filter((name) => name.includes('svc-pull')),
});

describe('a state pull checks what it writes', () => {
  test('the genuine copy is pulled over the pinned channel', async () => {
    const dir = workDir('genuine');
    const pulled = await pullState(connection(dir));
    expect(pulled.downloaded.sort()).toEqual(['server.properties', 'world/level.dat']);
    expect(contents(dir)).toEqual({ ...GENUINE, leftovers: [] });
  });

  test('a file whose bytes differ from the manifest (same size or not) never replaces the one there', async () => {
    for (const rewritten of ['the WORLD', 'the world, with a plugin that runs']) {
      bodies = { ...GENUINE, 'world/level.dat': rewritten };
      const dir = workDir(`rewritten-${rewritten.length}`);
      const error = await pullState(connection(dir)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateSyncError);
      expect((error as Error).message).toContain('downloading world/level.dat');
      expect(contents(dir)['world/level.dat']).toBe('the old world');
      expect(contents(dir).leftovers).toEqual([]);
    }
    bodies = { ...GENUINE };
  });

  test('a manifest that names other bytes than those served: the file it names is not replaced', async () => {
    manifest = { files: { ...(manifest as { files: object }).files, 'server.properties': entry('motd=rewritten\n') } };
    const dir = workDir('manifest');
    await expect(pullState(connection(dir))).rejects.toThrow(/downloading server\.properties.*the manifest says/);
    expect(contents(dir)['server.properties']).toBe('motd=old\n');
    manifest = { files: Object.fromEntries(Object.entries(GENUINE).map(([rel, text]) => [rel, entry(text)])) };
  });

  test('an on-path server with another certificate is never read: the pull fails before anything is written', async () => {
    const before = asked.length;
    const dir = workDir('proxied');
    await expect(pullState(connection(dir, proxy.port!))).rejects.toThrow(/could not reach the controller/);
    expect(asked.length).toBe(before);
    expect(contents(dir)).toEqual({ 'server.properties': 'motd=old\n', 'world/level.dat': 'the old world', leftovers: [] });
  });

  test('a manifest answer past 32 MiB is refused without being parsed', async () => {
    const huge = { files: { 'a.txt': entry('a') }, padding: 'x'.repeat(33 * 1024 * 1024) };
    manifest = huge;
    const dir = workDir('huge');
    await expect(pullState(connection(dir))).rejects.toThrow(/larger than 33554432 bytes; refused/);
    expect(contents(dir)['server.properties']).toBe('motd=old\n');
  });
});
