/** Manifests: regular files only, excludes, sorted paths, the hash cache, and what a wire manifest may hold. */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HashCache } from '../../../src/cluster/state-sync/hash-cache';
import { buildManifest, manifestProblem } from '../../../src/cluster/state-sync/manifest';
import { confinedFile, relPathProblem } from '../../../src/core/files/rel-path';
import { tempDir } from '../../support/controller';

const scratch = tempDir('svc-manifest-');
afterAll(() => scratch.remove());

const sha256 = (data: string) => new Bun.CryptoHasher('sha256').update(data).digest('hex');

function tree(name: string, files: Record<string, string>): string {
  const dir = join(scratch.dir, name);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}

describe('buildManifest', () => {
  test('regular files with hash and size, sorted; links skipped; excludes by name and glob', async () => {
    const dir = tree('basic', {
      'b.txt': 'bee',
      'a/z.yml': 'zed',
      'a/b/c.dat': '',
      '10': 'numeric name',
      'logs/latest.log': 'log',
      'world/logs/x': 'nested log folder',
      'cache.tmp': 'tmp',
      'plugins/x.jar': 'jar',
      'plugins/keep/x.jar': 'deeper jar',
    });
    symlinkSync(join(dir, 'b.txt'), join(dir, 'link.txt'));
    symlinkSync(scratch.dir, join(dir, 'link-dir'));
    const manifest = await buildManifest(dir, { excludes: ['logs', '*.tmp', 'plugins/*.jar'] });
    expect(Object.keys(manifest.files)).toEqual(['10', 'a/b/c.dat', 'a/z.yml', 'b.txt', 'plugins/keep/x.jar']);
    expect(manifest.files['b.txt']).toEqual({ sha256: sha256('bee'), size: 3 });
    expect(manifest.files['a/b/c.dat']).toEqual({ sha256: sha256(''), size: 0 });
  });

  test('the supervisor’s .svc folder (the server’s TMPDIR) is never state, whatever the excludes', async () => {
    const dir = tree('supervisor', { 'world/level.dat': 'w', '.svc/tmp/scratch': 's', '.svc/console.log': 'old', 'plugins/.svc/kept': 'k' });
    expect(Object.keys((await buildManifest(dir)).files)).toEqual(['plugins/.svc/kept', 'world/level.dat']);
  });

  test('a missing folder has an empty manifest', async () => {
    expect(await buildManifest(join(scratch.dir, 'nowhere'))).toEqual({ files: {} });
  });

  test('names state sync cannot carry are reported and left out', async () => {
    const dir = tree('odd', { 'ok.txt': 'ok', 'bad\nname.txt': 'x' });
    const skipped: string[] = [];
    const manifest = await buildManifest(dir, { onUnsyncable: (rel, reason) => skipped.push(`${JSON.stringify(rel)}: ${reason}`) });
    expect(Object.keys(manifest.files)).toEqual(['ok.txt']);
    expect(skipped).toEqual(['"bad\\nname.txt": the path contains a control character']);
  });

  test('the cache reuses a hash while the stamp holds and notices a change', async () => {
    const dir = tree('cached', { 'f.txt': 'one' });
    const file = join(dir, 'f.txt');
    const cache = new HashCache({ useCtime: false });
    expect((await buildManifest(dir, { cache })).files['f.txt']!.sha256).toBe(sha256('one'));
    // Same size and mtime, same inode: without ctime the cached hash is (knowingly) reused.
    const when = new Date('2024-01-01T00:00:00Z');
    utimesSync(file, when, when);
    expect((await buildManifest(dir, { cache })).files['f.txt']!.sha256).toBe(sha256('one'));
    writeFileSync(file, 'two');
    utimesSync(file, when, when);
    expect((await buildManifest(dir, { cache })).files['f.txt']!.sha256).toBe(sha256('one'));
    // With ctime (the agent's default) the rewrite is seen although size and mtime are the same.
    const withCtime = new HashCache();
    writeFileSync(file, 'one');
    utimesSync(file, when, when);
    expect((await buildManifest(dir, { cache: withCtime })).files['f.txt']!.sha256).toBe(sha256('one'));
    writeFileSync(file, 'two');
    utimesSync(file, when, when);
    expect((await buildManifest(dir, { cache: withCtime })).files['f.txt']!.sha256).toBe(sha256('two'));
    // A different size or mtime is always seen.
    writeFileSync(file, 'three');
    expect((await buildManifest(dir, { cache })).files['f.txt']).toEqual({ sha256: sha256('three'), size: 5 });
  });
});

describe('relPathProblem', () => {
  test.each(['a', 'a/b/c.txt', 'ünï cødé/"q".yml', 'a..b', '.hidden/x', 'x'.repeat(255)])('accepts %j', (rel) => {
    expect(relPathProblem(rel)).toBeNull();
  });
  test.each([
    ['', 'empty'],
    ['/abs', 'absolute'],
    ['C:/x', 'absolute'],
    ['a\\b', 'backslash'],
    ['a/../b', '".." segment'],
    ['..', '".." segment'],
    ['./a', '"." segment'],
    ['a//b', 'segment'],
    ['a/', 'segment'],
    ['a\u0000b', 'control character'],
    ['a\rb', 'control character'],
    ['a\ud800b', 'lone surrogate'],
    ['x'.repeat(256), 'segment is longer'],
    [`${'abcdefgh/'.repeat(460)}x`, 'longer than 4096'],
  ])('refuses %j (%s)', (rel, fragment) => {
    expect(relPathProblem(rel)).toContain(fragment);
  });
});

describe('manifestProblem', () => {
  const entry = { sha256: sha256('x'), size: 1 };
  test('a good manifest has none', () => {
    expect(manifestProblem({ files: { a: entry, 'b/c': entry } })).toBeNull();
    expect(manifestProblem({ files: {} })).toBeNull();
  });
  test.each([
    [null, 'JSON object'],
    [[], 'JSON object'],
    [{}, '"files" object'],
    [{ files: [] }, '"files" object'],
    [{ files: { '../x': entry } }, '"../x"'],
    [{ files: { a: null } }, 'must be {sha256, size}'],
    [{ files: { a: { sha256: 'ABC', size: 1 } } }, '"sha256" must be'],
    [{ files: { a: { sha256: sha256('x').toUpperCase(), size: 1 } } }, '"sha256" must be'],
    [{ files: { a: { sha256: sha256('x'), size: -1 } } }, '"size"'],
    [{ files: { a: { sha256: sha256('x'), size: 1.5 } } }, '"size"'],
    [{ files: { a: { sha256: sha256('x'), size: '1' } } }, '"size"'],
    [{ files: { a: entry, 'a/b': entry } }, 'entry "a": it is a file'],
  ])('%j: %s', (value, fragment) => {
    expect(manifestProblem(value)).toContain(fragment);
  });
});

describe('confinedFile', () => {
  test('a file inside; links, folders and escapes are not', () => {
    const root = tree('confined/root', { 'in.txt': 'x', 'd/f.txt': 'y' });
    tree('confined', { 'outside.txt': 'secret' });
    symlinkSync(join(root, '..', 'outside.txt'), join(root, 'out.txt'));
    symlinkSync(join(root, 'd'), join(root, 'dlink'));
    expect(confinedFile(root, 'in.txt')).toEqual({ ok: true, path: join(root, 'in.txt') });
    expect(confinedFile(root, 'd/f.txt')).toEqual({ ok: true, path: join(root, 'd/f.txt') });
    expect(confinedFile(root, 'out.txt')).toMatchObject({ ok: false, reason: 'traversal' });
    expect(confinedFile(root, 'dlink/f.txt')).toMatchObject({ ok: false, reason: 'traversal' });
    expect(confinedFile(root, '../outside.txt')).toMatchObject({ ok: false, reason: 'traversal' });
    expect(confinedFile(root, 'd')).toMatchObject({ ok: false, reason: 'missing' });
    expect(confinedFile(root, 'in.txt/x')).toMatchObject({ ok: false, reason: 'missing' });
    expect(confinedFile(root, 'nope')).toMatchObject({ ok: false, reason: 'missing' });
  });
});
