/** The template ZIP and hash agents download: nothing behind a link, no FIFO opened, whatever a template holds. */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { templateArchiveHash, templateDigest, templateFiles } from '../../src/cluster/template-archive';
import { digestDirectory } from '../../src/cluster/template-digest';
import { zipStream } from '../../src/cluster/template-zip';
import { deployBack } from '../../src/core/templates/deploy-back';
import { hashDirectories } from '../../src/core/templates/hash';
import { removeTempDirs, tempDir, writeTree } from '../core/templates/fixtures';
import { expectNoSecret, expectOutsideUntouched, fifoWatchdog, hostileBase, plant, recordingLogger } from '../core/templates/hostile';

afterEach(removeTempDirs);

async function zipped(stream: ReadableStream<Uint8Array>): Promise<Record<string, string>> {
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const out: Record<string, string> = {};
  for (const [name, data] of Object.entries(unzipSync(bytes))) out[name] = Buffer.from(data).toString('utf8');
  return out;
}

describe('template archive and hash', () => {
  test('links, FIFOs and what a server planted before a deploy never reach the archive or the hash', async () => {
    const h = hostileBase();
    const root = join(h.base, 'templates');
    writeTree(join(root, 'lobby'), { 'server.properties': 'motd=lobby\n', 'plugins/a.yml': 'a: 1\n' });
    writeTree(join(root, 'global'), { 'config/global.yml': 'g: 1\n' });
    // Entries in the templates themselves (an operator's links, a FIFO).
    plant(h, join(root, 'lobby'), { fileLink: ['leak.txt'], dirLink: ['world'], fifo: ['pipe'] });
    plant(h, join(root, 'global'), { fileLink: ['config/leak.yml'], dirLink: ['plugins'] });
    // And what a server planted in its work dir, deployed back on stop.
    const work = join(h.base, 'services', 'lobby-1');
    writeTree(work, { 'plugins/b.yml': 'b: 2\n' });
    plant(h, work, { fileLink: ['ops.json'], dirLink: ['logs'], hardlink: ['whitelist.json', 'plugins/hard.yml'], fifo: ['banned.json'] });
    const dog = fifoWatchdog([join(root, 'lobby', 'pipe'), join(work, 'banned.json')]);
    let files: Record<string, string>;
    let hash: string;
    try {
      await deployBack({ workDir: work, templateDir: join(root, 'lobby'), excludes: [], log: recordingLogger() });
      files = await zipped(zipStream(templateFiles(root, 'lobby', 'PAPER')));
      hash = await templateArchiveHash(root, 'lobby', 'PAPER');
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(files).toEqual({ 'server.properties': 'motd=lobby\n', 'plugins/a.yml': 'a: 1\n', 'plugins/b.yml': 'b: 2\n', 'config/global.yml': 'g: 1\n' });
    for (const [name, content] of Object.entries(files)) {
      expectNoSecret(h, name);
      expectNoSecret(h, content);
    }
    // The hash is that of the regular files alone.
    const clean = tempDir('svc-clean-');
    writeTree(join(clean, 'global'), { 'config/global.yml': 'g: 1\n' });
    writeTree(join(clean, 'lobby'), { 'server.properties': 'motd=lobby\n', 'plugins/a.yml': 'a: 1\n', 'plugins/b.yml': 'b: 2\n' });
    expect(hash).toBe(await hashDirectories([join(clean, 'global'), join(clean, 'lobby')]));
    expectOutsideUntouched(h);
  });

  test('a file that turns into a link after the listing is left out of the archive', async () => {
    const h = hostileBase();
    const root = join(h.base, 'templates');
    writeTree(join(root, 'lobby'), { 'a.txt': 'a', 'b.txt': 'b' });
    mkdirSync(join(root, 'global'));
    const listed = templateFiles(root, 'lobby', 'VELOCITY');
    Bun.spawnSync(['rm', join(root, 'lobby', 'b.txt')]);
    symlinkSync(join(h.outside, 'secret.txt'), join(root, 'lobby', 'b.txt'));
    expect(await zipped(zipStream(listed))).toEqual({ 'a.txt': 'a' });
    expectOutsideUntouched(h);
  });
});

describe('template digest (what START_SERVICE names and the agent checks)', () => {
  test('equals the digest of the unpacked ZIP, overlay laid over (PAPER) and the proxy overlay (VELOCITY); the reference hash cannot be checked there', async () => {
    const root = tempDir('svc-digest-');
    writeTree(join(root, 'lobby'), { 'server.properties': 'motd=lobby\n', 'shared.txt': 'lobby version', 'plugins/a.yml': 'a: 1\n' });
    writeTree(join(root, 'global'), { 'shared.txt': 'global version', 'config/global.yml': 'g: 1\n' });
    writeTree(join(root, 'global_proxy'), { 'velocity.toml': 'bind = "0.0.0.0:25577"\n' });
    for (const software of ['PAPER', 'VELOCITY', 'CUSTOM'] as const) {
      const bytes = new Uint8Array(await new Response(zipStream(templateFiles(root, 'lobby', software))).arrayBuffer());
      const unpacked = tempDir('svc-digest-unpacked-');
      for (const [name, data] of Object.entries(unzipSync(bytes))) writeTree(unpacked, { [name]: Buffer.from(data).toString('utf8') });
      const digest = await templateDigest(root, 'lobby', software);
      expect(await digestDirectory(unpacked)).toBe(digest);
      // The reference hash covers `global` for a proxy and a replaced file twice: not what the ZIP carries.
      if (software !== 'CUSTOM') expect(await hashDirectories([unpacked])).not.toBe(await templateArchiveHash(root, 'lobby', software));
    }
  });

  test('frames each file: bytes moved between a path and its content, or between files, change it', async () => {
    const a = tempDir('svc-digest-a-');
    const b = tempDir('svc-digest-b-');
    const c = tempDir('svc-digest-c-');
    writeTree(a, { a: 'bc', d: 'ef' });
    writeTree(b, { ab: 'c', d: 'ef' });
    writeTree(c, { a: 'bcd', e: 'f' });
    const digests = await Promise.all([a, b, c].map((dir) => digestDirectory(dir)));
    expect(new Set(digests).size).toBe(3);
    // The reference format cannot tell the first two apart (nothing separates a path from its bytes).
    expect(await hashDirectories([a])).toBe(await hashDirectories([b]));
  });
});
