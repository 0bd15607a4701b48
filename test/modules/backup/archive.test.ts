import { afterAll, describe, expect, test } from 'bun:test';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { archiveName, createArchive, forEachEntry, readManifest, verifyArchive, type ArchiveOptions } from '../../../src/modules/backup/archive';
import { waitFor } from '../../support/controller';

const base = mkdtempSync(join(tmpdir(), 'svc-archive-test-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let dirCounter = 0;
function freshDir(name: string): string {
  const dir = join(base, `${name}-${dirCounter++}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const OPTIONS: ArchiveOptions = { level: 3, workers: 2, excludes: [] };
const LONG_NAME = `${'a-very-long-file-name-'.repeat(6)}end.txt`; // > 100 bytes: needs a pax header
const T0 = 1_600_000_000; // mtimes set on the tree (seconds)

function run(cmd: string[], cwd?: string): string {
  const result = Bun.spawnSync(cmd, { cwd, stdout: 'pipe', stderr: 'pipe' });
  if (!result.success) throw new Error(`${cmd.join(' ')} failed (${result.exitCode}): ${result.stderr.toString()}`);
  return result.stdout.toString();
}

/**
 * The tree of a server: nested and empty dirs, an empty file, a 5 MiB random file, unicode names,
 * a name over 100 bytes, a backslash in a name, modes 0600/0755 and set mtimes.
 */
function buildTree(root: string): void {
  const files: [string, string | Buffer, number][] = [
    ['server.properties', 'motd=hello\nmax-players=20\n', 0o644],
    ['start.sh', '#!/bin/sh\nexec java -jar paper.jar\n', 0o755],
    ['secret.key', 'top secret', 0o600],
    ['empty.txt', '', 0o644],
    ['world/level.dat', randomBytes(4096), 0o644],
    ['world/region/r.0.0.mca', randomBytes(5 * 1024 * 1024), 0o644],
    ['plugins/Ünïcødé-插件/config.yml', 'enabled: true\n', 0o644],
    [`plugins/${LONG_NAME}`, 'long\n', 0o644],
    ['plugins/back\\slash.txt', 'escaped in sha256sum output\n', 0o644],
  ];
  mkdirSync(join(root, 'world/region'), { recursive: true });
  mkdirSync(join(root, 'plugins/Ünïcødé-插件'), { recursive: true });
  mkdirSync(join(root, 'cache/empty-dir'), { recursive: true });
  files.forEach(([rel, content, mode], i) => {
    const path = join(root, rel);
    writeFileSync(path, content);
    chmodSync(path, mode);
    utimesSync(path, T0 + i * 101, T0 + i * 101);
  });
  chmodSync(join(root, 'plugins'), 0o750);
  // Directory mtimes last: writing into a directory moves its mtime.
  ['world/region', 'world', 'plugins/Ünïcødé-插件', 'plugins', 'cache/empty-dir', 'cache'].forEach((rel, i) => utimesSync(join(root, rel), T0 + 50_000 + i, T0 + 50_000 + i));
}

/** Relative paths of everything under root (dirs with a trailing '/'), sorted. */
function listTree(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, rel)).sort()) {
    const path = rel === '' ? name : `${rel}/${name}`;
    const st = lstatSync(join(root, path));
    if (st.isDirectory()) out.push(`${path}/`, ...listTree(root, path));
    else out.push(path);
  }
  return out;
}

/** What `sha256sum` prints for every regular file, one line each, in byte order of the path. */
function sha256sumOfTree(root: string): string {
  const files = listTree(root).filter((p) => !p.endsWith('/') && lstatSync(join(root, p)).isFile());
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return run(['sha256sum', '--', ...files], root);
}

/** An archive made directly with tar-stream and zstd, for verify's failure cases. */
async function craftArchive(path: string, entries: { name: string; content: string | Buffer }[]): Promise<void> {
  const pack = tar.pack();
  const parts: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) parts.push(chunk as Buffer);
  })();
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => pack.entry({ name: entry.name, mode: 0o644, mtime: new Date() }, entry.content, (error) => (error ? reject(error) : resolve())));
  }
  pack.finalize();
  await collected;
  writeFileSync(path, zlib.zstdCompressSync(Buffer.concat(parts)));
}

const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

describe('createArchive: round trip through the system tar', () => {
  const root = freshDir('tree');
  buildTree(root);
  const out = freshDir('out');
  const archive = join(out, 'tree.tar.zst');
  const extracted = freshDir('extracted');
  let result: Awaited<ReturnType<typeof createArchive>>;

  test('archives every file and directory and reports sizes and the archive checksum', async () => {
    result = await createArchive(root, archive, OPTIONS);
    expect(result.files).toBe(9);
    expect(result.bytes).toBe(listTree(root).filter((p) => !p.endsWith('/')).reduce((sum, p) => sum + statSync(join(root, p)).size, 0));
    expect(result.skipped).toBe(0);
    expect(result.sizeBytes).toBe(statSync(archive).size);
    expect(result.checksum).toBe(sha256(readFileSync(archive)));
    expect(existsSync(`${archive}.tmp`)).toBe(false);
    // Many frames (1 MiB of tar each), which the zstd CLI accepts as one stream.
    run(['zstd', '-q', '-t', archive]);
  });

  test('tar --zstd extracts the same bytes, modes and mtimes (to the second)', () => {
    run(['tar', '--zstd', '-xpf', archive, '-C', extracted]);
    const expected = listTree(root);
    expect(listTree(extracted)).toEqual([...expected, 'MANIFEST.sha256'].sort());
    for (const rel of expected) {
      const a = statSync(join(root, rel));
      const b = statSync(join(extracted, rel));
      expect({ rel, mode: b.mode & 0o7777, mtime: Math.floor(b.mtimeMs / 1000) }).toEqual({ rel, mode: a.mode & 0o7777, mtime: Math.floor(a.mtimeMs / 1000) });
      if (!rel.endsWith('/')) expect(sha256(readFileSync(join(extracted, rel)))).toBe(sha256(readFileSync(join(root, rel))));
    }
    expect(statSync(join(extracted, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(extracted, 'start.sh')).mode & 0o777).toBe(0o755);
    expect(readdirSync(join(extracted, 'cache/empty-dir'))).toEqual([]);
    expect(statSync(join(extracted, 'empty.txt')).size).toBe(0);
  });

  test('the manifest is the last entry and equals sha256sum of the tree, sorted by path', async () => {
    const manifest = await readManifest(archive);
    expect(manifest).toBe(sha256sumOfTree(root));
    expect(manifest).toContain('\\'); // the backslash name is escaped as sha256sum does
    expect(readFileSync(join(extracted, 'MANIFEST.sha256'), 'utf8')).toBe(manifest!);
    const names: string[] = [];
    await forEachEntry(archive, async (header) => void names.push(header.name));
    expect(names.at(-1)).toBe('MANIFEST.sha256');
    expect(names).toContain('cache/empty-dir/');
    expect(names).toContain(`plugins/${LONG_NAME}`);
  });

  test('forEachEntry streams each entry with its header, skipping what the visitor leaves unread', async () => {
    const seen = new Map<string, string>();
    await forEachEntry(archive, async (header, content) => {
      if (header.type !== 'file' || !header.name.startsWith('world/')) return; // left unread
      const hash = createHash('sha256');
      for await (const chunk of content as AsyncIterable<Buffer>) hash.update(chunk);
      seen.set(header.name, hash.digest('hex'));
      expect(header.size).toBe(statSync(join(root, header.name)).size);
    });
    expect(seen).toEqual(
      new Map([
        ['world/level.dat', sha256(readFileSync(join(root, 'world/level.dat')))],
        ['world/region/r.0.0.mca', sha256(readFileSync(join(root, 'world/region/r.0.0.mca')))],
      ]),
    );
  });

  test('verify: a fresh archive is valid, with and without its recorded checksum', async () => {
    expect(await verifyArchive(archive, result.checksum)).toEqual({ valid: true, errors: [] });
    expect(await verifyArchive(archive)).toEqual({ valid: true, errors: [] });
  });

  test('one lane and three lanes give the same manifest and valid archives', async () => {
    for (const workers of [1, 3]) {
      const other = join(out, `w${workers}.tar.zst`);
      const again = await createArchive(root, other, { ...OPTIONS, workers });
      expect(again.files).toBe(9);
      expect(await readManifest(other)).toBe(sha256sumOfTree(root));
      expect(await verifyArchive(other, again.checksum)).toEqual({ valid: true, errors: [] });
    }
  });
});

describe('createArchive: what is left out', () => {
  test('excludes match the relative path or the file name; directories stay', async () => {
    const root = freshDir('excl');
    for (const rel of ['logs/latest.log', 'logs/2024-01-01.log.gz', 'world/session.lock', 'session.lock', 'plugins/x/debug.log', 'plugins/x/config.yml', 'world/level.dat']) {
      mkdirSync(join(root, rel, '..'), { recursive: true });
      writeFileSync(join(root, rel), rel);
    }
    const archive = join(freshDir('excl-out'), 'a.tar.zst');
    const result = await createArchive(root, archive, { ...OPTIONS, excludes: ['logs/**', '*.log', 'session.lock'] });
    expect(result.files).toBe(2);
    const listing = run(['tar', '--zstd', '-tf', archive]).trim().split('\n').sort();
    expect(listing).toEqual(['MANIFEST.sha256', 'logs/', 'plugins/', 'plugins/x/', 'plugins/x/config.yml', 'world/', 'world/level.dat']);
    expect(await readManifest(archive)).toBe(`${sha256('plugins/x/config.yml')}  plugins/x/config.yml\n${sha256('world/level.dat')}  world/level.dat\n`);
  });

  test('a symlink is skipped and counted, its target archived once', async () => {
    const root = freshDir('link');
    writeFileSync(join(root, 'real.txt'), 'real');
    symlinkSync('real.txt', join(root, 'link.txt'));
    symlinkSync('/etc', join(root, 'outside'));
    const archive = join(freshDir('link-out'), 'a.tar.zst');
    const result = await createArchive(root, archive, OPTIONS);
    expect(result).toMatchObject({ files: 1, skipped: 2 });
    expect(run(['tar', '--zstd', '-tf', archive]).trim().split('\n')).toEqual(['real.txt', 'MANIFEST.sha256']);
  });

  test('a MANIFEST.sha256 of the tree itself is archived as a file; the trailing one is the manifest', async () => {
    const root = freshDir('own-manifest');
    writeFileSync(join(root, 'MANIFEST.sha256'), 'not ours\n');
    writeFileSync(join(root, 'a.txt'), 'alpha');
    const archive = join(freshDir('own-manifest-out'), 'a.tar.zst');
    const result = await createArchive(root, archive, OPTIONS);
    expect(result.files).toBe(2);
    expect(await readManifest(archive)).toBe(sha256sumOfTree(root));
    expect(await verifyArchive(archive, result.checksum)).toEqual({ valid: true, errors: [] });
  });

  test('an empty tree gives an archive holding only an empty manifest', async () => {
    const archive = join(freshDir('empty-out'), 'a.tar.zst');
    const result = await createArchive(freshDir('empty'), archive, OPTIONS);
    expect(result).toMatchObject({ files: 0, bytes: 0, skipped: 0 });
    expect(await readManifest(archive)).toBe('');
    expect(await verifyArchive(archive, result.checksum)).toEqual({ valid: true, errors: [] });
  });

  test('a missing root fails and leaves nothing behind', async () => {
    const out = freshDir('noroot-out');
    await expect(createArchive(join(base, 'does-not-exist'), join(out, 'a.tar.zst'), OPTIONS)).rejects.toThrow();
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('createArchive: abort', () => {
  test('an abort mid-archive rejects and leaves no .tmp and no archive', async () => {
    const root = freshDir('abort');
    for (let i = 0; i < 8; i++) writeFileSync(join(root, `big${i}.bin`), randomBytes(8 * 1024 * 1024));
    const out = freshDir('abort-out');
    const dest = join(out, 'a.tar.zst');
    const controller = new AbortController();
    const running = createArchive(root, dest, { ...OPTIONS, signal: controller.signal });
    running.catch(() => {}); // asserted below
    // Abort once the first frames are on disk: the archive is under way, 64 MiB still to go.
    await waitFor(() => existsSync(`${dest}.tmp`) && statSync(`${dest}.tmp`).size > 0, { timeoutMs: 10_000, what: 'the first frames written' });
    controller.abort(new Error('stopped by the test'));
    await expect(running).rejects.toThrow('stopped by the test');
    expect(readdirSync(out)).toEqual([]);
  });

  test('an already aborted signal rejects before anything is created', async () => {
    const out = freshDir('pre-abort-out');
    await expect(createArchive(freshDir('pre-abort'), join(out, 'a.tar.zst'), { ...OPTIONS, signal: AbortSignal.abort(new Error('early')) })).rejects.toThrow('early');
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('archiveName', () => {
  test('type, sanitized name, class and a millisecond timestamp in local time', () => {
    const at = new Date(2024, 0, 2, 3, 4, 5, 67);
    expect(archiveName(freshDir('names'), 'SERVICE', 'Lobby 1/ä', 'daily', at)).toBe('service-Lobby_1__-daily-20240102-030405-067.tar.zst');
  });

  test('unique when called twice in one millisecond with the first file existing (or only its .tmp)', () => {
    const dir = freshDir('names');
    const at = new Date(2024, 5, 6, 7, 8, 9, 10);
    const first = archiveName(dir, 'dedicated', 'survival', 'manual', at);
    writeFileSync(join(dir, first), '');
    const second = archiveName(dir, 'dedicated', 'survival', 'manual', at);
    expect(second).toBe(first.replace('.tar.zst', '-2.tar.zst'));
    writeFileSync(join(dir, `${second}.tmp`), '');
    expect(archiveName(dir, 'dedicated', 'survival', 'manual', at)).toBe(first.replace('.tar.zst', '-3.tar.zst'));
  });
});

describe('verifyArchive: damage is found and named', () => {
  const dir = freshDir('verify');
  const root = freshDir('verify-tree');
  writeFileSync(join(root, 'a.txt'), 'alpha');
  writeFileSync(join(root, 'b.bin'), randomBytes(3 * 1024 * 1024));
  const good = join(dir, 'good.tar.zst');
  let checksum = '';

  test('a flipped byte in the compressed data: archive checksum mismatch, and the content is unreadable or mismatched', async () => {
    checksum = (await createArchive(root, good, OPTIONS)).checksum;
    const bad = join(dir, 'flipped.tar.zst');
    const bytes = readFileSync(good);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(bad, bytes);
    const result = await verifyArchive(bad, checksum);
    expect(result.valid).toBe(false);
    expect(result.errors[0]).toStartWith('Archive checksum mismatch (expected ');
    expect(result.errors.slice(1).some((e) => e.startsWith('Archive unreadable: ') || e === 'Checksum mismatch: b.bin')).toBe(true);
    // Without the recorded checksum the damage is still found (zstd's frame checksums).
    expect((await verifyArchive(bad)).valid).toBe(false);
  });

  test('a wrong recorded checksum alone is reported', async () => {
    const result = await verifyArchive(good, '0'.repeat(64));
    expect(result).toEqual({ valid: false, errors: [`Archive checksum mismatch (expected ${'0'.repeat(64)}, got ${checksum})`] });
  });

  test('a file whose content disagrees with the manifest is named', async () => {
    const path = join(dir, 'mismatch.tar.zst');
    await craftArchive(path, [
      { name: 'world/level.dat', content: 'changed' },
      { name: 'ok.txt', content: 'ok' },
      { name: 'MANIFEST.sha256', content: `${sha256('original')}  world/level.dat\n${sha256('ok')}  ok.txt\n` },
    ]);
    expect(await verifyArchive(path)).toEqual({ valid: false, errors: ['Checksum mismatch: world/level.dat'] });
  });

  test('a missing file and an extra file are named', async () => {
    const path = join(dir, 'missing-extra.tar.zst');
    await craftArchive(path, [
      { name: 'kept.txt', content: 'kept' },
      { name: 'extra.txt', content: 'not in the manifest' },
      { name: 'MANIFEST.sha256', content: `${sha256('kept')}  kept.txt\n${sha256('gone')}  gone.txt\n` },
    ]);
    expect(await verifyArchive(path)).toEqual({ valid: false, errors: ['Missing file in archive: gone.txt', 'Unexpected extra file: extra.txt'] });
  });

  test('no manifest is named, and readManifest answers null', async () => {
    const path = join(dir, 'no-manifest.tar.zst');
    await craftArchive(path, [{ name: 'a.txt', content: 'alpha' }]);
    expect(await verifyArchive(path)).toEqual({ valid: false, errors: ['Missing MANIFEST.sha256 entry in archive'] });
    expect(await readManifest(path)).toBeNull();
  });

  test('a truncated archive is unreadable, and readManifest and forEachEntry throw', async () => {
    for (const fraction of [0.5, 0.999]) {
      const path = join(dir, `truncated-${fraction}.tar.zst`);
      copyFileSync(good, path);
      truncateSync(path, Math.floor(statSync(good).size * fraction));
      const result = await verifyArchive(path);
      expect(result.valid).toBe(false);
      expect(result.errors.some((e) => e.startsWith('Archive unreadable: '))).toBe(true);
      await expect(readManifest(path)).rejects.toThrow();
      await expect(forEachEntry(path, async () => {})).rejects.toThrow();
    }
  });

  test('a file that is not zstd at all is unreadable', async () => {
    const path = join(dir, 'garbage.tar.zst');
    writeFileSync(path, 'this is not an archive');
    const result = await verifyArchive(path);
    expect(result.valid).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toStartWith('Archive unreadable: ');
  });

  test('a missing archive is named, and readManifest throws', async () => {
    const path = join(dir, 'nowhere.tar.zst');
    expect(await verifyArchive(path)).toEqual({ valid: false, errors: [`Archive missing on disk: ${path}`] });
    await expect(readManifest(path)).rejects.toThrow();
  });
});
