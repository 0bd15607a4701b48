import { describe, expect, test } from 'bun:test';
import { Lifecycle, type Part } from '../../../src/core/lifecycle/parts';

/** A part as a table row: which halves it has, and which of them throw. */
interface Row {
  name: string;
  start?: 'ok' | 'throws' | 'async';
  stop?: 'ok' | 'throws' | 'async';
}

/** Builds the list from rows; every start and stop that runs is written to `trace`. */
function lifecycle(rows: readonly Row[]) {
  const trace: string[] = [];
  const stopErrors: string[] = [];
  const parts: Part<string>[] = rows.map((row) => ({
    name: row.name,
    ...(row.start
      ? {
          start: () => {
            trace.push(`start ${row.name}`);
            if (row.start === 'throws') throw new Error(`${row.name} failed`);
            if (row.start === 'async') return Promise.resolve();
          },
        }
      : {}),
    ...(row.stop
      ? {
          stop: (how: string) => {
            trace.push(`stop ${row.name} (${how})`);
            if (row.stop === 'throws') throw new Error(`${row.name} stop failed`);
            if (row.stop === 'async') return Promise.resolve();
          },
        }
      : {}),
  }));
  const unit = new Lifecycle(parts, (part, error) => stopErrors.push(`${part}: ${(error as Error).message}`));
  return { unit, trace, stopErrors };
}

describe('Lifecycle', () => {
  const cases: { name: string; rows: Row[]; start: string[]; startError?: string; stop: string[]; stopErrors?: string[] }[] = [
    {
      name: 'starts forward and stops backward',
      rows: [
        { name: 'a', start: 'ok', stop: 'ok' },
        { name: 'b', start: 'async', stop: 'async' },
        { name: 'c', start: 'ok', stop: 'ok' },
      ],
      start: ['start a', 'start b', 'start c'],
      stop: ['stop c (bye)', 'stop b (bye)', 'stop a (bye)'],
    },
    {
      name: 'start-only and stop-only parts take their places in each direction',
      rows: [
        { name: 'db', stop: 'ok' },
        { name: 'modules', start: 'ok', stop: 'ok' },
        { name: 'banner', start: 'ok' },
        { name: 'services', stop: 'ok' },
      ],
      start: ['start modules', 'start banner'],
      stop: ['stop services (bye)', 'stop modules (bye)', 'stop db (bye)'],
    },
    {
      name: 'a failed start stops the whole list backward, the failed part and those never reached included, then throws',
      rows: [
        { name: 'a', start: 'ok', stop: 'ok' },
        { name: 'b', start: 'throws', stop: 'ok' },
        { name: 'c', start: 'ok', stop: 'ok' },
      ],
      start: ['start a', 'start b', 'stop c (failed)', 'stop b (failed)', 'stop a (failed)'],
      startError: 'b failed',
      stop: [],
    },
    {
      name: 'a stop that throws is reported and the parts before it still stop',
      rows: [
        { name: 'db', start: 'ok', stop: 'ok' },
        { name: 'modules', start: 'ok', stop: 'throws' },
        { name: 'api', start: 'ok', stop: 'ok' },
      ],
      start: ['start db', 'start modules', 'start api'],
      stop: ['stop api (bye)', 'stop modules (bye)', 'stop db (bye)'],
      stopErrors: ['modules: modules stop failed'],
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const { unit, trace, stopErrors } = lifecycle(c.rows);
      const started = unit.start('failed');
      if (c.startError) await expect(started).rejects.toThrow(c.startError);
      else await started;
      expect(trace).toEqual(c.start);
      trace.length = 0;
      await unit.stop('bye');
      expect(trace).toEqual(c.stop);
      expect(stopErrors).toEqual(c.stopErrors ?? []);
    });
  }

  test('stop runs once: a second call returns the same promise and stops nothing again', async () => {
    const { unit, trace } = lifecycle([{ name: 'a', start: 'ok', stop: 'async' }]);
    await unit.start('failed');
    const first = unit.stop('one');
    expect(unit.stop('two')).toBe(first);
    await first;
    expect(trace).toEqual(['start a', 'stop a (one)']);
    expect(unit.stopped).toBe(true);
  });

  test('synchronous stops at the end of the list run within the stop() call', () => {
    const { unit, trace } = lifecycle([
      { name: 'services', stop: 'async' },
      { name: 'balancer', stop: 'ok' },
      { name: 'scaling', stop: 'ok' },
    ]);
    void unit.stop('bye');
    expect(trace).toEqual(['stop scaling (bye)', 'stop balancer (bye)', 'stop services (bye)']);
  });

  test('a stop called while starting ends the start: later parts do not start', async () => {
    const trace: string[] = [];
    let unit: Lifecycle<string> | undefined;
    unit = new Lifecycle<string>(
      [
        { name: 'a', start: () => void trace.push('start a'), stop: () => void trace.push('stop a') },
        { name: 'b', start: () => void unit!.stop('signal'), stop: () => void trace.push('stop b') },
        { name: 'c', start: () => void trace.push('start c'), stop: () => void trace.push('stop c') },
      ],
      () => undefined,
    );
    await unit.start('failed');
    expect(trace).toEqual(['start a', 'stop c', 'stop b', 'stop a']);
  });

  test('a name listed twice is refused', () => {
    expect(() => new Lifecycle([{ name: 'a' }, { name: 'a' }], () => undefined)).toThrow('"a" is listed twice');
  });
});
