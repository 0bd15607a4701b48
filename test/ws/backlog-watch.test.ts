/** The backlog watch on a fake monotonic clock with sockets whose backlog the test sets. */
import { describe, expect, test } from 'bun:test';
import { BacklogWatch, type BacklogLimits, type Dropped } from '../../src/ws/backlog-watch';

const LIMITS: BacklogLimits = { checkMs: 250, drainedBytes: 64 * 1024, stallMs: 5_000, socketBytes: 1024 * 1024, totalBytes: 4 * 1024 * 1024 };

function socket(bytes = 0) {
  const s = { bytes, terminated: false, buffered: () => s.bytes, terminate: () => void (s.terminated = true) };
  return s;
}

function setup() {
  let now = 10_000;
  const drops: Dropped[] = [];
  const watch = new BacklogWatch(LIMITS, (d) => drops.push(d), () => now);
  return { watch, drops, advance: (ms: number) => (now += ms) };
}

describe('BacklogWatch', () => {
  test('a reader whose backlog drains is never closed, however long it runs and however often it has a backlog', () => {
    const { watch, advance } = setup();
    const reader = socket();
    watch.track('r', reader);
    for (let i = 0; i < 200; i++) {
      reader.bytes = i % 10 === 9 ? 0 : 900 * 1024; // a backlog for 2.25 s, then drained, again and again
      advance(250);
      watch.check();
    }
    expect(reader.terminated).toBe(false);
    watch.stop();
  });

  test('a backlog that has not drained for stallMs is cut; one that drains stays', () => {
    const { watch, drops, advance } = setup();
    const stalled = socket(100 * 1024);
    const drained = socket(10 * 1024);
    watch.track('s', stalled);
    watch.track('d', drained);
    watch.check();
    advance(4_999);
    watch.check();
    expect(stalled.terminated).toBe(false);
    advance(1);
    watch.check();
    expect(stalled.terminated).toBe(true);
    expect(drops).toEqual([{ sockets: 1, largestBytes: 100 * 1024, why: 'unread for 5 s' }]);
    expect(watch.size).toBe(1);
    expect(drained.terminated).toBe(false);
    watch.stop();
  });

  test('more than socketBytes is closed at the next check', () => {
    const { watch, drops } = setup();
    const big = socket(1024 * 1024 + 1);
    watch.track('b', big);
    watch.check();
    expect(big.terminated).toBe(true);
    expect(drops[0]!.why).toBe('more than 1 MiB unread');
    watch.stop();
  });

  test('over the total budget the largest backlogs go first, until it fits; small ones stay', () => {
    const { watch, drops } = setup();
    const sockets = [900, 800, 700, 600, 500, 400, 300, 60].map((kib) => socket(kib * 1024));
    sockets.forEach((s, i) => watch.track(String(i), s));
    watch.check();
    // 4260 KiB in all, 4096 allowed: the 900 KiB one goes (3360 KiB left).
    expect(sockets.map((s) => s.terminated)).toEqual([true, false, false, false, false, false, false, false]);
    expect(drops).toEqual([{ sockets: 1, largestBytes: 900 * 1024, why: 'the subscribers together held more than 4 MiB unread' }]);
    watch.stop();
  });

  test('untracking the last socket stops the timer', () => {
    const { watch } = setup();
    watch.track('a', socket());
    watch.untrack('a');
    expect(watch.size).toBe(0);
  });
});
