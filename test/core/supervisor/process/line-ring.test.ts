import { describe, expect, test } from 'bun:test';
import { LineFanout } from '../../../../src/core/supervisor/process/line-fanout';
import { LineRing } from '../../../../src/core/supervisor/process/line-ring';

describe('LineRing', () => {
  test('keeps the last `capacity` lines, oldest first', () => {
    const ring = new LineRing(3);
    expect(ring.last(5)).toEqual([]);
    for (const line of ['a', 'b']) ring.push(line);
    expect(ring.last(5)).toEqual(['a', 'b']);
    for (const line of ['c', 'd', 'e']) ring.push(line);
    expect(ring.last(5)).toEqual(['c', 'd', 'e']);
    expect(ring.last(2)).toEqual(['d', 'e']);
    expect(ring.last(0)).toEqual([]);
    expect(ring.last(-1)).toEqual([]);
  });

  test('refuses a capacity below 1', () => {
    expect(() => new LineRing(0)).toThrow(RangeError);
  });
});

describe('LineFanout', () => {
  test('a throwing listener does not stop the others; its error surfaces on a microtask', async () => {
    const fanout = new LineFanout(10);
    const seen: string[] = [];
    fanout.add(() => {
      throw new Error('listener bug');
    });
    fanout.add((line) => seen.push(line));
    const surfaced = new Promise<unknown>((resolve) => {
      const original = globalThis.queueMicrotask;
      globalThis.queueMicrotask = (callback) => {
        globalThis.queueMicrotask = original;
        try {
          callback();
        } catch (error) {
          resolve(error);
        }
      };
    });
    fanout.emit('x');
    expect(seen).toEqual(['x']);
    expect(await surfaced).toBeInstanceOf(Error);
    expect(fanout.last(5)).toEqual(['x']);
  });

  test('remember() feeds lastLines only', () => {
    const fanout = new LineFanout(10);
    const seen: string[] = [];
    fanout.add((line) => seen.push(line));
    fanout.remember('old');
    fanout.emit('new');
    expect(seen).toEqual(['new']);
    expect(fanout.last(5)).toEqual(['old', 'new']);
  });
});
