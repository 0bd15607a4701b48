import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModIdScanner, scanModIds, scanModIdsDetailed, type JarModIds } from '../../../src/core/groups/mod-ids';
import { readJarModIds } from '../../../src/core/groups/mod-jar';
import {
  declareSize,
  fabricJson,
  flipDataByte,
  garbleData,
  jar,
  modsToml,
  noise,
  toZip64,
  withArchiveComment,
  zeroLocalSizes,
} from './jar-fixtures';

const CAP = 1024 * 1024;
const NO_METADATA = 'has no mod metadata (fabric.mod.json, quilt.mod.json, META-INF/mods.toml, META-INF/neoforge.mods.toml)';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

/** A fresh `mods/` folder holding the given files. */
function modsDir(files: Record<string, Uint8Array | string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-mods-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'mods');
  mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/**
 * A scanner over the real reader that records every jar it actually reads. `taken()` returns the
 * jars read since the last call, sorted: jars are read concurrently, so their order is not fixed.
 */
function countingScanner() {
  const reads: string[] = [];
  const scanner = createModIdScanner({
    readJar: (path) => {
      reads.push(path.slice(path.lastIndexOf('/') + 1));
      return readJarModIds(path);
    },
  });
  return { scanner, taken: () => reads.splice(0).sort() };
}

describe('scanModIds: one jar per loader', () => {
  test('Fabric: fabric.mod.json id', async () => {
    const dir = modsDir({ 'sodium.jar': jar({ 'fabric.mod.json': fabricJson('sodium'), 'a/B.class': 'x' }) });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['sodium'], warnings: [] });
    expect(await scanModIds(dir)).toEqual(['sodium']);
  });

  test('Quilt: quilt.mod.json quilt_loader.id', async () => {
    const quilt = JSON.stringify({ schema_version: 1, quilt_loader: { group: 'org.example', id: 'quilted_mod', version: '1.0.0' } });
    const dir = modsDir({ 'q.jar': jar({ 'quilt.mod.json': quilt }) });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['quilted_mod'], warnings: [] });
  });

  test('Forge: every [[mods]] modId in META-INF/mods.toml, version placeholders ignored', async () => {
    const dir = modsDir({ 'pair.jar': jar({ 'META-INF/mods.toml': modsToml('zeta_core', 'alpha_addon') }) });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['alpha_addon', 'zeta_core'], warnings: [] });
  });

  test('NeoForge: META-INF/neoforge.mods.toml', async () => {
    const dir = modsDir({ 'neo.jar': jar({ 'META-INF/neoforge.mods.toml': modsToml('neo_mod') }) });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['neo_mod'], warnings: [] });
  });

  test('a multi-loader jar contributes the ids of every metadata file it carries', async () => {
    const dir = modsDir({
      'multi.jar': jar({
        'fabric.mod.json': fabricJson('multi-fabric'),
        'META-INF/mods.toml': modsToml('multi_forge'),
        'META-INF/neoforge.mods.toml': modsToml('multi_neo'),
      }),
    });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['multi-fabric', 'multi_forge', 'multi_neo'], warnings: [] });
  });
});

describe('scanModIds: a real mods folder', () => {
  test('exact ids and warnings: good jars, duplicates, and every kind of bad jar skipped', async () => {
    const bombJson = `{"id":"india","pad":"${' '.repeat(2 * CAP)}"}`;
    const dir = modsDir({
      'a-fabric.jar': jar({ 'fabric.mod.json': fabricJson('alpha') }),
      'b-forge.jar': jar({ 'META-INF/mods.toml': modsToml('bravo', 'charlie') }),
      'c-neoforge.jar': jar({ 'META-INF/neoforge.mods.toml': modsToml('delta') }),
      'd-both.jar': jar({ 'fabric.mod.json': fabricJson('echo'), 'META-INF/mods.toml': modsToml('echo', 'foxtrot') }),
      'e-duplicate.jar': jar({ 'fabric.mod.json': fabricJson('alpha') }),
      'f-library.jar': jar({ 'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n', 'lib/Util.class': 'x' }),
      'g-corrupt.jar': noise(4096),
      'h-bad-json.jar': jar({ 'fabric.mod.json': '{ "id": "hotel", ' }),
      'i-bomb.jar': jar({ 'fabric.mod.json': bombJson }),
      'readme.txt': 'not a jar',
      'config.toml': modsToml('not_a_jar'),
      // A macOS resource fork: hidden, so skipped like the loaders do, not reported as corrupt.
      '._a-fabric.jar': noise(512, 7),
    });
    mkdirSync(join(dir, 'folder.jar'));
    writeFileSync(join(dir, 'folder.jar', 'fabric.mod.json'), fabricJson('nested'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'deep.jar'), jar({ 'fabric.mod.json': fabricJson('not_recursive') }));

    expect(await scanModIdsDetailed(dir)).toEqual({
      ids: ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'],
      warnings: [
        { jar: 'f-library.jar', message: NO_METADATA },
        { jar: 'g-corrupt.jar', message: 'is not a readable jar: not a zip archive (no end of central directory)' },
        { jar: 'h-bad-json.jar', entry: 'fabric.mod.json', message: expect.stringMatching(/^is not valid JSON: \S/) },
        { jar: 'i-bomb.jar', entry: 'fabric.mod.json', message: `declares ${bombJson.length} bytes, over the ${CAP}-byte cap` },
      ],
    });
  });

  test('a missing mods folder, or a file where it should be, gives no ids and no warnings', async () => {
    const dir = modsDir();
    expect(await scanModIdsDetailed(join(dir, 'absent'))).toEqual({ ids: [], warnings: [] });
    expect(await scanModIds(join(dir, 'absent'))).toEqual([]);
    writeFileSync(join(dir, 'plain'), 'x');
    expect(await scanModIdsDetailed(join(dir, 'plain'))).toEqual({ ids: [], warnings: [] });
    expect(await scanModIds(join(dir, 'plain', 'mods'))).toEqual([]);
  });

  test('a folder that exists but cannot be listed is an error for the caller', async () => {
    const root = join(modsDir(), '..');
    symlinkSync('loop', join(root, 'loop'));
    await expect(scanModIdsDetailed(join(root, 'loop'))).rejects.toMatchObject({ code: 'ELOOP' });
  });

  test('an empty folder and an empty zip', async () => {
    expect(await scanModIdsDetailed(modsDir())).toEqual({ ids: [], warnings: [] });
    const dir = modsDir({ 'empty.jar': jar({}), 'zero.jar': new Uint8Array(0) });
    expect(await scanModIdsDetailed(dir)).toEqual({
      ids: [],
      warnings: [
        { jar: 'empty.jar', message: NO_METADATA },
        { jar: 'zero.jar', message: 'is not a readable jar: not a zip archive (too short)' },
      ],
    });
  });
});

describe('metadata that the loader would reject is skipped with a warning', () => {
  const cases: [string, Record<string, string>, { entry: string; message: string | ReturnType<typeof expect.stringMatching> }][] = [
    ['fabric.mod.json without id', { 'fabric.mod.json': '{"schemaVersion":1}' }, { entry: 'fabric.mod.json', message: 'has no id' }],
    ['fabric.mod.json that is an array', { 'fabric.mod.json': '[{"id":"x_mod"}]' }, { entry: 'fabric.mod.json', message: 'has no id' }],
    ['non-string id', { 'fabric.mod.json': '{"id":42}' }, { entry: 'fabric.mod.json', message: 'has a id that is not a string' }],
    ['invalid id', { 'fabric.mod.json': '{"id":"Bad Id"}' }, { entry: 'fabric.mod.json', message: 'has an invalid id: "Bad Id"' }],
    ['one-letter id', { 'fabric.mod.json': '{"id":"a"}' }, { entry: 'fabric.mod.json', message: 'has an invalid id: "a"' }],
    [
      'unexpanded build placeholder',
      { 'fabric.mod.json': '{"id":"${mod_id}"}' },
      { entry: 'fabric.mod.json', message: 'has an unexpanded placeholder as id: "${mod_id}"' },
    ],
    ['quilt.mod.json without quilt_loader', { 'quilt.mod.json': '{"id":"q_mod"}' }, { entry: 'quilt.mod.json', message: 'has no quilt_loader.id' }],
    [
      'invalid TOML',
      { 'META-INF/mods.toml': '[[mods]]\nmodId = "unterminated\n' },
      { entry: 'META-INF/mods.toml', message: expect.stringMatching(/^is not valid TOML: [^\n]+$/) },
    ],
    ['mods.toml without [[mods]]', { 'META-INF/mods.toml': 'modLoader = "javafml"\n' }, { entry: 'META-INF/mods.toml', message: 'has no [[mods]] tables' }],
    [
      'one [[mods]] table without modId rejects the whole file',
      { 'META-INF/mods.toml': `${modsToml('fine_mod')}\n[[mods]]\nversion = "1"\n` },
      { entry: 'META-INF/mods.toml', message: 'has no mods[1].modId' },
    ],
    [
      'neoforge.mods.toml placeholder modId',
      { 'META-INF/neoforge.mods.toml': modsToml('${mod_id}') },
      { entry: 'META-INF/neoforge.mods.toml', message: 'has an unexpanded placeholder as mods[0].modId: "${mod_id}"' },
    ],
  ];
  for (const [title, files, warning] of cases) {
    test(title, async () => {
      const dir = modsDir({ 'bad.jar': jar(files) });
      expect(await scanModIdsDetailed(dir)).toEqual({ ids: [], warnings: [{ jar: 'bad.jar', ...warning }] });
    });
  }

  test('invalid UTF-8', async () => {
    const dir = modsDir({ 'bad.jar': jar({ 'fabric.mod.json': new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }) });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: [], warnings: [{ jar: 'bad.jar', entry: 'fabric.mod.json', message: 'is not valid UTF-8' }] });
  });

  test("a bad metadata file does not cost the jar's other metadata files", async () => {
    const dir = modsDir({ 'mixed.jar': jar({ 'fabric.mod.json': '{nope', 'META-INF/mods.toml': modsToml('still_here') }) });
    expect(await scanModIdsDetailed(dir)).toEqual({
      ids: ['still_here'],
      warnings: [{ jar: 'mixed.jar', entry: 'fabric.mod.json', message: expect.stringMatching(/^is not valid JSON: /) }],
    });
  });

  test('a byte order mark is tolerated', async () => {
    const dir = modsDir({ 'bom.jar': jar({ 'fabric.mod.json': `\uFEFF${fabricJson('bom_mod')}` }) });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['bom_mod'], warnings: [] });
  });

  test('an overlong invalid id is cut short in the warning', async () => {
    const dir = modsDir({ 'long.jar': jar({ 'fabric.mod.json': JSON.stringify({ id: 'x'.repeat(5000) }) }) });
    const { warnings } = await scanModIdsDetailed(dir);
    expect(warnings).toEqual([{ jar: 'long.jar', entry: 'fabric.mod.json', message: `has an invalid id: "${'x'.repeat(80)}…"` }]);
  });
});

describe('zip handling', () => {
  test('zip bomb with a lying header: inflating stops at the cap', async () => {
    // 8 MiB of spaces deflates to ~8 KiB; the header claims 100 bytes.
    const bomb = `{"id":"bomb_mod","pad":"${' '.repeat(8 * CAP)}"}`;
    const dir = modsDir({ 'liar.jar': declareSize(jar({ 'fabric.mod.json': bomb }), 'fabric.mod.json', 100) });
    expect(await scanModIdsDetailed(dir)).toEqual({
      ids: [],
      warnings: [{ jar: 'liar.jar', entry: 'fabric.mod.json', message: `inflates past the ${CAP}-byte cap` }],
    });
  });

  test('an entry that inflates to less than it declares is rejected', async () => {
    const dir = modsDir({ 'short.jar': declareSize(jar({ 'fabric.mod.json': fabricJson('short_mod') }), 'fabric.mod.json', 5000) });
    const size = fabricJson('short_mod').length;
    expect(await scanModIdsDetailed(dir)).toEqual({
      ids: [],
      warnings: [{ jar: 'short.jar', entry: 'fabric.mod.json', message: `holds ${size} bytes where 5000 were declared` }],
    });
  });

  test('a metadata file just under the cap is read whole (inflated across many pushes)', async () => {
    const filler = Buffer.from(noise(CAP / 2, 3)).toString('hex').slice(0, CAP - 100);
    const big = `{"id":"big_mod","description":"${filler}"}`;
    expect(big.length).toBeLessThanOrEqual(CAP);
    const dir = modsDir({ 'big.jar': jar({ 'fabric.mod.json': big }) });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['big_mod'], warnings: [] });
  });

  test('other entries are never inflated: garbage in a class file does not matter', async () => {
    const zip = garbleData(jar({ 'fabric.mod.json': fabricJson('clean_mod'), 'a/Big.class': 'class bytes '.repeat(1000) }), 'a/Big.class');
    const dir = modsDir({ 'x.jar': zip });
    expect(await scanModIdsDetailed(dir)).toEqual({ ids: ['clean_mod'], warnings: [] });
  });

  test('corrupt deflate data in a metadata file', async () => {
    const dir = modsDir({ 'x.jar': garbleData(jar({ 'fabric.mod.json': fabricJson('lost_mod') }), 'fabric.mod.json') });
    expect(await scanModIdsDetailed(dir)).toEqual({
      ids: [],
      warnings: [{ jar: 'x.jar', entry: 'fabric.mod.json', message: expect.stringMatching(/^is corrupt \(.+\)$/) }],
    });
  });

  test('stored entries are read, and their CRC-32 is checked', async () => {
    const stored = jar({ 'fabric.mod.json': [fabricJson('stored_mod'), { level: 0 }] });
    expect(await scanModIdsDetailed(modsDir({ 's.jar': stored }))).toEqual({ ids: ['stored_mod'], warnings: [] });
    const flipped = flipDataByte(stored, 'fabric.mod.json');
    expect(await scanModIdsDetailed(modsDir({ 's.jar': flipped }))).toEqual({
      ids: [],
      warnings: [{ jar: 's.jar', entry: 'fabric.mod.json', message: 'fails its CRC-32 check' }],
    });
  });

  test('data descriptors (zero sizes in local headers), ZIP64 and archive comments', async () => {
    // Extra fields as the `jar` tool (0xCAFE, empty) and Info-ZIP (0x5455 timestamps) write them, in local headers too.
    const base = jar({
      'a/A.class': 'x',
      'fabric.mod.json': [fabricJson('shape_mod'), { extra: { 0xcafe: new Uint8Array(0) } }],
      'META-INF/mods.toml': [modsToml('shape_forge'), { extra: { 0x5455: new Uint8Array([1, 0, 0, 0, 0]) } }],
    });
    const dir = modsDir({
      'descriptors.jar': zeroLocalSizes(base),
      'zip64.jar': toZip64(base),
      'comment.jar': withArchiveComment(base, 'built by a tool that comments'),
    });
    const { scanner, taken } = countingScanner();
    expect(await scanner.scan(dir)).toEqual({ ids: ['shape_forge', 'shape_mod'], warnings: [] });
    expect(taken()).toEqual(['comment.jar', 'descriptors.jar', 'zip64.jar']);
    // Each shape on its own, so one reader bug cannot hide behind another jar's ids.
    for (const zip of [zeroLocalSizes(base), toZip64(base), withArchiveComment(base, 'c')]) {
      expect(await readJarModIds(writeJar(zip))).toEqual({ ids: ['shape_forge', 'shape_mod'], problems: [] });
    }
  });

  test('a truncated jar is not readable', async () => {
    const whole = jar({ 'fabric.mod.json': fabricJson('cut_mod') });
    expect(await readJarModIds(writeJar(whole.subarray(0, whole.length - 10)))).toEqual({
      ids: [],
      problems: [{ message: 'is not a readable jar: not a zip archive (no end of central directory)' }],
    });
  });
});

function writeJar(zip: Uint8Array): string {
  const path = join(modsDir(), 'one.jar');
  writeFileSync(path, zip);
  return path;
}

describe('cache', () => {
  test('unchanged jars are read once; a changed jar alone is read again', async () => {
    const dir = modsDir({
      'a.jar': jar({ 'fabric.mod.json': fabricJson('a_mod') }),
      'b.jar': jar({ 'META-INF/mods.toml': modsToml('b_mod') }),
      'broken.jar': noise(100),
    });
    const { scanner, taken } = countingScanner();
    const first = await scanner.scan(dir);
    expect(first).toEqual({ ids: ['a_mod', 'b_mod'], warnings: [{ jar: 'broken.jar', message: expect.stringMatching(/^is not a readable jar: /) }] });
    expect(taken()).toEqual(['a.jar', 'b.jar', 'broken.jar']);

    // Bad jars are cached too: their warnings come back without another read.
    expect(await scanner.scan(dir)).toEqual(first);
    expect(taken()).toEqual([]);

    writeFileSync(join(dir, 'a.jar'), jar({ 'fabric.mod.json': fabricJson('a_mod_two'), 'extra.txt': 'grows the file' }));
    expect((await scanner.scan(dir)).ids).toEqual(['a_mod_two', 'b_mod']);
    expect(taken()).toEqual(['a.jar']);
  });

  test('a jar swapped for another of the same size and mtime is still noticed', async () => {
    // Stored entries with equal-length ids: the two jars have exactly the same size.
    const one = jar({ 'fabric.mod.json': [fabricJson('mod_one'), { level: 0 }] });
    const two = jar({ 'fabric.mod.json': [fabricJson('mod_two'), { level: 0 }] });
    expect(two.length).toBe(one.length);
    const dir = modsDir({ 'm.jar': one });
    const path = join(dir, 'm.jar');
    const when = new Date('2024-05-01T00:00:00Z');
    utimesSync(path, when, when);
    const { scanner, taken } = countingScanner();
    expect((await scanner.scan(dir)).ids).toEqual(['mod_one']);
    expect(taken()).toEqual(['m.jar']);

    // rsync-style: a new file renamed over the old one, mtime preserved.
    writeFileSync(join(dir, '.m.jar.tmp'), two);
    utimesSync(join(dir, '.m.jar.tmp'), when, when);
    renameSync(join(dir, '.m.jar.tmp'), path);
    expect(statSync(path).size).toBe(one.length);
    expect(statSync(path).mtimeMs).toBe(when.getTime());
    expect((await scanner.scan(dir)).ids).toEqual(['mod_two']);
    expect(taken()).toEqual(['m.jar']);

    // cp -p style: rewritten in place, mtime put back.
    writeFileSync(path, one);
    utimesSync(path, when, when);
    expect((await scanner.scan(dir)).ids).toEqual(['mod_one']);
    expect(taken()).toEqual(['m.jar']);
    // And with nothing changed, no read at all.
    expect((await scanner.scan(dir)).ids).toEqual(['mod_one']);
    expect(taken()).toEqual([]);
  });

  test('removed and added jars are reflected; a re-added jar is read again', async () => {
    const a = jar({ 'fabric.mod.json': fabricJson('a_mod') });
    const dir = modsDir({ 'a.jar': a });
    const { scanner, taken } = countingScanner();
    expect((await scanner.scan(dir)).ids).toEqual(['a_mod']);
    expect(taken()).toEqual(['a.jar']);
    rmSync(join(dir, 'a.jar'));
    writeFileSync(join(dir, 'b.jar'), jar({ 'fabric.mod.json': fabricJson('b_mod') }));
    expect((await scanner.scan(dir)).ids).toEqual(['b_mod']);
    expect(taken()).toEqual(['b.jar']);
    rmSync(dir, { recursive: true });
    expect(await scanner.scan(dir)).toEqual({ ids: [], warnings: [] });
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.jar'), a);
    expect((await scanner.scan(dir)).ids).toEqual(['a_mod']);
    expect(taken()).toEqual(['a.jar']);
  });

  test('concurrent scans share one read per jar', async () => {
    const dir = modsDir({ 'a.jar': jar({ 'fabric.mod.json': fabricJson('a_mod') }), 'b.jar': jar({ 'fabric.mod.json': fabricJson('b_mod') }) });
    const { scanner, taken } = countingScanner();
    const results = await Promise.all([scanner.scan(dir), scanner.scan(dir), scanner.scan(`${dir}/`)]);
    for (const result of results) expect(result).toEqual({ ids: ['a_mod', 'b_mod'], warnings: [] });
    expect(taken()).toEqual(['a.jar', 'b.jar']);
  });

  test('the shared scanner behind scanModIds notices a changed jar', async () => {
    const dir = modsDir({ 'a.jar': jar({ 'fabric.mod.json': fabricJson('before') }) });
    expect(await scanModIds(dir)).toEqual(['before']);
    writeFileSync(join(dir, 'a.jar'), jar({ 'fabric.mod.json': fabricJson('after_change') }));
    expect(await scanModIds(dir)).toEqual(['after_change']);
  });

  test('a reader that fails becomes a warning, not a failed scan', async () => {
    const dir = modsDir({ 'a.jar': 'x', 'b.jar': jar({ 'fabric.mod.json': fabricJson('b_mod') }) });
    const scanner = createModIdScanner({
      readJar: (path): Promise<JarModIds> => (path.endsWith('a.jar') ? Promise.reject(new Error('disk on fire')) : readJarModIds(path)),
    });
    expect(await scanner.scan(dir)).toEqual({ ids: ['b_mod'], warnings: [{ jar: 'a.jar', message: 'cannot be read: disk on fire' }] });
  });
});
