import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FilePlacer } from '../../../src/core/templates/place-file';
import { removeTempDirs, tempDir, writeTree } from './fixtures';

afterEach(removeTempDirs);

describe('FilePlacer', () => {
  test('big plain copies go through the thread pool with the same exclusivity rules', async () => {
    const dir = tempDir();
    writeTree(dir, { 'world.dat': 'region bytes', 'dst/world.dat': 'existing' });
    const keep = new FilePlacer({ overwrite: false, hardlinks: false, asyncCopyBytes: 1 });
    expect(await keep.place(join(dir, 'world.dat'), join(dir, 'dst/world.dat'), 'world.dat')).toEqual({ mode: 'kept' });
    expect(readFileSync(join(dir, 'dst/world.dat'), 'utf8')).toBe('existing');
    const replace = new FilePlacer({ overwrite: true, hardlinks: false, asyncCopyBytes: 1 });
    const outcome = await replace.place(join(dir, 'world.dat'), join(dir, 'dst/world.dat'), 'world.dat');
    expect(outcome.mode === 'copy' || outcome.mode === 'reflink').toBe(true);
    expect(readFileSync(join(dir, 'dst/world.dat'), 'utf8')).toBe('region bytes');
    expect(statSync(join(dir, 'dst/world.dat')).ino).not.toBe(statSync(join(dir, 'world.dat')).ino);
  });

  test('a source that vanished since the listing is reported, not fatal', async () => {
    const dir = tempDir();
    writeTree(dir, { 'gone.txt': 'x' });
    rmSync(join(dir, 'gone.txt'));
    const placer = new FilePlacer({ overwrite: true, hardlinks: true });
    expect(await placer.place(join(dir, 'gone.txt'), join(dir, 'out.txt'), 'gone.txt')).toEqual({ mode: 'vanished' });
  });

  test('non-candidates are never hardlinked, even when allowed', async () => {
    const dir = tempDir();
    writeTree(dir, { 'server.properties': 'a=b\n', 'mods/x.JAR': 'jar' });
    const placer = new FilePlacer({ overwrite: true, hardlinks: true });
    const config = await placer.place(join(dir, 'server.properties'), join(dir, 'out.properties'), 'server.properties');
    expect(config.mode).not.toBe('hardlink');
    const jar = await placer.place(join(dir, 'mods/x.JAR'), join(dir, 'out.jar'), 'mods/x.JAR');
    expect(['reflink', 'hardlink', 'copy']).toContain(jar.mode);
  });
});
