import { describe, expect, test } from 'bun:test';
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FifoPool, launch } from '../../../../src/core/supervisor/process';
import { DONE, LineLog, paperArgv, processScope, within } from './harness';

const scope = processScope('fifo-pool');
const isFifo = (path: string) => existsSync(path) && lstatSync(path).isFIFO();

/** Waits for the pool's background refill (bounded by within()'s timeout). */
const settled = (pool: FifoPool) => within(pool.idle(), 'the pool refill');

describe('FifoPool', () => {
  test('nothing is made before the first take; then a FIFO is moved into place and the pool refills', async () => {
    const dir = join(scope.workDir(), 'pool');
    const pool = new FifoPool(dir, 4);
    expect(existsSync(dir)).toBe(false);
    const dest = join(scope.workDir(), 'stdin.fifo');
    expect(pool.take(dest)).toBe(false); // empty at first: the wrapper makes its own
    await settled(pool);
    expect(pool.size).toBe(4);
    expect(readdirSync(dir).every((name) => isFifo(join(dir, name)))).toBe(true);
    expect((lstatSync(join(dir, readdirSync(dir)[0]!)).mode & 0o777).toString(8)).toBe('600');

    expect(pool.take(dest)).toBe(true);
    expect(isFifo(dest)).toBe(true);
    expect(readdirSync(dir)).toHaveLength(3);
    expect(pool.take(join(scope.workDir(), 'b.fifo'))).toBe(true);
    expect(pool.take(join(scope.workDir(), 'c.fifo'))).toBe(true); // 1 left: below half, a refill starts
    await settled(pool);
    expect(pool.size).toBe(5);
  });

  test('a destination that cannot be written keeps the FIFO for the next take', async () => {
    const pool = new FifoPool(join(scope.workDir(), 'pool'), 2);
    pool.take(join(scope.workDir(), 'first.fifo'));
    await settled(pool);
    const before = pool.size;
    expect(pool.take(join(scope.workDir(), 'missing-dir', 'stdin.fifo'))).toBe(false);
    expect(pool.size).toBe(before);
    expect(pool.take(join(scope.workDir(), 'ok.fifo'))).toBe(true);
  });

  test('FIFOs an earlier controller left are used first; other files there are ignored', async () => {
    const dir = join(scope.workDir(), 'pool');
    const earlier = new FifoPool(dir, 2);
    earlier.take(join(scope.workDir(), 'x.fifo'));
    await settled(earlier);
    const left = readdirSync(dir);
    writeFileSync(join(dir, 'not-a-fifo'), '');
    const later = new FifoPool(dir, 2);
    const dest = join(scope.workDir(), 'stdin.fifo');
    expect(later.take(dest)).toBe(true);
    expect(isFifo(dest)).toBe(true);
    expect(left.filter((name) => existsSync(join(dir, name)))).toHaveLength(left.length - 1);
    expect(existsSync(join(dir, 'not-a-fifo'))).toBe(true);
  });

  test('launch through the pool: the server reads stdin from the pooled FIFO', async () => {
    const pool = new FifoPool(join(scope.workDir(), 'pool'), 4);
    pool.take(join(scope.workDir(), 'warm.fifo'));
    await settled(pool);
    const before = pool.size;
    const workDir = scope.workDir();
    mkdirSync(workDir, { recursive: true });
    const handle = scope.track(await launch({ name: 'pooled', workDir, argv: paperArgv() }, { fifos: pool }));
    expect(pool.size).toBe(before - 1);
    expect(isFifo(join(handle.stateDir, 'stdin.fifo'))).toBe(true);
    const log = new LineLog(handle);
    await log.waitFor(DONE);
    handle.write('say through the pool');
    await log.waitFor(/\[Server\] through the pool$/);
    handle.write('stop');
    expect(await within(handle.exited, 'exit after stop')).toEqual({ code: 0 });
  });
});
