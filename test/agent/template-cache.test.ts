/**
 * The agent's template cache against a real TLS server serving the controller's template zip,
 * reached through the pinned channel (trust.ts): what it unpacks is checked against the digest
 * the controller named before it is cached, whatever the headers say.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TemplateCache } from '../../src/agent/template-cache';
import { openChannel } from '../../src/agent/trust';
import { loadOrCreateCertificate } from '../../src/cluster/certificate';
import { digestFiles } from '../../src/cluster/template-digest';
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
// What an on-path attacker would serve instead: the same names, one file changed, one added.
const evil = join(tmp.dir, 'evil');
mkdirSync(join(evil, 'plugins'), { recursive: true });
writeFileSync(join(evil, 'plugins', 'evil.jar'), 'runs as the server');
const swapped = new Map([...files, ['plugins/evil.jar', join(evil, 'plugins', 'evil.jar')]]);
const digest = await digestFiles(files);

const { certificate } = await loadOrCreateCertificate(join(tmp.dir, 'tls'), ['localhost', '127.0.0.1']);
const { certificate: stranger } = await loadOrCreateCertificate(join(tmp.dir, 'tls-other'), ['localhost', '127.0.0.1']);
const requests: string[] = [];
let serve: { files: Map<string, string>; header: string | null } = { files, header: digest };
const handler = (request: Request) => {
  requests.push(new URL(request.url).pathname);
  if (request.headers.get('authorization') !== 'Bearer svcn_secret') return Response.json({ message: 'bad token' }, { status: 401 });
  return new Response(zipStream(serve.files), { headers: { 'content-type': 'application/zip', ...(serve.header ? { 'x-template-hash': serve.header } : {}) } });
};
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert: certificate.certPem, key: certificate.keyPem }, fetch: handler });
const impostor = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert: stranger.certPem, key: stranger.keyPem }, fetch: handler });
afterAll(() => {
  server.stop(true);
  impostor.stop(true);
  tmp.remove();
});

const pinned = (port: number) => ({ fingerprint: certificate.fingerprint, certPem: certificate.certPem, wsUrl: `wss://127.0.0.1:${port}/cluster`, pinnedAt: '' });
function cache(root: string, token = 'svcn_secret', port = server.port!): TemplateCache {
  const channel = openChannel(pinned(port), { fingerprint: '', allowInsecure: false });
  return new TemplateCache(root, { origin: channel.dataOrigin, fetch: channel.fetch, token: () => token });
}
const listed = (root: string) => (existsSync(root) ? readdirSync(root) : []);

describe('TemplateCache', () => {
  test('downloads once over the pinned TLS channel, checks the digest, unpacks into <name>@<digest>, leaves no temporary file', async () => {
    const root = join(tmp.dir, 'cache');
    const templates = cache(root);
    const [dir, again] = await Promise.all([templates.ensure('lobby', digest, 'PAPER'), templates.ensure('lobby', digest, 'PAPER')]);
    expect(dir).toBe(join(root, `lobby@${digest}`));
    expect(again).toBe(dir);
    expect(readFileSync(join(dir, 'plugins', 'a.jar'))).toEqual(readFileSync(files.get('plugins/a.jar')!));
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).toBe('motd=cached\n');
    expect(listed(root)).toEqual([`lobby@${digest}`]);
    expect(requests).toEqual(['/api/templates/lobby/download']);
    await templates.ensure('lobby', digest, 'PAPER');
    expect(requests.length).toBe(1);
  });

  test('a swapped ZIP is refused and never cached, with the right header or none; the genuine one is taken next', async () => {
    const root = join(tmp.dir, 'cache-swapped');
    for (const header of [digest, null]) {
      serve = { files: swapped, header };
      await expect(cache(root).ensure('lobby', digest, 'PAPER')).rejects.toThrow(/is not what the controller named over the pinned channel.*refused and not cached/);
      expect(listed(root)).toEqual([]);
    }
    serve = { files, header: digest };
    expect(await cache(root).ensure('lobby', digest, 'PAPER')).toBe(join(root, `lobby@${digest}`));
  });

  test('a template that changed since the start was sent, or a refusal, leaves nothing behind', async () => {
    const root = join(tmp.dir, 'cache-2');
    serve = { files, header: 'other' };
    await expect(cache(root).ensure('lobby', digest, 'PAPER')).rejects.toThrow(/changed since the start was sent/);
    serve = { files, header: digest };
    await expect(cache(root, 'wrong').ensure('lobby', digest, 'PAPER')).rejects.toThrow(/401: bad token/);
    expect(listed(root)).toEqual([]);
  });

  test('a server without the pinned certificate is never asked', async () => {
    const root = join(tmp.dir, 'cache-3');
    const before = requests.length;
    await expect(cache(root, 'svcn_secret', impostor.port!).ensure('lobby', digest, 'PAPER')).rejects.toThrow(/cannot fetch it/);
    expect(requests.length).toBe(before);
    expect(listed(root)).toEqual([]);
  });
});
