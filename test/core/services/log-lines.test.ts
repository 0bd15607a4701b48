/** A service's log lines: the last lines of real logs; nothing from a planted link, FIFO or hard link, and no blocking. */
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { serviceLogLines } from '../../../src/core/services/log-lines';
import { LOCAL_NODE } from '../../../src/core/services/registry';
import { removeTempDirs, writeTree } from '../templates/fixtures';
import { expectNoSecret, expectOutsideUntouched, fifoWatchdog, hostileBase, plant } from '../templates/hostile';

afterEach(removeTempDirs);

const local = (workDir: string) => ({ name: 'Lobby-1', workDir, nodeId: LOCAL_NODE });

describe('service log lines', () => {
  test('the last lines of logs/latest.log and of the console log; only the tail of a large one', () => {
    const h = hostileBase();
    const work = join(h.base, 'lobby-1');
    const big = `${'x'.repeat(100)}\n`.repeat(50_000) + 'last one\n';
    writeTree(work, { 'logs/latest.log': 'a\nb\r\nc\n', '.svc/console.log': big });
    expect(serviceLogLines(local(work), null, 'app', 2)).toEqual(['b', 'c']);
    expect(serviceLogLines(local(work), null, 'stdout', 2)).toEqual(['x'.repeat(100), 'last one']);
    expect(serviceLogLines(local(join(h.base, 'missing')), null, 'app', 5)).toEqual([]);
  });

  test('a service that ended while no handle was kept: its output from its state dir under the run dir, else the old .svc', () => {
    const h = hostileBase();
    const work = join(h.base, 'lobby-1');
    const runDir = join(h.base, 'data', 'run');
    writeTree(work, { '.svc/console.log': 'old layout\n' });
    expect(serviceLogLines(local(work), null, 'stdout', 5, runDir)).toEqual(['old layout']);
    writeTree(join(runDir, 'Lobby-1'), { 'console.log': 'from the run dir\n' });
    expect(serviceLogLines(local(work), null, 'stdout', 5, runDir)).toEqual(['from the run dir']);
  });

  test.each([
    ['a link to a file outside', { fileLink: ['logs/latest.log'] }],
    ['a link to a folder outside on the way', { dirLink: ['logs'] }],
    ['a FIFO', { fifo: ['logs/latest.log'] }],
    ['a hard link to a file outside', { hardlink: ['logs/latest.log'] }],
  ])('logs/latest.log as %s gives no lines and reads nothing outside', (_, planted) => {
    const h = hostileBase();
    const work = join(h.base, 'lobby-1');
    plant(h, work, planted);
    // The console log given by a handle is opened the same way.
    plant(h, work, { fileLink: ['.svc/console.log'] });
    const dog = fifoWatchdog([join(work, 'logs/latest.log')]);
    try {
      const app = serviceLogLines(local(work), null, 'app', 100);
      const stdout = serviceLogLines(local(work), { logFile: join(work, '.svc/console.log'), lastLines: () => [] }, 'stdout', 100);
      expect(app).toEqual([]);
      expect(stdout).toEqual([]);
      expectNoSecret(h, JSON.stringify([app, stdout]));
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expectOutsideUntouched(h);
  });
});
