import { describe, expect, test } from 'bun:test';
import { checkAgainstManifest, manifestText, parseManifest, problemMessage } from '../../../../src/modules/backup/archive/manifest-file';

const h = (c: string): string => c.repeat(64);

describe('manifest-file: the one writer and reader of MANIFEST.sha256', () => {
  test('what manifestText writes, parseManifest reads back (escaped names, byte order)', () => {
    const files = [
      { path: 'z.txt', hash: h('a') },
      { path: 'back\\slash\nnew', hash: h('b') },
      { path: 'Ä.txt', hash: h('c') },
      { path: 'B.txt', hash: h('d') },
    ];
    const text = manifestText(files);
    expect(text.split('\n')[0]).toBe(`${h('d')}  B.txt`);
    expect(text).toContain(`\\${h('b')}  back\\\\slash\\nnew\n`);
    expect(parseManifest(text)).toEqual({ files: [files[3]!, files[1]!, files[0]!, files[2]!], malformed: [] });
  });

  test('reading is tolerant: binary marks, CRLF, blank lines, ./ prefixes, uppercase hex', () => {
    const text = `${h('A')} *./a.txt\r\n\n   \n${h('b')}  dir//b.txt\n`;
    expect(parseManifest(text)).toEqual({ files: [{ path: 'a.txt', hash: h('a') }, { path: 'dir/b.txt', hash: h('b') }], malformed: [] });
  });

  test('lines it cannot read are kept as malformed, an empty path included', () => {
    expect(parseManifest(`nothex  a\n${h('a')}  \n${h('a')}  ./\n`).malformed).toEqual(['nothex  a', `${h('a')}  `, `${h('a')}  ./`]);
  });

  test('the check: malformed, then mismatched and missing in manifest order, then extras in archive order', () => {
    const manifest = parseManifest(`${h('1')}  kept\n${h('2')}  changed\n${h('3')}  gone\nbad line\n`);
    const held = [
      { path: 'extra', hash: h('9') },
      { path: 'changed', hash: h('8') },
      { path: 'kept', hash: h('1') },
    ];
    expect(checkAgainstManifest(manifest, held).map(problemMessage)).toEqual([
      'Malformed MANIFEST.sha256 line: bad line',
      'Checksum mismatch: changed',
      'Missing file in archive: gone',
      'Unexpected extra file: extra',
    ]);
  });

  test('a path held twice must be listed twice, with each hash', () => {
    const twice = [
      { path: 'a', hash: h('1') },
      { path: 'a', hash: h('2') },
    ];
    expect(checkAgainstManifest(parseManifest(`${h('2')}  a\n${h('1')}  a\n`), twice)).toEqual([]);
    expect(checkAgainstManifest(parseManifest(`${h('1')}  a\n`), twice)).toEqual([{ kind: 'extra', path: 'a' }]);
    expect(checkAgainstManifest(parseManifest(`${h('1')}  a\n${h('3')}  a\n`), twice)).toEqual([{ kind: 'mismatch', path: 'a' }]);
  });
});
