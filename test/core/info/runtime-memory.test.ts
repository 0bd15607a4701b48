import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { memoryCeilingBytes, runtimeMemory } from '../../../src/core/info/runtime-memory';
import { tempDir } from '../../support/controller';

/** The controller's memory ceiling from a cgroup v2 tree laid out in a temp dir. */
const scratch = tempDir('svc-cgroup-');
afterAll(() => scratch.remove());

function tree(cgroupLine: string | null, memoryMax: string | null): { proc: string; cgroup: string } {
  const root = join(scratch.dir, String(Math.random()).slice(2));
  const proc = join(root, 'proc');
  const cgroup = join(root, 'cgroup');
  mkdirSync(join(proc, 'self'), { recursive: true });
  if (cgroupLine !== null) writeFileSync(join(proc, 'self', 'cgroup'), `${cgroupLine}\n`);
  mkdirSync(join(cgroup, 'system.slice', 'svc.service'), { recursive: true });
  if (memoryMax !== null) writeFileSync(join(cgroup, 'system.slice', 'svc.service', 'memory.max'), `${memoryMax}\n`);
  return { proc, cgroup };
}

describe('memoryCeilingBytes', () => {
  test('a numeric memory.max of the process cgroup is the ceiling', () => {
    const { proc, cgroup } = tree('0::/system.slice/svc.service', String(512 * 1048576));
    expect(memoryCeilingBytes(proc, cgroup)).toBe(512 * 1048576);
  });

  test('"max", no cgroup v2 line, no file, or a limit above the machine: the machine memory', () => {
    for (const [line, max] of [
      ['0::/system.slice/svc.service', 'max'],
      ['1:memory:/legacy', String(1048576)],
      ['0::/system.slice/svc.service', null],
      [null, null],
      ['0::/system.slice/svc.service', String(totalmem() * 4)],
    ] as const) {
      const { proc, cgroup } = tree(line, max);
      expect(memoryCeilingBytes(proc, cgroup)).toBe(totalmem());
    }
  });
});

test('runtimeMemory: resident memory, committed heap and a ceiling above what is used', () => {
  const memory = runtimeMemory();
  expect(memory.usedMb).toBeGreaterThan(0);
  expect(memory.allocatedMb).toBeGreaterThan(0);
  expect(memory.maxMb).toBeGreaterThanOrEqual(memory.usedMb);
});
