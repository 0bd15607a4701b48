/** unzipToDirectory: a whole zip from disk into a folder, streamed, names confined to it. */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { unzipToDirectory } from '../../../src/core/zip/unzip';
import { ZipFormatError } from '../../../src/core/zip/zip-directory';
import { zipStream } from '../../../src/cluster/template-zip';
import { tempDir } from '../../support/controller';

const tmp = tempDir('svc-unzip-');
afterAll(() => tmp.remove());
let n = 0;
const fresh = () => join(tmp.dir, `case-${n++}`);
const text = (s: string) => new TextEncoder().encode(s);

function onDisk(bytes: Uint8Array): string {
  const path = `${fresh()}.zip`;
  writeFileSync(path, bytes);
  return path;
}

async function refusal(promise: Promise<unknown>): Promise<ZipFormatError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ZipFormatError) return error;
    throw error;
  }
  throw new Error('expected a ZipFormatError');
}

describe('unzipToDirectory', () => {
  test('unpacks stored and deflated files, nested, byte for byte; folder entries only make folders', async () => {
    const random = crypto.getRandomValues(new Uint8Array(200_000));
    const archive = onDisk(zipSync({ 'a.txt': text('alpha'), 'plugins/': new Uint8Array(0), 'plugins/x/b.bin': [random, { level: 0 }], 'big.txt': text('z'.repeat(3_000_000)) }));
    const dest = fresh();
    expect(await unzipToDirectory(archive, dest, { maxEntries: 100 })).toBe(3);
    expect(readFileSync(join(dest, 'a.txt'), 'utf8')).toBe('alpha');
    expect(new Uint8Array(readFileSync(join(dest, 'plugins', 'x', 'b.bin')))).toEqual(random);
    expect(readFileSync(join(dest, 'big.txt'), 'utf8')).toBe('z'.repeat(3_000_000));
    expect(readdirSync(dest).sort()).toEqual(['a.txt', 'big.txt', 'plugins']);
  });

  test('what the controller serves (the template zip stream) unpacks to the same files', async () => {
    const source = fresh();
    mkdirSync(join(source, 'deep', 'er'), { recursive: true });
    writeFileSync(join(source, 'deep', 'er', 'world.dat'), crypto.getRandomValues(new Uint8Array(70_000)));
    writeFileSync(join(source, 'server.properties'), 'motd=hi\n'.repeat(1000));
    const files = new Map([
      ['deep/er/world.dat', join(source, 'deep', 'er', 'world.dat')],
      ['server.properties', join(source, 'server.properties')],
    ]);
    const archive = `${fresh()}.zip`;
    await Bun.write(archive, new Response(zipStream(files)));
    const dest = fresh();
    expect(await unzipToDirectory(archive, dest, { maxEntries: 10 })).toBe(2);
    for (const rel of files.keys()) expect(readFileSync(join(dest, rel))).toEqual(readFileSync(files.get(rel)!));
  });

  test('a name leaving the folder is refused before anything is written', async () => {
    for (const name of ['../escape.txt', '/etc/passwd', 'C:/x.txt', 'a/../../b.txt', 'ok\\..\\..\\b.txt']) {
      const dest = fresh();
      const error = await refusal(unzipToDirectory(onDisk(zipSync({ 'first.txt': text('1'), [name]: text('evil') })), dest, { maxEntries: 10 }));
      expect(error.message).toContain('refused');
      expect(existsSync(dest)).toBe(false);
    }
  });

  test('too many entries, or not a zip at all, is a ZipFormatError', async () => {
    const many: Record<string, Uint8Array> = {};
    for (let i = 0; i < 5; i++) many[`f${i}`] = text(String(i));
    expect((await refusal(unzipToDirectory(onDisk(zipSync(many)), fresh(), { maxEntries: 4 }))).message).toMatch(/entries/);
    await refusal(unzipToDirectory(onDisk(text('not a zip, just text')), fresh(), { maxEntries: 4 }));
  });
});
