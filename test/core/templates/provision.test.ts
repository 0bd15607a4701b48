import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeCopySupport } from '../../../src/core/templates/copy-probe';
import { hardlinksSafeByDefault } from '../../../src/core/templates/link-policy';
import { provisionStack } from '../../../src/core/templates/provision';
import { readTree, removeTempDirs, tempDir, writeTree } from './fixtures';
import { ownByWriter, writeInPlaceUnprivileged } from './unprivileged-write';

afterEach(removeTempDirs);

const JAR = 'PK\u0003\u0004 pretend jar bytes';

/** A template folder with a jar, a library, configs; and an empty work-dir parent. */
function setup(files: Record<string, string> = { 'server.jar': JAR, 'libraries/com/x/lib-1.0.jar': 'lib', 'libraries/natives/x.so': 'so', 'server.properties': 'motd=hi\n', 'plugins/P.jar': 'plugin', 'plugins/P/config.yml': 'a: 1\n' }) {
  const base = tempDir();
  const template = join(base, 'templates', 'lobby');
  writeTree(template, files);
  return { base, template, work: join(base, 'services', 'lobby-1') };
}

describe('provisioning counts', () => {
  test('files, bytes and modes add up; contents are exact', async () => {
    const { template, work } = setup();
    const result = await provisionStack([template], work, { hardlinks: true });
    expect(readTree(work)).toEqual(readTree(template));
    expect(result.files).toBe(6);
    expect(result.bytes).toBe(JAR.length + 'lib'.length + 'so'.length + 'motd=hi\n'.length + 'plugin'.length + 'a: 1\n'.length);
    expect(result.reflinked + result.hardlinked + result.copied).toBe(result.files);
    expect(result.kept).toBe(0);
    expect(result.skipped).toEqual([]);
  });

  test('an empty stack gives an empty work dir', async () => {
    const base = tempDir();
    mkdirSync(join(base, 'empty'));
    const result = await provisionStack([join(base, 'empty')], join(base, 'work'));
    expect(result).toEqual({ files: 0, bytes: 0, reflinked: 0, hardlinked: 0, copied: 0, kept: 0, skipped: [] });
    expect(statSync(join(base, 'work')).isDirectory()).toBe(true);
  });

  test('file modes survive the copy (an executable start script stays executable)', async () => {
    const { template, work } = setup({ 'start.sh': '#!/bin/sh\n' });
    chmodSync(join(template, 'start.sh'), 0o750);
    await provisionStack([template], work, { hardlinks: true });
    expect(statSync(join(work, 'start.sh')).mode & 0o777).toBe(0o750);
  });
});

describe('copy mode fallback chain', () => {
  test('reflink when the file system clones, else hardlinks for jars and libraries, else copies', async () => {
    const { template, work } = setup();
    const support = probeCopySupport(template, work);
    const result = await provisionStack([template], work, { hardlinks: true });
    // Six files: four are hardlink candidates (three jars, one library file).
    if (support.reflink) expect(result).toMatchObject({ reflinked: 6, hardlinked: 0, copied: 0 });
    else if (support.hardlink) expect(result).toMatchObject({ reflinked: 0, hardlinked: 4, copied: 2 });
    else expect(result).toMatchObject({ reflinked: 0, hardlinked: 0, copied: 6 });
    // A refused clone leaves nothing behind: the tree is exactly the template's.
    expect(readTree(work)).toEqual(readTree(template));
    expect(readdirSync(template).filter((name) => name.startsWith('.svc-probe'))).toEqual([]);
  });

  test('without hardlinks everything not cloned is copied; configs are never hardlinked', async () => {
    const { template, work } = setup();
    const support = probeCopySupport(template, work);
    const result = await provisionStack([template], work, { hardlinks: false });
    expect(result.hardlinked).toBe(0);
    expect(result.copied).toBe(support.reflink ? 0 : 6);
    expect(statSync(join(work, 'server.properties')).ino).not.toBe(statSync(join(template, 'server.properties')).ino);
  });

  test('the default uses hardlinks only when svc is not root (root ignores read-only bits)', async () => {
    const { template, work } = setup();
    const support = probeCopySupport(template, work);
    const result = await provisionStack([template], work);
    const expectLinks = !support.reflink && support.hardlink && hardlinksSafeByDefault();
    expect(result.hardlinked > 0).toBe(expectLinks);
    expect(hardlinksSafeByDefault()).toBe(process.geteuid?.() !== 0);
  });
});

describe('hardlinked files are read-only and shared safely', () => {
  async function linked() {
    const ctx = setup();
    const support = probeCopySupport(ctx.template, ctx.work);
    const result = await provisionStack([ctx.template], ctx.work, { hardlinks: true });
    return { ...ctx, support, result };
  }

  test('a hardlinked jar shares the inode and is 0444 on both sides', async () => {
    const { template, work, support, result } = await linked();
    if (support.reflink || !support.hardlink) return expect(result.hardlinked).toBe(0);
    for (const rel of ['server.jar', 'libraries/com/x/lib-1.0.jar', 'libraries/natives/x.so', 'plugins/P.jar']) {
      const a = statSync(join(template, rel));
      const b = statSync(join(work, rel));
      expect(b.ino).toBe(a.ino);
      expect(b.nlink).toBeGreaterThanOrEqual(2);
      expect(b.mode & 0o777).toBe(0o444);
    }
    expect(statSync(join(work, 'server.properties')).mode & 0o222).not.toBe(0);
  });

  test('an in-place write to the service copy fails and leaves the template untouched', async () => {
    const { base, template, work } = setup();
    const support = probeCopySupport(template, work);
    if (support.reflink || !support.hardlink) return;
    // The server's user owns the template files, so only the mode bits can stop its writes.
    ownByWriter([join(template, 'server.jar'), join(template, 'server.properties')]);
    await provisionStack([template], work, { hardlinks: true });
    const open = [base, join(base, 'services'), work];
    expect(writeInPlaceUnprivileged(join(work, 'server.jar'), open)).toBe('EACCES');
    expect(readFileSync(join(template, 'server.jar'), 'utf8')).toBe(JAR);
    expect(readFileSync(join(work, 'server.jar'), 'utf8')).toBe(JAR);
    // Control: the same user can write in place where the bits allow it (the template's own
    // writable file, not shared), so it is the read-only bit that stopped the first write.
    expect(writeInPlaceUnprivileged(join(template, 'server.properties'), [join(base, 'templates'), template])).toBeNull();
    expect(readFileSync(join(template, 'server.properties'), 'utf8')).toStartWith('CORRUPTED');
  });

  test.if(process.geteuid?.() === 0)('as root the read-only bit stops nothing (why hardlinks are off by default for root)', async () => {
    const { template, work, support } = await linked();
    if (support.reflink || !support.hardlink) return;
    writeFileSync(join(work, 'server.jar'), 'root writes anyway', { flag: 'r+' });
    expect(readFileSync(join(template, 'server.jar'), 'utf8')).toStartWith('root writes anyway');
  });

  test('replacing the file (write elsewhere, rename over) works and only changes the service', async () => {
    const { template, work, support } = await linked();
    if (support.reflink || !support.hardlink) return;
    writeFileSync(join(work, 'server.jar.new'), 'updated jar');
    renameSync(join(work, 'server.jar.new'), join(work, 'server.jar'));
    unlinkSync(join(work, 'plugins/P.jar'));
    expect(readFileSync(join(work, 'server.jar'), 'utf8')).toBe('updated jar');
    expect(readFileSync(join(template, 'server.jar'), 'utf8')).toBe(JAR);
    expect(readFileSync(join(template, 'plugins/P.jar'), 'utf8')).toBe('plugin');
    expect(statSync(join(work, 'server.jar')).ino).not.toBe(statSync(join(template, 'server.jar')).ino);
  });

  test('re-provisioning over hardlinks replaces them without writing through', async () => {
    const { base, template, work } = await linked();
    const other = join(base, 'templates', 'other');
    writeTree(other, { 'server.jar': 'other jar', 'server.properties': 'motd=other\n' });
    await provisionStack([other], work, { hardlinks: true });
    expect(readFileSync(join(work, 'server.jar'), 'utf8')).toBe('other jar');
    expect(readFileSync(join(template, 'server.jar'), 'utf8')).toBe(JAR);
    expect(readFileSync(join(template, 'server.properties'), 'utf8')).toBe('motd=hi\n');
  });
});

describe('existing work dirs', () => {
  test('overwrite:false keeps existing files and adds the missing ones', async () => {
    const { template, work } = setup({ 'server.properties': 'template', 'new.txt': 'new', 'world/level.dat': 'template world' });
    writeTree(work, { 'server.properties': 'mine', 'world/level.dat': 'my world', 'extra.txt': 'mine' });
    const result = await provisionStack([template], work, { overwrite: false, hardlinks: true });
    expect(readTree(work)).toEqual({ 'server.properties': 'mine', 'new.txt': 'new', 'world/level.dat': 'my world', 'extra.txt': 'mine' });
    expect(result).toMatchObject({ files: 1, kept: 2 });
  });

  test('overwrite:false never removes or writes through an entry in the way', async () => {
    const { base, template, work } = setup({ 'plugins/a.yml': 'template', 'logs.txt': 'template' });
    const outside = join(base, 'outside');
    mkdirSync(outside);
    mkdirSync(work, { recursive: true });
    symlinkSync(outside, join(work, 'plugins'));
    symlinkSync(join(outside, 'target.txt'), join(work, 'logs.txt'));
    const result = await provisionStack([template], work, { overwrite: false });
    expect(result).toMatchObject({ files: 0, kept: 2 });
    expect(lstatSync(join(work, 'plugins')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(work, 'logs.txt')).isSymbolicLink()).toBe(true);
    expect(readTree(outside)).toEqual({});
  });

  test('overwrite (the default) replaces files, links and mismatched kinds without following links', async () => {
    const { base, template, work } = setup({ 'plugins/a.yml': 'template', 'logs.txt': 'template', 'x/y.txt': 'template' });
    const outside = join(base, 'outside');
    writeTree(outside, { 'target.txt': 'outside' });
    mkdirSync(work, { recursive: true });
    symlinkSync(outside, join(work, 'plugins'));
    symlinkSync(join(outside, 'target.txt'), join(work, 'logs.txt'));
    writeFileSync(join(work, 'x'), 'a file where the template has a folder');
    await provisionStack([template], work);
    expect(readTree(work)).toEqual({ 'plugins/a.yml': 'template', 'logs.txt': 'template', 'x/y.txt': 'template' });
    expect(lstatSync(join(work, 'plugins')).isDirectory()).toBe(true);
    expect(readTree(outside)).toEqual({ 'target.txt': 'outside' });
  });
});

describe('links in templates', () => {
  test('symlinks are never followed or copied, and are reported', async () => {
    const { base, template, work } = setup({ 'real.txt': 'real' });
    writeTree(join(base, 'secret'), { 'key.pem': 'secret' });
    symlinkSync(join(base, 'secret'), join(template, 'escape-dir'));
    symlinkSync('../../secret/key.pem', join(template, 'escape-file'));
    symlinkSync('real.txt', join(template, 'inside-link'));
    const result = await provisionStack([template], work);
    expect(readTree(work)).toEqual({ 'real.txt': 'real' });
    expect(result.skipped.sort()).toEqual([join(template, 'escape-dir'), join(template, 'escape-file'), join(template, 'inside-link')]);
    expect(existsSync(join(work, 'escape-dir'))).toBe(false);
  });

  test('a FIFO is skipped instead of blocking the copy', async () => {
    const { template, work } = setup({ 'real.txt': 'real' });
    const mkfifo = Bun.spawnSync(['mkfifo', join(template, 'pipe')]);
    if (mkfifo.exitCode !== 0) return;
    const result = await provisionStack([template], work);
    expect(result.skipped).toEqual([join(template, 'pipe')]);
    expect(readTree(work)).toEqual({ 'real.txt': 'real' });
  });
});
