import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createZstdCompress } from 'node:zlib';
import { pack, type Header } from 'tar-stream';
import { ApiError } from '../../../src/errors';
import { restoreArchive } from '../../../src/modules/backup/restore';
import { recoverInterruptedRestores } from '../../../src/modules/backup/restore-recovery';
import { insideRoots } from '../../../src/modules/backup/restore-paths';
import { tempDir, waitFor } from '../../support/controller';

interface EntrySpec {
  name: string;
  type?: Header['type'];
  mode?: number;
  mtime?: Date;
  content?: Buffer | string;
  linkname?: string;
  devmajor?: number;
  devminor?: number;
}

/**
 * Writes a backup-format archive: the entries in order, then (unless `manifest` is false) a
 * trailing MANIFEST.sha256 listing every file entry in the sha256sum format. `manifestLines`
 * replaces the generated lines (to write a wrong manifest).
 */
async function writeArchive(path: string, entries: readonly EntrySpec[], options: { manifest?: boolean; manifestLines?: string[] } = {}): Promise<void> {
  const tar = pack();
  const lines: string[] = [];
  const written = (async () => {
    for (const spec of entries) {
      const type = spec.type ?? (spec.name.endsWith('/') ? 'directory' : 'file');
      const header = {
        name: spec.name,
        type,
        mode: spec.mode ?? (type === 'directory' ? 0o755 : 0o644),
        mtime: spec.mtime ?? new Date(1_700_000_000_000),
        linkname: spec.linkname,
        devmajor: spec.devmajor,
        devminor: spec.devminor,
      };
      if (type === 'file') {
        const content = Buffer.from(spec.content ?? '');
        lines.push(`${createHash('sha256').update(content).digest('hex')}  ${spec.name}`);
        await new Promise<void>((resolve, reject) => tar.entry(header, content, (error) => (error ? reject(error) : resolve())));
      } else {
        await new Promise<void>((resolve, reject) => tar.entry(header, (error) => (error ? reject(error) : resolve())));
      }
    }
    if (options.manifest !== false) {
      const text = `${(options.manifestLines ?? lines).join('\n')}\n`;
      await new Promise<void>((resolve, reject) =>
        tar.entry({ name: 'MANIFEST.sha256', mode: 0o644, mtime: new Date() }, text, (error) => (error ? reject(error) : resolve())),
      );
    }
    tar.finalize();
  })();
  await Promise.all([written, pipeline(tar, createZstdCompress(), createWriteStream(path))]);
}

interface Snapshot {
  [rel: string]: { kind: 'file' | 'dir' | 'link'; mode: number; mtime: number; sha256?: string };
}

/** Everything under `root` (not root itself): kind, permission bits, mtime in whole seconds, content hash. */
function snapshot(root: string): Snapshot {
  const out: Snapshot = {};
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      const info = lstatSync(path);
      const base = { mode: info.mode & 0o7777, mtime: Math.floor(info.mtimeMs / 1000) };
      if (info.isSymbolicLink()) out[rel] = { kind: 'link', ...base };
      else if (info.isDirectory()) {
        out[rel] = { kind: 'dir', ...base };
        walk(path, rel);
      } else out[rel] = { kind: 'file', ...base, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
    }
  };
  walk(root, '');
  return out;
}

/** Names of restore leftovers (staging or old trees) in `dir`. */
const leftovers = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('.svc-restore-'));

async function restoreError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw new Error(`expected an ApiError, got ${String(error)}`);
  }
  throw new Error('expected the restore to fail');
}

const T1 = new Date('2023-03-04T05:06:07Z');
const T2 = new Date('2022-01-02T03:04:05Z');
const T3 = new Date('2021-06-07T08:09:10Z');
const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/** A small tree in backup format. */
const TREE: EntrySpec[] = [
  { name: 'config/', mode: 0o750, mtime: T1 },
  { name: 'config/server.properties', mode: 0o640, mtime: T2, content: 'motd=hello\nmax-players=20\n' },
  { name: 'config/empty.txt', mode: 0o600, mtime: T3, content: '' },
  { name: 'plugins/', mode: 0o755, mtime: T2 },
  { name: 'plugins/deep/', mode: 0o700, mtime: T3 },
  { name: 'plugins/deep/blob.bin', mode: 0o644, mtime: T1, content: randomBytes(300_000) },
  { name: 'start.sh', mode: 0o755, mtime: T1, content: '#!/bin/sh\nexec java -jar server.jar\n' },
  { name: 'world/', mode: 0o755, mtime: T1 },
];

let tmp: { dir: string; remove: () => void };
let parent: string;
let target: string;
let archive: string;

beforeEach(() => {
  tmp = tempDir('svc-restore-');
  parent = join(tmp.dir, 'services');
  target = join(parent, 'lobby-1');
  archive = join(tmp.dir, 'backup.tar.zst');
  mkdirSync(parent);
});
afterEach(() => tmp.remove());

/** The target as a running service left it: content that differs from the backup, and extras. */
function seedTarget(): Snapshot {
  mkdirSync(join(target, 'config'), { recursive: true });
  mkdirSync(join(target, 'logs'));
  writeFileSync(join(target, 'config/server.properties'), 'motd=changed\n');
  writeFileSync(join(target, 'logs/latest.log'), 'extra file not in the backup\n');
  writeFileSync(join(target, 'extra.txt'), 'also gone after the restore\n');
  chmodSync(target, 0o711);
  return snapshot(target);
}

describe('restoreArchive: round trip', () => {
  test('an existing target holds exactly the backup afterwards: bytes, modes, mtimes; extras gone; its own mode kept', async () => {
    seedTarget();
    await writeArchive(archive, TREE);
    const outcome = await restoreArchive(archive, target, { dryRun: false });

    expect(outcome).toEqual({
      filesExtracted: 4,
      files: ['config/server.properties', 'config/empty.txt', 'plugins/deep/blob.bin', 'start.sh'],
    });
    const expected: Snapshot = {};
    for (const spec of TREE) {
      const rel = spec.name.replace(/\/$/, '');
      const isDir = spec.name.endsWith('/');
      expected[rel] = {
        kind: isDir ? 'dir' : 'file',
        mode: spec.mode ?? 0,
        mtime: seconds(spec.mtime ?? new Date(0)),
        ...(isDir ? {} : { sha256: createHash('sha256').update(Buffer.from(spec.content ?? '')).digest('hex') }),
      };
    }
    expect(snapshot(target)).toEqual(expected);
    expect(existsSync(join(target, 'MANIFEST.sha256'))).toBe(false);
    expect(statSync(target).mode & 0o7777).toBe(0o711);
    expect(leftovers(parent)).toEqual([]);
  });

  test('a missing target (and its missing parent) is created', async () => {
    const fresh = join(tmp.dir, 'restore', 'database');
    await writeArchive(archive, [{ name: 'nimbus.sqlite', mode: 0o600, mtime: T1, content: 'SQLite format 3\0' }]);
    const outcome = await restoreArchive(archive, fresh, { dryRun: false });
    expect(outcome).toEqual({ filesExtracted: 1, files: ['nimbus.sqlite'] });
    expect(readFileSync(join(fresh, 'nimbus.sqlite'), 'utf8')).toBe('SQLite format 3\0');
    expect(statSync(join(fresh, 'nimbus.sqlite')).mode & 0o777).toBe(0o600);
    expect(statSync(fresh).mode & 0o777).toBe(0o755);
    expect(leftovers(join(tmp.dir, 'restore'))).toEqual([]);
  });

  test('files without directory entries get their parents; "./" prefixes are normalized', async () => {
    await writeArchive(archive, [
      { name: './', type: 'directory' },
      { name: './a/b/c.txt', content: 'c' },
    ]);
    const outcome = await restoreArchive(archive, target, { dryRun: false });
    expect(outcome.files).toEqual(['a/b/c.txt']);
    expect(readFileSync(join(target, 'a/b/c.txt'), 'utf8')).toBe('c');
  });

  test('a symlinked target: the real directory is replaced and the link stays', async () => {
    const real = join(tmp.dir, 'disk2', 'lobby-1');
    mkdirSync(real, { recursive: true });
    writeFileSync(join(real, 'old.txt'), 'old');
    symlinkSync(real, target);
    await writeArchive(archive, [{ name: 'new.txt', content: 'new' }]);
    await restoreArchive(archive, target, { dryRun: false });
    expect(lstatSync(target).isSymbolicLink()).toBe(true);
    expect(readdirSync(real)).toEqual(['new.txt']);
    expect(leftovers(join(tmp.dir, 'disk2'))).toEqual([]);
  });

  test('a root MANIFEST.sha256 that is not the last entry is a real file and is restored', async () => {
    await writeArchive(archive, [
      { name: 'MANIFEST.sha256', content: 'the service own file\n' },
      { name: 'b.txt', content: 'b' },
    ]);
    const outcome = await restoreArchive(archive, target, { dryRun: false });
    expect(outcome).toEqual({ filesExtracted: 2, files: ['MANIFEST.sha256', 'b.txt'] });
    expect(readFileSync(join(target, 'MANIFEST.sha256'), 'utf8')).toBe('the service own file\n');
    expect(readdirSync(target).sort()).toEqual(['MANIFEST.sha256', 'b.txt']);
  });

  test('dryRun checks and lists files and directories but writes nothing', async () => {
    const before = seedTarget();
    await writeArchive(archive, TREE);
    const outcome = await restoreArchive(archive, target, { dryRun: true });
    expect(outcome).toEqual({
      filesExtracted: 4,
      files: ['config/', 'config/server.properties', 'config/empty.txt', 'plugins/', 'plugins/deep/', 'plugins/deep/blob.bin', 'start.sh', 'world/'],
    });
    expect(snapshot(target)).toEqual(before);
    expect(leftovers(parent)).toEqual([]);
    // A missing target stays missing.
    const missing = join(tmp.dir, 'nope', 'x');
    await restoreArchive(archive, missing, { dryRun: true });
    expect(existsSync(join(tmp.dir, 'nope'))).toBe(false);
  });
});

describe('restoreArchive: refusals leave the target untouched and no staging dir', () => {
  const good: EntrySpec = { name: 'fine.txt', content: 'ok' };
  const cases: { what: string; bad: EntrySpec; named: string }[] = [
    { what: 'a ../ path', bad: { name: '../escape', content: 'x' }, named: '../escape' },
    { what: 'a .. segment in the middle', bad: { name: 'a/../../escape', content: 'x' }, named: 'a/../../escape' },
    { what: 'an absolute path', bad: { name: '/etc/passwd', content: 'root::0:0::/:/bin/sh\n' }, named: '/etc/passwd' },
    { what: 'a symlink', bad: { name: 'link', type: 'symlink', linkname: '/etc' }, named: 'link' },
    { what: 'a hard link', bad: { name: 'hard', type: 'link', linkname: 'fine.txt' }, named: 'hard' },
    { what: 'a character device', bad: { name: 'null', type: 'character-device', devmajor: 1, devminor: 3 }, named: 'null' },
    { what: 'a fifo', bad: { name: 'pipe', type: 'fifo' }, named: 'pipe' },
    { what: 'a backslash in the name', bad: { name: 'a\\..\\b', content: 'x' }, named: 'a\\\\..\\\\b' },
  ];

  for (const { what, bad, named } of cases) {
    test(`${what} is refused (409 BACKUP_RESTORE_FAILED naming the entry), also in a dry run`, async () => {
      const before = seedTarget();
      await writeArchive(archive, [good, bad]);
      for (const dryRun of [false, true]) {
        const error = await restoreError(restoreArchive(archive, target, { dryRun }));
        expect(error.errorCode).toBe('BACKUP_RESTORE_FAILED');
        expect(error.status).toBe(409);
        expect(error.message).toStartWith(`Archive entry "${named}" refused: `);
        expect(snapshot(target)).toEqual(before);
        expect(leftovers(parent)).toEqual([]);
      }
      expect(existsSync(join(tmp.dir, 'escape'))).toBe(false);
    });
  }

  test('a file entry below an earlier file entry is refused', async () => {
    const before = seedTarget();
    await writeArchive(archive, [
      { name: 'a', content: 'file' },
      { name: 'a/b', content: 'below a file' },
    ]);
    const error = await restoreError(restoreArchive(archive, target, { dryRun: false }));
    expect(error.message).toStartWith(`Archive entry "a/b" refused: its parent a is a file`);
    expect(snapshot(target)).toEqual(before);
    expect(leftovers(parent)).toEqual([]);
  });

  test('a target that is a file is refused', async () => {
    writeFileSync(target, 'not a dir');
    await writeArchive(archive, [good]);
    const error = await restoreError(restoreArchive(archive, target, { dryRun: false }));
    expect(error.errorCode).toBe('BACKUP_RESTORE_FAILED');
    expect(readFileSync(target, 'utf8')).toBe('not a dir');
  });
});

describe('restoreArchive: damaged archives fail with BACKUP_RESTORE_FAILED and change nothing', () => {
  async function expectFailure(message: RegExp): Promise<void> {
    const before = snapshot(target);
    for (const dryRun of [false, true]) {
      const error = await restoreError(restoreArchive(archive, target, { dryRun }));
      expect(error.errorCode).toBe('BACKUP_RESTORE_FAILED');
      expect(error.message).toMatch(message);
      expect(snapshot(target)).toEqual(before);
      expect(leftovers(parent)).toEqual([]);
    }
  }

  test('an archive truncated half way', async () => {
    seedTarget();
    await writeArchive(archive, TREE);
    truncateSync(archive, Math.floor(statSync(archive).size / 2));
    await expectFailure(/Archive unreadable|no trailing MANIFEST/);
  });

  test('an archive truncated just before its end (zstd in Bun does not notice; the manifest check does)', async () => {
    seedTarget();
    await writeArchive(archive, TREE);
    truncateSync(archive, statSync(archive).size - 12);
    await expectFailure(/Archive unreadable|no trailing MANIFEST|Checksum mismatch|Missing file/);
  });

  test('a tar that ends at an entry boundary without its manifest', async () => {
    seedTarget();
    await writeArchive(archive, TREE, { manifest: false });
    await expectFailure(/no trailing MANIFEST\.sha256/);
  });

  test('a file whose bytes do not match the manifest', async () => {
    seedTarget();
    await writeArchive(archive, [{ name: 'a.txt', content: 'real' }], {
      manifestLines: [`${createHash('sha256').update('other').digest('hex')}  a.txt`],
    });
    await expectFailure(/Checksum mismatch: a\.txt/);
  });

  test('a manifest listing a file the archive lacks', async () => {
    seedTarget();
    const hash = (s: string): string => createHash('sha256').update(s).digest('hex');
    await writeArchive(archive, [{ name: 'a.txt', content: 'a' }], { manifestLines: [`${hash('a')}  a.txt`, `${hash('b')}  b.txt`] });
    await expectFailure(/Missing file in archive: b\.txt/);
  });

  test('a file-system error while writing (a name longer than NAME_MAX) is reported as such; nothing changes', async () => {
    const before = seedTarget();
    await writeArchive(archive, [{ name: 'ok.txt', content: 'ok' }, { name: `${'n'.repeat(300)}.txt`, content: 'x' }]);
    const error = await restoreError(restoreArchive(archive, target, { dryRun: false }));
    expect(error.errorCode).toBe('BACKUP_RESTORE_FAILED');
    expect(error.message).toStartWith('Restore failed: ');
    expect(error.message).toContain('ENAMETOOLONG');
    expect(snapshot(target)).toEqual(before);
    expect(leftovers(parent)).toEqual([]);
  });

  test('a file that is not zstd, and a missing archive', async () => {
    seedTarget();
    writeFileSync(archive, randomBytes(4096));
    await expectFailure(/Archive unreadable/);
    archive = join(tmp.dir, 'does-not-exist.tar.zst');
    await expectFailure(/Archive unreadable/);
  });
});

/** Total bytes of regular files under `dir` (0 when it vanished meanwhile). */
function bytesUnder(dir: string): number {
  let total = 0;
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.size ?? 0;
    }
  } catch {
    return 0;
  }
  return total;
}

/** ~100 MiB in 1 MiB files; repetitive so the archive is small and quick to build. */
async function writeBigArchive(path: string): Promise<void> {
  const block = randomBytes(64 * 1024);
  const entries: EntrySpec[] = [{ name: 'region/' }];
  for (let i = 0; i < 100; i++) {
    const content = Buffer.concat(Array.from({ length: 16 }, () => block));
    content.writeUInt32BE(i, 0);
    entries.push({ name: `region/r.${i}.mca`, content });
  }
  await writeArchive(path, entries);
}

describe('interrupted restores', () => {
  test('a restore killed half way (SIGKILL) leaves the target intact; recovery removes the staging dir', async () => {
    const before = seedTarget();
    await writeBigArchive(archive);
    const child = Bun.spawn([process.execPath, join(import.meta.dir, 'restore-child.ts'), archive, target], { stdout: 'pipe', stderr: 'pipe' });
    const staging = await waitFor(
      () => {
        const name = leftovers(parent).find((n) => !n.startsWith('.svc-restore-old-'));
        return name && bytesUnder(join(parent, name)) >= 4 * 1024 * 1024 ? join(parent, name) : null;
      },
      { timeoutMs: 20_000, intervalMs: 5, what: 'the staging dir to hold 4 MiB' },
    );
    expect(statSync(staging).mode & 0o777).toBe(0o700); // private while it is being filled
    child.kill('SIGKILL');
    await child.exited;
    expect(child.signalCode).toBe('SIGKILL'); // killed, not finished

    expect(snapshot(target)).toEqual(before);
    expect(existsSync(staging)).toBe(true);
    const log = recoverInterruptedRestores(parent);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain('removed the staging directory');
    expect(leftovers(parent)).toEqual([]);
    expect(snapshot(target)).toEqual(before);
  }, 30_000);

  test('an aborted restore removes its staging dir and leaves the target intact', async () => {
    const before = seedTarget();
    await writeBigArchive(archive);
    const controller = new AbortController();
    const running = restoreError(restoreArchive(archive, target, { dryRun: false, signal: controller.signal }));
    await waitFor(
      () => {
        const name = leftovers(parent)[0];
        return name !== undefined && bytesUnder(join(parent, name)) >= 1024 * 1024;
      },
      { timeoutMs: 20_000, intervalMs: 5, what: 'the staging dir to hold 1 MiB' },
    );
    controller.abort();
    const error = await running;
    expect(error.errorCode).toBe('BACKUP_RESTORE_FAILED');
    expect(error.message).toBe('Restore aborted');
    expect(snapshot(target)).toEqual(before);
    expect(leftovers(parent)).toEqual([]);
  }, 30_000);

  test('a crash between the two renames: recovery puts the old tree back', () => {
    const old = join(parent, '.svc-restore-old-lobby-1-0123456789ab');
    mkdirSync(join(old, 'world'), { recursive: true });
    writeFileSync(join(old, 'world/level.dat'), 'precious');
    const staging = join(parent, '.svc-restore-lobby-1-0123456789abcdef');
    mkdirSync(staging);
    writeFileSync(join(staging, 'half.txt'), 'half');

    const log = recoverInterruptedRestores(parent);
    expect(log).toHaveLength(2);
    expect(log.some((line) => line.includes('put back'))).toBe(true);
    expect(readFileSync(join(target, 'world/level.dat'), 'utf8')).toBe('precious');
    expect(leftovers(parent)).toEqual([]);
  });

  test('an old tree left by a finished swap is removed; the restored target stays', () => {
    mkdirSync(target);
    writeFileSync(join(target, 'new.txt'), 'restored');
    mkdirSync(join(parent, '.svc-restore-old-lobby-1-ba9876543210'));
    const log = recoverInterruptedRestores(parent);
    expect(log).toHaveLength(1);
    expect(readdirSync(target)).toEqual(['new.txt']);
    expect(leftovers(parent)).toEqual([]);
  });

  test('a staging dir of a target named old-x is never taken for the old tree of x', () => {
    mkdirSync(join(parent, '.svc-restore-old-x-0123456789abcdef')); // staging of "old-x": 16 hex
    const log = recoverInterruptedRestores(parent);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain('removed the staging directory');
    expect(existsSync(join(parent, 'x'))).toBe(false);
    expect(leftovers(parent)).toEqual([]);
  });

  test('recovery of a missing parent or one without leftovers does nothing', () => {
    expect(recoverInterruptedRestores(join(tmp.dir, 'missing'))).toEqual([]);
    mkdirSync(target);
    expect(recoverInterruptedRestores(parent)).toEqual([]);
    expect(existsSync(target)).toBe(true);
  });
});

describe('insideRoots', () => {
  test('inside, equal to a root, outside, a .. escape, and symlinked ancestors', () => {
    const root = join(tmp.dir, 'root');
    const outside = join(tmp.dir, 'outside');
    mkdirSync(join(root, 'services/lobby'), { recursive: true });
    mkdirSync(join(outside, 'dir'), { recursive: true });
    symlinkSync(join(outside, 'dir'), join(root, 'link-out'));
    symlinkSync(join(root, 'services'), join(tmp.dir, 'alias-in'));
    symlinkSync(root, join(tmp.dir, 'root-alias'));
    const roots = [root, join(tmp.dir, 'second-root')];
    const table: [string, boolean][] = [
      [join(root, 'services/lobby'), true],
      [join(root, 'services/not-yet/created'), true],
      [root, true],
      [join(tmp.dir, 'second-root', 'x'), true],
      [outside, false],
      [tmp.dir, false],
      [`${root}/services/../../outside`, false],
      [`${root}/../root-sibling`, false],
      [`${root}x`, false],
      [join(root, 'link-out'), false],
      [join(root, 'link-out', 'sub'), false],
      // The kernel follows link-out before applying '..': this is <outside>/x, not <root>/x.
      [`${root}/link-out/../x`, false],
      [join(tmp.dir, 'alias-in', 'lobby'), true],
      [join(tmp.dir, 'root-alias', 'services'), true],
    ];
    for (const [candidate, expected] of table) {
      expect({ candidate, inside: insideRoots(candidate, roots) }).toEqual({ candidate, inside: expected });
    }
    // A root given through a symlink matches its real path too.
    expect(insideRoots(join(root, 'services'), [join(tmp.dir, 'root-alias')])).toBe(true);
    // A symlink loop resolves to nothing: outside.
    symlinkSync(join(root, 'loop'), join(root, 'loop2'));
    symlinkSync(join(root, 'loop2'), join(root, 'loop'));
    expect(insideRoots(join(root, 'loop', 'x'), roots)).toBe(false);
  });

  test('a relative candidate resolves against the current directory', () => {
    expect(insideRoots('some/relative/dir', [process.cwd()])).toBe(true);
    expect(insideRoots('../elsewhere', [process.cwd()])).toBe(false);
  });
});
