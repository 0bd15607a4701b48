/**
 * The doctor's Java probe asks each binary once and again only when that file changed: real
 * executables (shell scripts that print a `java -version` banner and count their runs).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { askJava, rememberedJavaProbe } from '../../../src/core/doctor/java-probe';
import { tempDir } from '../../support/controller';

const { dir, remove } = tempDir('svc-java-probe-');
const PROBE_MODULE = join(import.meta.dir, '../../../src/core/doctor/java-probe.ts');
afterAll(remove);

/** A fake java at `path` announcing `version`; every run appends a line to `<path>.runs`. */
function fakeJava(path: string, version: string): void {
  writeFileSync(path, `#!/bin/sh\necho run >> "${path}.runs"\necho 'openjdk version "${version}" 2024-01-16' >&2\n`);
  chmodSync(path, 0o755);
}
const runsOf = (path: string) => {
  try {
    return readFileSync(`${path}.runs`, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

describe('rememberedJavaProbe', () => {
  test('one run per binary while the file stays the same', () => {
    const java = join(dir, 'java21');
    fakeJava(java, '21.0.2');
    const probe = rememberedJavaProbe(askJava);
    expect(probe(java)).toEqual({ major: 21, version: '21.0.2' });
    expect(probe(java)).toEqual({ major: 21, version: '21.0.2' });
    expect(runsOf(java)).toBe(1);
  });

  test('a replaced binary (an upgrade) is asked again', () => {
    const java = join(dir, 'java-upgraded');
    fakeJava(java, '17.0.9');
    const probe = rememberedJavaProbe(askJava);
    expect(probe(java)).toMatchObject({ major: 17 });
    rmSync(java);
    fakeJava(java, '21.0.2');
    utimesSync(java, new Date(), new Date(Date.now() + 5_000)); // a new file even where inode and size repeat
    expect(probe(java)).toMatchObject({ major: 21 });
  });

  test('a link is remembered by the file it points to; re-pointed, the new target is asked', () => {
    const old = join(dir, 'jdk17');
    const next = join(dir, 'jdk21');
    fakeJava(old, '17.0.9');
    fakeJava(next, '21.0.2');
    const link = join(dir, 'java-alternative');
    symlinkSync(old, link);
    const probe = rememberedJavaProbe(askJava);
    expect(probe(link)).toMatchObject({ major: 17 });
    expect(probe(old)).toMatchObject({ major: 17 });
    expect(runsOf(old)).toBe(1);
    rmSync(link);
    symlinkSync(next, link);
    expect(probe(link)).toMatchObject({ major: 21 });
  });

  test('a bare name is found on PATH (the PATH the process started with, which its spawn searches too)', () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const java = join(bin, 'java');
    fakeJava(java, '21.0.2');
    const script = `import { askJava, rememberedJavaProbe } from ${JSON.stringify(PROBE_MODULE)};
      const probe = rememberedJavaProbe(askJava);
      console.log(JSON.stringify([probe('java'), probe('java')]));`;
    const run = Bun.spawnSync([process.execPath, '-e', script], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, stdout: 'pipe', stderr: 'pipe' });
    expect(run.stderr.toString()).toBe('');
    expect(JSON.parse(run.stdout.toString())).toEqual([{ major: 21, version: '21.0.2' }, { major: 21, version: '21.0.2' }]);
    expect(runsOf(java)).toBe(1);
  });

  test('a missing binary is asked every time: installed later, it is found', () => {
    const java = join(dir, 'not-yet');
    const probe = rememberedJavaProbe(askJava);
    expect(probe(java)).toHaveProperty('error');
    fakeJava(java, '21.0.2');
    expect(probe(java)).toMatchObject({ major: 21 });
  });
});
