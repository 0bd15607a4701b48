import { afterEach, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pkg from '../../../package.json' with { type: 'json' };
import { versionOfBinary } from '../../../src/core/update/binary-check';
import { svcBinaryAs } from '../../support/binary';
import { tempDir } from '../../support/controller';
import { otherCpuExecutable } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function folder(): string {
  const temp = tempDir('svc-binary-check-');
  cleanups.push(temp.remove);
  return temp.dir;
}

const hostIsBuilt = process.platform === 'linux' || process.platform === 'darwin';

const [MAJOR, MINOR, PATCH] = pkg.version.split('.').map(Number) as [number, number, number];
// The build the updater tests use as well (built once per test run).
const NEXT = `${MAJOR}.${MINOR}.${PATCH + 1}`;

test('a real svc build answers with the version it was built as', async () => {
  expect(await versionOfBinary(await svcBinaryAs(NEXT))).toBe(NEXT);
}, 120_000);

test('a script is refused by its header and never run', async () => {
  const dir = folder();
  const ran = join(dir, 'ran');
  const script = join(dir, 'svc');
  writeFileSync(script, `#!/bin/sh\ntouch ${ran}\necho "svc 9.9.9"\n`, { mode: 0o755 });
  await expect(versionOfBinary(script)).rejects.toThrow(/^the file is not a \w+ executable \(not an executable at all\)/);
  expect(existsSync(ran)).toBe(false);
});

test.skipIf(!hostIsBuilt)('an executable for the other CPU is refused by its header', async () => {
  const file = join(folder(), 'svc');
  writeFileSync(file, otherCpuExecutable(), { mode: 0o755 });
  await expect(versionOfBinary(file)).rejects.toThrow(/^the file is a (Linux|macOS) executable for another CPU/);
});

test('a file shorter than a header is refused by its header', async () => {
  const file = join(folder(), 'svc');
  writeFileSync(file, '', { mode: 0o755 });
  await expect(versionOfBinary(file)).rejects.toThrow(/^the file is /);
});

test('a missing file: the open fails', async () => {
  await expect(versionOfBinary(join(folder(), 'nothing'))).rejects.toThrow(/ENOENT/);
});

test('an executable that prints something else is not taken for svc', async () => {
  // bun itself: a real executable for this machine whose --version prints "1.4.5".
  await expect(versionOfBinary(process.execPath)).rejects.toThrow(`\`--version\` printed ${JSON.stringify(Bun.version)}, not "svc <version>"`);
});

const trueBin = Bun.which('true');
const falseBin = Bun.which('false');
const dash = Bun.which('dash');

test.skipIf(!trueBin)('another program that exits 0: what it printed, cut short', async () => {
  const error = await versionOfBinary(trueBin!).then(
    () => null,
    (e: Error) => e,
  );
  expect(error?.message).toMatch(/^`--version` printed ".*", not "svc <version>"$/);
  // At most 80 characters of it (JSON-quoted).
  expect(JSON.parse(/printed (".*"), not/.exec(error!.message)![1]!).length).toBeLessThanOrEqual(80);
});

test.skipIf(!falseBin)('an executable that exits non-zero: the exit code', async () => {
  await expect(versionOfBinary(falseBin!)).rejects.toThrow(`\`${falseBin} --version\` exited with 1`);
});

test.skipIf(!dash)('an executable that exits non-zero with stderr: the first line of it', async () => {
  // dash has no --version: it says "Illegal option --" and exits with 2.
  await expect(versionOfBinary(dash!)).rejects.toThrow(new RegExp(`^\`${dash} --version\` exited with 2: .*Illegal option`));
});
