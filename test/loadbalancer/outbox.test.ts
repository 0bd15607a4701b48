/** One relay direction against scripted sockets: order, the PROXY header first, pause/resume, end of stream. */
import { describe, expect, test } from 'bun:test';
import { Outbox, type Pipe } from '../../src/loadbalancer/outbox';

/** A socket that takes at most `room` bytes until given more; records what it was told. */
class FakePipe implements Pipe {
  written: number[] = [];
  calls: string[] = [];
  constructor(public room = Number.POSITIVE_INFINITY) {}
  write(data: Uint8Array): number {
    const n = Math.min(this.room, data.length);
    this.room -= n;
    this.written.push(...data.subarray(0, n));
    return n;
  }
  pause(): void {
    this.calls.push('pause');
  }
  resume(): void {
    this.calls.push('resume');
  }
  shutdown(): void {
    this.calls.push('shutdown');
  }
  end(): void {
    this.calls.push('end');
  }
  terminate(): void {
    this.calls.push('terminate');
  }
}

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('Outbox', () => {
  test('before the target is attached bytes wait; on attach the header goes first, then them in order', () => {
    const source = new FakePipe();
    const target = new FakePipe();
    const box = new Outbox(source, 1024, () => undefined);
    box.push(bytes(1, 2));
    box.push(bytes(3));
    expect(box.backlog).toBe(3);
    box.attach(target, bytes(0xaa, 0xbb));
    expect(target.written).toEqual([0xaa, 0xbb, 1, 2, 3]);
    expect(box.backlog).toBe(0);
    box.push(bytes(4));
    expect(target.written.at(-1)).toBe(4);
  });

  test('waiting bytes past highWater pause the source; draining to half resumes it; nothing reordered', () => {
    const source = new FakePipe();
    const target = new FakePipe(3);
    const box = new Outbox(source, 8, () => undefined);
    box.attach(target);
    box.push(bytes(1, 2, 3, 4, 5)); // 3 taken, 2 wait
    expect(source.calls).toEqual([]);
    box.push(bytes(6, 7, 8, 9, 10, 11)); // 8 wait: at highWater
    expect(source.calls).toEqual(['pause']);
    expect(box.backlog).toBe(8);
    target.room = 3;
    box.flush(); // 5 wait: above half
    expect(source.calls).toEqual(['pause']);
    target.room = 100;
    box.flush();
    expect(source.calls).toEqual(['pause', 'resume']);
    expect(target.written).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  test('before attach, past highWater the source is paused too (bounded early buffering)', () => {
    const source = new FakePipe();
    const box = new Outbox(source, 4, () => undefined);
    box.push(bytes(1, 2, 3));
    expect(source.calls).toEqual([]);
    box.push(bytes(4, 5));
    expect(source.calls).toEqual(['pause']);
    const target = new FakePipe();
    box.attach(target);
    expect(source.calls).toEqual(['pause', 'resume']);
    expect(target.written).toEqual([1, 2, 3, 4, 5]);
  });

  test('finish waits for the backlog: shutdown (FIN) after the last byte; a later push is ignored', () => {
    const source = new FakePipe();
    const target = new FakePipe(1);
    let done = 0;
    const box = new Outbox(source, 100, () => done++);
    box.attach(target);
    box.push(bytes(1, 2, 3));
    box.finish('shutdown');
    expect(target.calls).toEqual([]);
    target.room = 10;
    box.flush();
    expect(target.calls).toEqual(['shutdown']);
    expect(done).toBe(1);
    box.push(bytes(9));
    expect(target.written).toEqual([1, 2, 3]);
  });

  test("finish('end') closes the target; detach drops the backlog and writes nothing more", () => {
    const target = new FakePipe();
    const box = new Outbox(new FakePipe(), 100, () => undefined);
    box.attach(target);
    box.finish('end');
    expect(target.calls).toEqual(['end']);

    const slow = new FakePipe(0);
    const other = new Outbox(new FakePipe(), 100, () => undefined);
    other.attach(slow);
    other.push(bytes(1, 2));
    other.detach();
    slow.room = 10;
    other.flush();
    expect(slow.written).toEqual([]);
    expect(other.backlog).toBe(0);
  });
});
