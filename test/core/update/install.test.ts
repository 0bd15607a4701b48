import { afterEach, describe, expect, test } from 'bun:test';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installBinary, previousOf, restorePrevious } from '../../../src/core/update/install';
import { tempDir } from '../../support/controller';
import { dotFiles } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

/** A folder with `svc` holding "v1" (mode 0755) and a checked candidate beside it. */
function setup() {
  const temp = tempDir('svc-install-');
  cleanups.push(temp.remove);
  const binary = join(temp.dir, 'svc');
  writeFileSync(binary, 'binary v1', { mode: 0o755 });
  let n = 0;
  const candidate = (content: string) => {
    const file = join(temp.dir, `.svc.download-${++n}`);
    writeFileSync(file, content, { mode: 0o700 });
    return file;
  };
  const read = (file: string) => readFileSync(file, 'utf8');
  return { dir: temp.dir, binary, previous: previousOf(binary), candidate, read };
}

test('previousOf is <binary>.previous', () => {
  expect(previousOf('/opt/svc/bin/svc')).toBe('/opt/svc/bin/svc.previous');
});

describe('installBinary', () => {
  test('replaces the binary, keeps the old bytes as .previous, the new file is 0755, no dot-files left', () => {
    const s = setup();
    const oldInode = statSync(s.binary).ino;
    const candidate = s.candidate('binary v2');
    const candidateInode = statSync(candidate).ino;
    installBinary(s.binary, candidate);
    expect(s.read(s.binary)).toBe('binary v2');
    expect(s.read(s.previous)).toBe('binary v1');
    expect(statSync(s.binary).mode & 0o777).toBe(0o755);
    expect(statSync(s.previous).mode & 0o777).toBe(0o755);
    // Renames, not copies: the candidate's file is now the binary, the old file is .previous.
    expect(statSync(s.binary).ino).toBe(candidateInode);
    expect(statSync(s.previous).ino).toBe(oldInode);
    expect(existsSync(candidate)).toBe(false);
    expect(dotFiles(s.dir)).toEqual([]);
  });

  test('a second install replaces .previous with the then-current binary', () => {
    const s = setup();
    installBinary(s.binary, s.candidate('binary v2'));
    installBinary(s.binary, s.candidate('binary v3'));
    expect(s.read(s.binary)).toBe('binary v3');
    expect(s.read(s.previous)).toBe('binary v2');
    expect(dotFiles(s.dir)).toEqual([]);
  });

  test('a descriptor open on the old binary still reads the old bytes (renamed, not overwritten)', () => {
    const s = setup();
    writeFileSync(s.binary, 'binary v1, long enough to notice a partial overwrite', { mode: 0o755 });
    const fd = openSync(s.binary, 'r');
    try {
      installBinary(s.binary, s.candidate('binary v2'));
      const buffer = Buffer.alloc(200);
      const length = readSync(fd, buffer, 0, buffer.length, 0);
      expect(buffer.subarray(0, length).toString()).toBe('binary v1, long enough to notice a partial overwrite');
      expect(s.read(s.binary)).toBe('binary v2');
    } finally {
      closeSync(fd);
    }
  });

  test('a binary that is missing: throws, and no .previous or aside copy is made', () => {
    const s = setup();
    const candidate = s.candidate('binary v2');
    expect(() => installBinary(join(s.dir, 'nothing-here'), candidate)).toThrow(/ENOENT/);
    expect(existsSync(previousOf(join(s.dir, 'nothing-here')))).toBe(false);
    expect(dotFiles(s.dir)).toEqual(['.svc.download-1']);
  });
});

describe('restorePrevious', () => {
  test('swaps .previous and the binary; a second restore swaps them again', () => {
    const s = setup();
    installBinary(s.binary, s.candidate('binary v2'));
    restorePrevious(s.binary);
    expect([s.read(s.binary), s.read(s.previous)]).toEqual(['binary v1', 'binary v2']);
    expect(statSync(s.binary).mode & 0o777).toBe(0o755);
    expect(dotFiles(s.dir)).toEqual([]);
    restorePrevious(s.binary);
    expect([s.read(s.binary), s.read(s.previous)]).toEqual(['binary v2', 'binary v1']);
    expect(dotFiles(s.dir)).toEqual([]);
  });

  test('a descriptor open on the binary keeps reading it through a restore', () => {
    const s = setup();
    installBinary(s.binary, s.candidate('binary v2'));
    const fd = openSync(s.binary, 'r');
    try {
      restorePrevious(s.binary);
      const buffer = Buffer.alloc(50);
      expect(buffer.subarray(0, readSync(fd, buffer, 0, 50, 0)).toString()).toBe('binary v2');
    } finally {
      closeSync(fd);
    }
  });

  test('without .previous: throws saying there is nothing to go back to, and changes nothing', () => {
    const s = setup();
    expect(() => restorePrevious(s.binary)).toThrow('there is no svc.previous to go back to (it is kept by the last update)');
    expect(s.read(s.binary)).toBe('binary v1');
    expect(existsSync(s.previous)).toBe(false);
    expect(dotFiles(s.dir)).toEqual([]);
  });
});
