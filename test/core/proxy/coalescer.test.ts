import { describe, expect, test } from 'bun:test';
import { Coalescer, type Timers } from '../../../src/core/proxy/coalescer';

/** A manual clock: timers fire only when the test advances time. */
class ManualTimers implements Timers {
  now = 0;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();
  private next = 0;
  set(callback: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.now + ms, callback });
    return id;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.pending].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
    }
    this.now = until;
  }
}

describe('Coalescer', () => {
  test('the first change goes out at once, a burst folds into one trailing emission of the latest', () => {
    const timers = new ManualTimers();
    const coalescer = new Coalescer(500, timers);
    const sent: string[] = [];
    coalescer.push('motd', () => sent.push('v1'));
    expect(sent).toEqual(['v1']);
    coalescer.push('motd', () => sent.push('v2'));
    coalescer.push('motd', () => sent.push('v3'));
    timers.advance(499);
    expect(sent).toEqual(['v1']);
    timers.advance(1);
    expect(sent).toEqual(['v1', 'v3']);
    // The trailing emission opened a new window: a change right after it waits again.
    coalescer.push('motd', () => sent.push('v4'));
    expect(sent).toEqual(['v1', 'v3']);
    timers.advance(500);
    expect(sent).toEqual(['v1', 'v3', 'v4']);
    // A quiet window closes; the next change is immediate again.
    timers.advance(500);
    coalescer.push('motd', () => sent.push('v5'));
    expect(sent).toEqual(['v1', 'v3', 'v4', 'v5']);
  });

  test('keys are independent, and flush sends what is pending', () => {
    const timers = new ManualTimers();
    const coalescer = new Coalescer(500, timers);
    const sent: string[] = [];
    coalescer.push('tab:a', () => sent.push('a1'));
    coalescer.push('tab:b', () => sent.push('b1'));
    coalescer.push('tab:a', () => sent.push('a2'));
    expect(sent).toEqual(['a1', 'b1']);
    coalescer.flush();
    expect(sent).toEqual(['a1', 'b1', 'a2']);
    timers.advance(1000);
    expect(sent).toEqual(['a1', 'b1', 'a2']);
  });
});
