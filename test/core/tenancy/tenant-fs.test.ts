/** The tenant rule itself (tenancy/fs): every read and write of a hostile directory, with /proc and without. */
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_DEPTH, openRegular, overrideProcFds, RefusedEntry, TenantTree, usesProcFds } from '../../../src/core/tenancy/fs';
import { removeTempDirs, tempDir } from '../templates/fixtures';
import { expectNoSecret, expectOutsideUntouched, fifoWatchdog, hostileBase, plant, type Hostile } from '../templates/hostile';

afterEach(removeTempDirs);
afterAll(() => overrideProcFds(null));

const PLANTED = { fileLink: ['server.properties', 'plugins/Essentials/config.yml'], dirLink: ['plugins/linked', 'world'], fifo: ['eula.txt', 'logs/latest.log'], hardlink: ['ops.json'] };

function hostileTree(): { h: Hostile; work: string; tree: TenantTree } {
  const h = hostileBase();
  const work = join(h.base, 'work');
  mkdirSync(join(work, 'plugins', 'Essentials'), { recursive: true });
  writeFileSync(join(work, 'plugins', 'Essentials', 'ok.yml'), 'fine: true\n');
  writeFileSync(join(work, 'ok.txt'), 'ok');
  plant(h, work, PLANTED);
  return { h, work, tree: TenantTree.open(work)! };
}

const modes = process.platform === 'linux' ? ([true, false] as const) : ([false] as const);

describe.each(modes)('TenantTree (through /proc/self/fd: %p)', (proc) => {
  const use = () => overrideProcFds(proc ? null : false);

  test('reads regular files; refuses links (at the end and on the way), FIFOs and hard links without blocking', () => {
    use();
    if (proc) expect(usesProcFds()).toBe(true);
    const { h, work, tree } = hostileTree();
    const dog = fifoWatchdog([join(work, 'eula.txt'), join(work, 'logs/latest.log')]);
    try {
      expect(tree.readSmall('ok.txt', 100)?.toString()).toBe('ok');
      expect(tree.readSmall('plugins/Essentials/ok.yml', 100)?.toString()).toBe('fine: true\n');
      const refusal = (rel: string) => {
        try {
          tree.openRead(rel)?.close();
          return 'read';
        } catch (error) {
          if (error instanceof RefusedEntry) return `${error.rel}: ${error.refusal}`;
          throw error;
        }
      };
      expect(refusal('server.properties')).toBe('server.properties: link');
      expect(refusal('plugins/Essentials/config.yml')).toBe('plugins/Essentials/config.yml: link');
      expect(refusal('plugins/linked/inner.txt')).toBe('plugins/linked: link');
      expect(refusal('world/nested/deep.yml')).toBe('world: link');
      expect(refusal('eula.txt')).toBe('eula.txt: special');
      expect(refusal('logs/latest.log')).toBe('logs/latest.log: special');
      expect(refusal('ops.json')).toBe('ops.json: hardlinked');
      expect(refusal('plugins')).toBe('plugins: special');
      expect(tree.openRead('missing.txt')).toBeNull();
      expect(tree.openRead('ok.txt/below')).toBeNull();
      expect(tree.readSmall.bind(tree, 'ok.txt', 1)).toThrow(RefusedEntry);
    } finally {
      tree.close();
      expect(dog.stop()).toBe(false);
    }
    expectOutsideUntouched(h);
  });

  test('a tree that accepts hard links reads them; links stay refused', () => {
    use();
    const { h, work } = hostileTree();
    const tree = TenantTree.open(work, { hardlinks: true })!;
    try {
      expect(tree.readSmall('ops.json', 1000)?.toString()).toBe(`${h.secrets[3]}\n`);
      expect(() => tree.openRead('server.properties')).toThrow(RefusedEntry);
    } finally {
      tree.close();
    }
  });

  test('writeFile replaces a link, a FIFO or a hard link instead of writing through it', () => {
    use();
    const { h, work, tree } = hostileTree();
    const dog = fifoWatchdog([join(work, 'eula.txt')]);
    try {
      tree.writeFile('server.properties', 'server-port=1\n');
      tree.writeFile('eula.txt', 'eula=true\n');
      tree.writeFile('ops.json', '[]');
      tree.writeFile('forwarding.secret', 'x', { mode: 0o600 });
      tree.writeFile('new/deeper/file.txt', 'made');
    } finally {
      tree.close();
      expect(dog.stop()).toBe(false);
    }
    expect(readFileSync(join(work, 'server.properties'), 'utf8')).toBe('server-port=1\n');
    expect(lstatSync(join(work, 'server.properties')).isFile()).toBe(true);
    expect(lstatSync(join(work, 'eula.txt')).isFile()).toBe(true);
    expect(statSync(join(work, 'ops.json')).nlink).toBe(1);
    expect(statSync(join(work, 'forwarding.secret')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(work, 'new/deeper/file.txt'), 'utf8')).toBe('made');
    expectOutsideUntouched(h);
  });

  test('a write under a folder link is refused, naming the link, and lands nowhere', () => {
    use();
    const { h, work, tree } = hostileTree();
    try {
      expect(() => tree.writeFile('plugins/linked/inner.txt', 'pwned')).toThrow(/plugins\/linked is a symbolic link/);
      expect(() => tree.writeFile('world/nested/deep.yml', 'pwned')).toThrow(/world is a symbolic link/);
      expect(() => tree.writeFile('ok.txt/x', 'y')).toThrow(/ok.txt is not a folder/);
      // `replace` swaps the link for a real folder (what provisioning and a pull do).
      tree.withFolder('world/region', 'replace', () => undefined);
    } finally {
      tree.close();
    }
    expect(lstatSync(join(work, 'world')).isDirectory()).toBe(true);
    expect(lstatSync(join(work, 'world/region')).isDirectory()).toBe(true);
    expectOutsideUntouched(h);
  });

  test('remove unlinks links and hard links, never what they stand for; nothing under a folder link', () => {
    use();
    const { h, work, tree } = hostileTree();
    try {
      expect(tree.remove('server.properties')).toBe(true);
      expect(tree.remove('ops.json')).toBe(true);
      expect(tree.remove('plugins/linked/inner.txt')).toBe(false);
      expect(tree.remove('nothing-here')).toBe(false);
      tree.removeAll('world');
    } finally {
      tree.close();
    }
    expect(existsSync(join(work, 'server.properties'))).toBe(false);
    expect(existsSync(join(work, 'world'))).toBe(false);
    expectOutsideUntouched(h);
  });

  test('the walk lists regular files only and names every link and special file it leaves out', async () => {
    use();
    const { h, work, tree } = hostileTree();
    const skipped: string[] = [];
    const dog = fifoWatchdog([join(work, 'eula.txt'), join(work, 'logs/latest.log')]);
    let files: string[];
    try {
      files = await tree.files({ skip: (rel) => skipped.push(rel) });
    } finally {
      tree.close();
      expect(dog.stop()).toBe(false);
    }
    // The hard link is listed (a listing stats nothing); openRead refuses it.
    expect(files.sort()).toEqual(['ok.txt', 'ops.json', 'plugins/Essentials/ok.yml']);
    expect(skipped.sort()).toEqual(['eula.txt', 'logs/latest.log', 'plugins/Essentials/config.yml', 'plugins/linked', 'server.properties', 'world']);
    expectOutsideUntouched(h);
  });

  test('a folder swapped for a link after it was opened is not followed', () => {
    use();
    const { h, work, tree } = hostileTree();
    try {
      mkdirSync(join(work, 'config'));
      writeFileSync(join(work, 'config', 'a.yml'), 'a');
      expect(tree.readSmall('config/a.yml', 10)?.toString()).toBe('a');
      // The server moves its folder away and plants a link in its place.
      renameSync(join(work, 'config'), join(work, 'config.moved'));
      symlinkSync(join(h.outside, 'dir'), join(work, 'config'));
      if (proc) {
        // The open folder is the real one, wherever it went: the write lands beside a.yml.
        tree.writeFile('config/inner.txt', 'not outside');
        expect(readFileSync(join(work, 'config.moved', 'inner.txt'), 'utf8')).toBe('not outside');
      }
    } finally {
      tree.close();
    }
    const fresh = TenantTree.open(work)!;
    try {
      expect(() => fresh.readSmall('config/inner.txt', 100)).toThrow(/config is a symbolic link/);
    } finally {
      fresh.close();
    }
    expectOutsideUntouched(h);
  });

  test('folders nested deeper than MAX_DEPTH are left out, not walked or failed on', async () => {
    use();
    const base = tempDir('svc-tenant-deep-');
    const segments = Array.from({ length: MAX_DEPTH + 3 }, (_, i) => `d${i}`);
    mkdirSync(join(base, ...segments), { recursive: true });
    writeFileSync(join(base, ...segments.slice(0, MAX_DEPTH), 'kept.txt'), 'k');
    writeFileSync(join(base, ...segments, 'too-deep.txt'), 'x');
    const tree = TenantTree.open(base)!;
    const skipped: string[] = [];
    try {
      const files = await tree.files({ skip: (rel) => skipped.push(rel) });
      expect(files).toEqual([[...segments.slice(0, MAX_DEPTH), 'kept.txt'].join('/')]);
      expect(skipped).toEqual([segments.slice(0, MAX_DEPTH + 1).join('/')]);
      expect(() => tree.openRead([...segments, 'too-deep.txt'].join('/'))).toThrow(RefusedEntry);
    } finally {
      tree.close();
    }
  });
});

describe('owners (root only)', () => {
  const root = process.geteuid?.() === 0;

  test.if(root)('entries svc creates in a folder of another user become that user’s; hard links never change owner', () => {
    const { h, work } = hostileTree();
    chownSync(work, 4321, 4322);
    const tree = TenantTree.open(work)!;
    try {
      tree.writeFile('server.properties', 'x=1\n');
      tree.writeFile('config/paper-global.yml', 'a: 1\n');
      tree.withFolder('', 'existing', (folder) => tree.adoptFile(folder, 'ops.json'));
    } finally {
      tree.close();
    }
    const owner = (rel: string) => [lstatSync(join(work, rel)).uid, lstatSync(join(work, rel)).gid];
    expect(owner('server.properties')).toEqual([4321, 4322]);
    expect(owner('config')).toEqual([4321, 4322]);
    expect(owner('config/paper-global.yml')).toEqual([4321, 4322]);
    expectOutsideUntouched(h);
  });

  test.if(root)('a folder of svc’s own user changes nothing', () => {
    const base = tempDir('svc-tenant-own-');
    const tree = TenantTree.open(base)!;
    try {
      tree.writeFile('a.txt', 'a');
    } finally {
      tree.close();
    }
    expect(lstatSync(join(base, 'a.txt')).uid).toBe(0);
  });
});

describe('openRegular (svc’s own trees)', () => {
  test('a link, a FIFO and a folder are refused without blocking; a hard link is read', () => {
    const h = hostileBase();
    const dir = join(h.base, 'template');
    plant(h, dir, { fileLink: ['link'], fifo: ['pipe'], hardlink: ['hard'] });
    const dog = fifoWatchdog([join(dir, 'pipe')]);
    try {
      expect(() => openRegular(join(dir, 'link'))).toThrow(RefusedEntry);
      expect(() => openRegular(join(dir, 'pipe'))).toThrow(RefusedEntry);
      expect(() => openRegular(dir)).toThrow(RefusedEntry);
      expect(openRegular(join(dir, 'missing'))).toBeNull();
      const file = openRegular(join(dir, 'hard'))!;
      file.close();
      file.close();
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expectNoSecret(h, readlinkSync(join(dir, 'link')));
    rmSync(dir, { recursive: true });
    expectOutsideUntouched(h);
  });
});
