/** Pack archives on disk: read by their central directory, unpacked in a stream, refused whole when hostile. */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { ApiError } from '../../../src/errors';
import { DEFAULT_ARCHIVE_LIMITS } from '../../../src/core/modpacks/limits';
import { PackArchive } from '../../../src/core/modpacks/pack-archive';
import { tempDir } from '../../support/controller';
import { writeStoredZip, zipOf } from '../../fixtures/modpack-zip';

const tmp = tempDir('svc-pack-archive-');
afterAll(() => tmp.remove());
let n = 0;

function onDisk(bytes: Uint8Array): string {
  const path = join(tmp.dir, `a${n++}.zip`);
  writeFileSync(path, bytes);
  return path;
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** A zip written by fflate's streaming Zip: every entry has a data descriptor (no sizes in its local header). */
function streamedZip(files: Record<string, Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    parts.push(data);
  });
  for (const [name, bytes] of Object.entries(files)) {
    const entry = name.endsWith('.bin') ? new ZipPassThrough(name) : new ZipDeflate(name, { level: 6 });
    zip.add(entry);
    entry.push(bytes, true);
  }
  zip.end();
  return Buffer.concat(parts);
}

describe('PackArchive', () => {
  test('unpacks stored and deflated entries, nested, byte for byte; folders only as needed', async () => {
    const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 7) & 0xff);
    const archive = await PackArchive.open(onDisk(zipOf({ 'overrides/config/a.txt': 'hello', 'overrides/mods/big.jar': big, 'other.txt': 'x' })), DEFAULT_ARCHIVE_LIMITS);
    try {
      const out = join(tmp.dir, 'out1');
      expect(await archive.extract(archive.filesUnder('overrides/'), out)).toBe(2);
      expect(readFileSync(join(out, 'config/a.txt'), 'utf8')).toBe('hello');
      expect(new Uint8Array(readFileSync(join(out, 'mods/big.jar')))).toEqual(big);
      expect(readdirSync(out).sort()).toEqual(['config', 'mods']);
    } finally {
      await archive.close();
    }
  });

  test('entries with data descriptors (streamed zips, random data) unpack exactly: sizes come from the directory', async () => {
    const random = crypto.getRandomValues(new Uint8Array(60_000));
    const text = new TextEncoder().encode('abc'.repeat(10_000));
    const archive = await PackArchive.open(onDisk(streamedZip({ 'mods/random.bin': random, 'config/text.cfg': text })), DEFAULT_ARCHIVE_LIMITS);
    try {
      const out = join(tmp.dir, 'out2');
      await archive.extract(archive.filesUnder(''), out);
      expect(new Uint8Array(readFileSync(join(out, 'mods/random.bin')))).toEqual(random);
      expect(new Uint8Array(readFileSync(join(out, 'config/text.cfg')))).toEqual(text);
    } finally {
      await archive.close();
    }
  });

  test('a big stored entry is copied in pieces and CRC-checked', async () => {
    const path = join(tmp.dir, 'big.zip');
    writeStoredZip(path, [{ name: 'mods/a.jar', size: 9 * 1024 * 1024 + 17 }]);
    const archive = await PackArchive.open(path, DEFAULT_ARCHIVE_LIMITS);
    try {
      await archive.extract(archive.filesUnder('mods/'), join(tmp.dir, 'out3'));
      expect(readFileSync(join(tmp.dir, 'out3/a.jar')).length).toBe(9 * 1024 * 1024 + 17);
    } finally {
      await archive.close();
    }
  });

  test.each([
    ['../escape.txt', 'a ".." segment'],
    ['overrides/../../escape.txt', 'a ".." segment'],
    ['/etc/passwd', 'absolute'],
    ['C:/Windows/evil.dll', 'absolute'],
    ['overrides\\..\\..\\evil.txt', 'a ".." segment'],
    ['a//b.txt', 'segment'],
    ['ctl\u0001.txt', 'control character'],
  ])('the entry %j refuses the whole archive (zip slip): %s', async (name, fragment) => {
    const error = await refusal(PackArchive.open(onDisk(zipOf({ 'mods/ok.jar': 'ok', [name]: 'x' })), DEFAULT_ARCHIVE_LIMITS));
    expect(error.errorCode).toBe('MODPACK_INVALID');
    expect(error.message).toContain(fragment);
    expect(error.message).toContain('may not leave the folder');
    expect(existsSync(join(tmp.dir, '..', 'escape.txt'))).toBe(false);
  });

  test('backslashes from Windows tools are separators', async () => {
    const archive = await PackArchive.open(onDisk(zipOf({ 'overrides\\config\\win.cfg': 'w' })), DEFAULT_ARCHIVE_LIMITS);
    try {
      await archive.extract(archive.filesUnder('overrides/'), join(tmp.dir, 'out4'));
      expect(readFileSync(join(tmp.dir, 'out4/config/win.cfg'), 'utf8')).toBe('w');
    } finally {
      await archive.close();
    }
  });

  test('zip bombs: too many entries, or too much once unpacked, refused before anything is written', async () => {
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}.txt`, 'x']));
    const entries = await refusal(PackArchive.open(onDisk(zipOf(many)), { maxEntries: 20, maxUnpackedBytes: 1e9 }));
    expect(entries.errorCode).toBe('MODPACK_INVALID');
    expect(entries.message).toContain('50 entries, over the limit of 20');
    const zeros = zipOf({ 'zeros.bin': new Uint8Array(8 * 1024 * 1024) });
    expect(zeros.length).toBeLessThan(64 * 1024);
    const bomb = await refusal(PackArchive.open(onDisk(zeros), { maxEntries: 10, maxUnpackedBytes: 1024 * 1024 }));
    expect(bomb.errorCode).toBe('MODPACK_INVALID');
    expect(bomb.message).toContain('zip bomb');
  });

  test('an entry that unpacks past the size its directory declares is stopped while unpacking', async () => {
    const bytes = zipOf({ 'zeros.bin': new Uint8Array(4 * 1024 * 1024) });
    // Rewrite the declared size (central directory, offset 24 of the record) to 1000 bytes.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let cd = -1;
    for (let i = bytes.length - 22; i >= 0; i--) if (view.getUint32(i, true) === 0x02014b50) cd = i;
    view.setUint32(cd + 24, 1000, true);
    const archive = await PackArchive.open(onDisk(bytes), DEFAULT_ARCHIVE_LIMITS);
    try {
      const error = await refusal(archive.extract(archive.filesUnder(''), join(tmp.dir, 'out5')));
      expect(error.errorCode).toBe('MODPACK_INVALID');
      expect(error.message).toContain('unpacks past its declared 1000 bytes');
    } finally {
      await archive.close();
    }
  });

  test('a corrupted entry fails its CRC check; junk is not a zip', async () => {
    const bytes = zipOf({ 'a.txt': 'hello world, hello world' }, 0);
    const at = Buffer.from(bytes).indexOf('hello');
    bytes[at] = 'j'.charCodeAt(0);
    const archive = await PackArchive.open(onDisk(bytes), DEFAULT_ARCHIVE_LIMITS);
    try {
      const error = await refusal(archive.extract(archive.filesUnder(''), join(tmp.dir, 'out6')));
      expect(error.message).toContain('CRC-32');
    } finally {
      await archive.close();
    }
    const junk = await refusal(PackArchive.open(onDisk(new TextEncoder().encode('not a zip')), DEFAULT_ARCHIVE_LIMITS));
    expect(junk.message).toContain('not a usable zip');
  });
});
