import { afterEach, describe, expect, test } from 'bun:test';
import { renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../../src/errors';
import { hashDirectories, hashedTemplateNames, listRegularFiles, templateHash } from '../../../src/core/templates/hash';
import { group, removeTempDirs, tempDir, writeTree } from './fixtures';

afterEach(removeTempDirs);

/** The contract spelled out: path bytes then content, per folder in order, files sorted. */
function referenceHash(folders: Record<string, string>[]): string {
  const hasher = new Bun.CryptoHasher('sha256');
  for (const files of folders) {
    for (const rel of Object.keys(files).sort()) hasher.update(rel).update(files[rel]!);
  }
  return hasher.digest('hex');
}

describe('template hash', () => {
  test('order: global (Paper family and proxy), global_proxy (proxy), then the stack', () => {
    expect(hashedTemplateNames(group('Lobby', 'PAPER', { templates: ['base', 'lobby'] }))).toEqual(['global', 'base', 'lobby']);
    expect(hashedTemplateNames(group('Proxy', 'VELOCITY'))).toEqual(['global', 'global_proxy', 'Proxy']);
    expect(hashedTemplateNames(group('Mods', 'FABRIC', { template: 'modpack' }))).toEqual(['modpack']);
    expect(hashedTemplateNames(group('Own', 'CUSTOM'))).toEqual(['Own']);
  });

  test('matches the contract byte for byte', async () => {
    const root = tempDir();
    const global = { 'plugins/G.jar': 'g', 'a.txt': 'global a' };
    const lobby = { 'server.properties': 'motd=x\n', 'a/b.txt': 'nested', 'a.txt': 'lobby a', 'Z.txt': 'upper' };
    writeTree(join(root, 'global'), global);
    writeTree(join(root, 'Lobby'), lobby);
    const hash = await templateHash(root, group('Lobby', 'PAPER'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(referenceHash([global, lobby]));
    // Sorted by code unit over the whole relative path: "Z.txt" < "a.txt" < "a/b.txt".
    expect(listRegularFiles(join(root, 'Lobby')).sort()).toEqual(['Z.txt', 'a.txt', 'a/b.txt', 'server.properties']);
  });

  test('stable across runs; missing folders add nothing', async () => {
    const root = tempDir();
    writeTree(join(root, 'Proxy'), { 'velocity.toml': 'x' });
    const proxy = group('Proxy', 'VELOCITY');
    const first = await templateHash(root, proxy);
    expect(await templateHash(root, proxy)).toBe(first);
    expect(first).toBe(referenceHash([{ 'velocity.toml': 'x' }]));
  });

  test('changes when content, a path, or the set of files changes', async () => {
    const root = tempDir();
    const dir = join(root, 'T');
    writeTree(dir, { 'a.txt': 'one', 'b/c.txt': 'two' });
    const hash = () => hashDirectories([dir]);
    const seen = new Set([await hash()]);
    writeFileSync(join(dir, 'a.txt'), 'ONE');
    seen.add(await hash());
    renameSync(join(dir, 'a.txt'), join(dir, 'a2.txt'));
    seen.add(await hash());
    renameSync(join(dir, 'b'), join(dir, 'd'));
    seen.add(await hash());
    writeFileSync(join(dir, 'empty'), '');
    seen.add(await hash());
    expect(seen.size).toBe(5);
  });

  test('which folder a file is in matters (global vs the stack)', async () => {
    const root = tempDir();
    writeTree(join(root, 'one'), { 'a.txt': 'x' });
    writeTree(join(root, 'two'), { 'b.txt': 'y' });
    const forward = await hashDirectories([join(root, 'one'), join(root, 'two')]);
    expect(await hashDirectories([join(root, 'two'), join(root, 'one')])).not.toBe(forward);
  });

  test('independent of directory listing order', async () => {
    const root = tempDir();
    const names = Array.from({ length: 50 }, (_, i) => `f${i}.txt`);
    writeTree(join(root, 'A'), Object.fromEntries(names.map((n) => [n, n])));
    writeTree(join(root, 'B'), Object.fromEntries([...names].reverse().map((n) => [n, n])));
    const a = await hashDirectories([join(root, 'A')]);
    expect(await hashDirectories([join(root, 'B')])).toBe(a);
    const reversed = (dir: string) => listRegularFiles(dir).sort().reverse();
    const shuffled = (dir: string) => listRegularFiles(dir).sort((x, y) => (Bun.hash(x) > Bun.hash(y) ? 1 : -1));
    expect(await hashDirectories([join(root, 'A')], reversed)).toBe(a);
    expect(await hashDirectories([join(root, 'A')], shuffled)).toBe(a);
  });

  test('large files are hashed in chunks with the same result', async () => {
    const root = tempDir();
    const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) & 0xff);
    writeTree(join(root, 'T'), { 'server.jar': big });
    const expected = new Bun.CryptoHasher('sha256').update('server.jar').update(big).digest('hex');
    expect(await hashDirectories([join(root, 'T')])).toBe(expected);
  });

  test('links are not part of the hash (they are not provisioned either)', async () => {
    const root = tempDir();
    writeTree(join(root, 'T'), { 'a.txt': 'x' });
    const before = await hashDirectories([join(root, 'T')]);
    symlinkSync('a.txt', join(root, 'T', 'link.txt'));
    expect(await hashDirectories([join(root, 'T')])).toBe(before);
  });

  test('template names are checked before any path is built', async () => {
    const root = tempDir();
    const error = await templateHash(root, group('G', 'PAPER', { templates: ['../outside'] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errorCode).toBe('PATH_TRAVERSAL');
  });
});
