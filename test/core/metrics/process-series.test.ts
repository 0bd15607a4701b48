import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { maxOpenFiles, registerProcessSeries, virtualMemoryBytes } from '../../../src/core/metrics/process-series';
import { MetricsRegistry } from '../../../src/core/metrics/registry';
import { tempDir } from '../../support/controller';
import { parseExposition } from './exposition';

const dirs: (() => void)[] = [];
afterAll(() => dirs.forEach((remove) => remove()));

/** A fake `/proc/<pid>`: `stat` and `limits` as given, `fd/` with `fds` entries. */
function fakeProc(files: { stat?: string; limits?: string; fds?: number }): string {
  const { dir, remove } = tempDir('svc-proc-');
  dirs.push(remove);
  if (files.stat !== undefined) writeFileSync(join(dir, 'stat'), files.stat);
  if (files.limits !== undefined) writeFileSync(join(dir, 'limits'), files.limits);
  if (files.fds !== undefined) {
    mkdirSync(join(dir, 'fd'));
    for (let i = 0; i < files.fds; i++) writeFileSync(join(dir, 'fd', String(i)), '');
  }
  return dir;
}

// A real line's shape: pid, (comm), state, then fields 4.. (vsize is field 23, rss field 24).
const STAT = '4242 (bun (svc) x) S 1 4242 4242 0 -1 4194560 1 0 0 0 5 3 0 0 20 0 9 0 777 6857580544 25355 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n';
const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('the /proc readers', () => {
  test('vsize is field 23, counted after the last ) of the command name', () => {
    expect(virtualMemoryBytes(STAT)).toBe(6857580544);
    expect(virtualMemoryBytes('1 (x) S')).toBeUndefined();
  });

  test('max open files is the soft limit; unlimited or absent is none', () => {
    expect(maxOpenFiles(LIMITS)).toBe(20000);
    expect(maxOpenFiles(LIMITS.replace('20000      ', 'unlimited  '))).toBeUndefined();
    expect(maxOpenFiles('Limit Soft Hard Units\n')).toBeUndefined();
  });
});

describe('registerProcessSeries', () => {
  test('with a /proc: every process_* family, read from it', () => {
    const metrics = new MetricsRegistry();
    registerProcessSeries(metrics, fakeProc({ stat: STAT, limits: LIMITS, fds: 5 }));
    const parsed = parseExposition(metrics.render());
    expect([...parsed.families.keys()].sort()).toEqual([
      'process_cpu_seconds_total',
      'process_max_fds',
      'process_open_fds',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'process_virtual_memory_bytes',
    ]);
    expect(parsed.families.get('process_cpu_seconds_total')!.type).toBe('counter');
    expect(parsed.value('process_virtual_memory_bytes')).toBe(6857580544);
    expect(parsed.value('process_open_fds')).toBe(5);
    expect(parsed.value('process_max_fds')).toBe(20000);
    expect(parsed.value('process_start_time_seconds')).toBeCloseTo(performance.timeOrigin / 1000, 2);
  });

  test('without a /proc (macOS, Windows): the runtime-read series only', () => {
    const metrics = new MetricsRegistry();
    registerProcessSeries(metrics, fakeProc({}));
    expect(metrics.names().sort()).toEqual(['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds']);
  });

  test('a file that cannot be read or understood leaves its family without a sample', () => {
    const metrics = new MetricsRegistry();
    registerProcessSeries(metrics, fakeProc({ stat: 'garbage', limits: 'Max open files unlimited unlimited files\n' }));
    const parsed = parseExposition(metrics.render());
    for (const name of ['process_virtual_memory_bytes', 'process_open_fds', 'process_max_fds']) expect(parsed.families.get(name)!.samples, name).toEqual([]);
    expect(parsed.value('process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});
