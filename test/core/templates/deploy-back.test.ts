import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { groupDefaults } from '../../../src/core/groups/model';
import { deployBack } from '../../../src/core/templates/deploy-back';
import { excludeMatcher } from '../../../src/core/templates/deploy-excludes';
import { readTree, removeTempDirs, tempDir, writeTree } from './fixtures';

afterEach(removeTempDirs);

const DEFAULT_EXCLUDES = groupDefaults().deployExcludes;

/** A template and a work dir side by side, as under a real svc dir. */
function setup(template: Record<string, string>, work: Record<string, string>) {
  const base = tempDir('svc-deploy-');
  const templateDir = join(base, 'templates', 'lobby');
  const workDir = join(base, 'services', 'lobby-1');
  writeTree(templateDir, template);
  mkdirSync(workDir, { recursive: true });
  writeTree(workDir, work);
  return { base, templateDir, workDir };
}

/** Names next to the template that a deploy made (stages, old templates). */
function siblings(templateDir: string): string[] {
  const name = basename(templateDir);
  return readdirSync(dirname(templateDir)).filter((entry) => entry !== name && entry.startsWith(name));
}

describe('deployBack: what is copied', () => {
  test('new and changed files land; unchanged files are not counted; files only in the template stay', async () => {
    const { templateDir, workDir } = setup(
      { 'server.properties': 'motd=aaaa\n', 'same.yml': 'x: 1\n', 'only-template.txt': 'keep me', 'world/level.dat': 'old' },
      { 'server.properties': 'motd=bbbb\n', 'same.yml': 'x: 1\n', 'new/deep/file.txt': 'fresh', 'world/level.dat': 'old', 'world/region/r.0.0.mca': 'region' },
    );
    const result = await deployBack({ workDir, templateDir, excludes: DEFAULT_EXCLUDES });
    expect(result).toEqual({ filesChanged: 3, files: ['new/deep/file.txt', 'server.properties', 'world/region/r.0.0.mca'] });
    expect(readTree(templateDir)).toEqual({
      'server.properties': 'motd=bbbb\n',
      'same.yml': 'x: 1\n',
      'only-template.txt': 'keep me',
      'world/level.dat': 'old',
      'new/deep/file.txt': 'fresh',
      'world/region/r.0.0.mca': 'region',
    });
    expect(siblings(templateDir)).toEqual([]);
  });

  test('deployed files are independent of the work dir (no shared inode)', async () => {
    const { templateDir, workDir } = setup({}, { 'config.yml': 'a: 1\n' });
    await deployBack({ workDir, templateDir, excludes: [] });
    expect(statSync(join(templateDir, 'config.yml')).ino).not.toBe(statSync(join(workDir, 'config.yml')).ino);
  });

  test('default excludes, nested globs and plain names at any depth are honoured', async () => {
    const { templateDir, workDir } = setup(
      {},
      {
        'logs/latest.log': 'log',
        'crash-reports/crash.txt': 'crash',
        'cache/mojang_1.21.4.jar': 'jar',
        'libraries/com/x/lib.jar': 'lib',
        'a/b/c.tmp': 'tmp',
        'top.tmp': 'tmp',
        'plugins/Essentials.jar': 'plugin jar',
        'plugins/Essentials/config.yml': 'kept: true\n',
        'plugins/Essentials/lib/inner.jar': 'deeper jar: not matched by plugins/*.jar',
        'plugins/Dynmap/logs/render.log': 'nested logs',
        'world/logs/x.log': 'world log',
        'world/level.dat': 'level',
      },
    );
    const result = await deployBack({ workDir, templateDir, excludes: [...DEFAULT_EXCLUDES, 'plugins/*.jar', 'world/logs'] });
    expect(result.files).toEqual(['plugins/Essentials/config.yml', 'plugins/Essentials/lib/inner.jar', 'world/level.dat']);
    expect(Object.keys(readTree(templateDir)).sort()).toEqual(result.files);
  });

  test('the supervisor folder, links and special files are never deployed, even without excludes', async () => {
    const { base, templateDir, workDir } = setup({}, { '.svc/state.json': '{}', '.svc/console.log': 'x', 'plugins/.svc/kept.txt': 'only the top-level .svc is reserved', 'eula.txt': 'eula=true\n' });
    writeTree(base, { 'shared/libraries/lib.jar': 'lib', 'outside.txt': 'secret' });
    symlinkSync(join(base, 'shared/libraries'), join(workDir, 'libraries'));
    symlinkSync(join(base, 'outside.txt'), join(workDir, 'link.txt'));
    Bun.spawnSync(['mkfifo', join(workDir, 'pipe')]);
    expect(lstatSync(join(workDir, 'pipe')).isFIFO()).toBe(true);

    const result = await deployBack({ workDir, templateDir, excludes: [] });
    expect(result.files).toEqual(['eula.txt', 'plugins/.svc/kept.txt']);
    expect(existsSync(join(templateDir, '.svc'))).toBe(false);
    expect(existsSync(join(templateDir, 'libraries'))).toBe(false);
  });

  test('files hardlinked from the template (same inode) are not counted', async () => {
    const { templateDir, workDir } = setup({ 'server.jar': 'jar bytes', 'libraries/a.jar': 'lib' }, {});
    linkSync(join(templateDir, 'server.jar'), join(workDir, 'server.jar'));
    mkdirSync(join(workDir, 'libraries'));
    linkSync(join(templateDir, 'libraries/a.jar'), join(workDir, 'libraries/a.jar'));
    const before = statSync(templateDir);
    expect(await deployBack({ workDir, templateDir, excludes: [] })).toEqual({ filesChanged: 0, files: [] });
    expect(statSync(templateDir).ino).toBe(before.ino);
  });

  test('file modes are preserved, for deployed files and for what the template already had', async () => {
    const { templateDir, workDir } = setup({ 'start.sh': 'old', 'private/key.pem': 'k', 'run.sh': 'same' }, { 'start.sh': 'new', 'tools/fix.sh': 'fix', 'run.sh': 'same' });
    chmodSync(join(workDir, 'start.sh'), 0o750);
    chmodSync(join(workDir, 'tools/fix.sh'), 0o700);
    chmodSync(join(templateDir, 'private/key.pem'), 0o600);
    chmodSync(join(templateDir, 'private'), 0o710);
    await deployBack({ workDir, templateDir, excludes: [] });
    const mode = (rel: string) => statSync(join(templateDir, rel)).mode & 0o7777;
    expect(mode('start.sh')).toBe(0o750);
    expect(mode('tools/fix.sh')).toBe(0o700);
    expect(mode('private/key.pem')).toBe(0o600);
    expect(mode('private')).toBe(0o710);
  });

  test('template links and empty folders survive the swap', async () => {
    const { templateDir, workDir } = setup({ 'a.txt': 'a' }, { 'a.txt': 'b' });
    symlinkSync('a.txt', join(templateDir, 'alias.txt'));
    mkdirSync(join(templateDir, 'empty'));
    await deployBack({ workDir, templateDir, excludes: [] });
    expect(readlinkSync(join(templateDir, 'alias.txt'))).toBe('a.txt');
    expect(readdirSync(join(templateDir, 'empty'))).toEqual([]);
  });

  test('a template folder that is a link is deployed into where it points; the link stays', async () => {
    const { base, workDir } = setup({}, { 'a.txt': 'new' });
    const real = join(base, 'storage', 'lobby');
    writeTree(real, { 'a.txt': 'old' });
    const templateDir = join(base, 'templates', 'linked');
    mkdirSync(dirname(templateDir), { recursive: true });
    symlinkSync(real, templateDir);
    await deployBack({ workDir, templateDir, excludes: [] });
    expect(lstatSync(templateDir).isSymbolicLink()).toBe(true);
    expect(readTree(real)).toEqual({ 'a.txt': 'new' });
  });

  test('a missing template folder is created', async () => {
    const base = tempDir('svc-deploy-');
    const workDir = join(base, 'work');
    writeTree(workDir, { 'server.properties': 'x=1\n' });
    const templateDir = join(base, 'templates', 'fresh');
    expect((await deployBack({ workDir, templateDir, excludes: [] })).files).toEqual(['server.properties']);
    expect(readTree(templateDir)).toEqual({ 'server.properties': 'x=1\n' });
  });
});

describe('deployBack: nothing changed', () => {
  test('the template folder is not touched at all', async () => {
    const { templateDir, workDir } = setup({ 'a.txt': 'same', 'b/c.txt': 'same too' }, { 'a.txt': 'same', 'b/c.txt': 'same too', 'logs/latest.log': 'excluded', '.svc/x': 'reserved' });
    const past = new Date(Date.now() - 3600_000);
    utimesSync(templateDir, past, past);
    const before = statSync(templateDir);
    expect(await deployBack({ workDir, templateDir, excludes: DEFAULT_EXCLUDES })).toEqual({ filesChanged: 0, files: [] });
    const after = statSync(templateDir);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ctimeMs).toBe(before.ctimeMs);
    expect(siblings(templateDir)).toEqual([]);
  });
});

describe('deployBack: failures leave the template as it was', () => {
  test.each([
    ['a folder in the template where the work dir has a file', { 'config/inner.yml': 'template folder' }, { config: 'work file' }, /folder at config/],
    ['a file in the template where the work dir has a folder', { plugins: 'template file' }, { 'plugins/x.yml': 'work folder' }, /file at plugins/],
  ])('%s', async (_name, templateFiles, workFiles, cause) => {
    // `a-first.txt` is written into the stage before the clash is reached.
    const { templateDir, workDir } = setup({ ...templateFiles, 'a-first.txt': 'old', 'z.txt': 'z' }, { ...workFiles, 'a-first.txt': 'new' });
    const tree = readTree(templateDir);
    const inode = statSync(templateDir).ino;
    const error = await deployBack({ workDir, templateDir, excludes: [] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain(workDir);
    expect(message).toContain(templateDir);
    expect(message).toMatch(cause);
    expect(readTree(templateDir)).toEqual(tree);
    expect(statSync(templateDir).ino).toBe(inode);
    expect(siblings(templateDir)).toEqual([]);
  });

  test('a failed deploy does not block the next one into the same template', async () => {
    const { templateDir, workDir } = setup({ 'config/inner.yml': 'x' }, { config: 'clash' });
    await expect(deployBack({ workDir, templateDir, excludes: [] })).rejects.toThrow(/folder at config/);
    writeTree(workDir, { 'ok.txt': 'fine' });
    expect((await deployBack({ workDir, templateDir, excludes: ['config'] })).files).toEqual(['ok.txt']);
  });

  test('a missing work dir is reported as such', async () => {
    const base = tempDir('svc-deploy-');
    await expect(deployBack({ workDir: join(base, 'gone'), templateDir: join(base, 't'), excludes: [] })).rejects.toThrow(/work dir does not exist/);
  });
});

describe('deployBack: concurrency and leftovers', () => {
  // Over the placer's 8 MiB threshold, so each copy goes through the thread pool and the two
  // deploys would interleave if they were not serialised.
  const BIG = 9 * 1024 * 1024;

  test('two deploys into the same template both land', async () => {
    const base = tempDir('svc-deploy-');
    const templateDir = join(base, 'templates', 'lobby');
    writeTree(templateDir, { 'shared.txt': 'template' });
    const works = ['lobby-1', 'lobby-2'].map((name) => {
      const workDir = join(base, 'services', name);
      writeTree(workDir, { [`${name}/world.dat`]: new Uint8Array(BIG).fill(name.length + Number(name.at(-1))), [`${name}.txt`]: name });
      return workDir;
    });
    const other = join(base, 'templates', 'other');
    const results = await Promise.all([...works.map((workDir) => deployBack({ workDir, templateDir, excludes: [] })), deployBack({ workDir: works[0]!, templateDir: other, excludes: [] })]);
    expect(results.map((r) => r.files)).toEqual([
      ['lobby-1.txt', 'lobby-1/world.dat'],
      ['lobby-2.txt', 'lobby-2/world.dat'],
      ['lobby-1.txt', 'lobby-1/world.dat'],
    ]);
    expect(readdirSync(templateDir).sort()).toEqual(['lobby-1', 'lobby-1.txt', 'lobby-2', 'lobby-2.txt', 'shared.txt']);
    expect(statSync(join(templateDir, 'lobby-2/world.dat')).size).toBe(BIG);
    expect(siblings(templateDir)).toEqual([]);
  });

  test('stale stages and old templates from a killed process are removed; fresh ones are left', async () => {
    const { templateDir, workDir } = setup({ 'a.txt': 'a' }, { 'a.txt': 'b' });
    const stale = [`${templateDir}.deploy-0123456789abcdef`, `${templateDir}.old-fedcba9876543210`];
    const fresh = `${templateDir}.deploy-00000000000000ff`;
    for (const dir of [...stale, fresh]) writeTree(dir, { 'half.txt': 'half' });
    const past = new Date(Date.now() - 2 * 3600_000);
    for (const dir of stale) utimesSync(dir, past, past);
    await deployBack({ workDir, templateDir, excludes: [] });
    expect(readTree(templateDir)).toEqual({ 'a.txt': 'b' });
    expect(siblings(templateDir)).toEqual([basename(fresh)]);
  });

  test('a template left under its .old name by a swap cut short is restored before comparing', async () => {
    const { templateDir, workDir } = setup({}, { 'a.txt': 'a', 'b.txt': 'changed' });
    const old = `${templateDir}.old-0123456789abcdef`;
    writeTree(old, { 'a.txt': 'a', 'b.txt': 'before', 'only-old.txt': 'kept' });
    expect(existsSync(templateDir)).toBe(false);
    const result = await deployBack({ workDir, templateDir, excludes: [] });
    expect(result.files).toEqual(['b.txt']);
    expect(readTree(templateDir)).toEqual({ 'a.txt': 'a', 'b.txt': 'changed', 'only-old.txt': 'kept' });
    expect(siblings(templateDir)).toEqual([]);
  });
});

describe('excludeMatcher', () => {
  test.each([
    ['logs', 'logs/latest.log', true],
    ['logs', 'plugins/x/logs/a.log', true],
    ['logs', 'logsmith.txt', false],
    ['world/logs', 'world/logs/a/b.log', true],
    ['world/logs', 'other/world/logs/a.log', false],
    ['*.tmp', 'a/b/c.tmp', true],
    ['*.tmp', 'a/b.tmp/c.txt', true],
    ['plugins/*.jar', 'plugins/x.jar', true],
    ['plugins/*.jar', 'plugins/x/y.jar', false],
    ['plugins/**/*.jar', 'plugins/x/y.jar', true],
    ['cache/', 'cache/x', true],
    ['./cache', 'cache/x', true],
    ['/cache', 'cache/x', true],
    ['/cache', 'plugins/cache/x', false],
  ])('%s on %s → %p', (pattern, rel, excluded) => {
    expect(excludeMatcher([pattern])(rel)).toBe(excluded);
  });

  test('no patterns exclude nothing', () => {
    expect(excludeMatcher([])('anything')).toBe(false);
    expect(excludeMatcher(['', '/'])('anything')).toBe(false);
  });
});
