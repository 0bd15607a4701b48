import { describe, expect, test } from 'bun:test';
import { SocketRounds } from '../../src/ws/socket-rounds';
import { waitFor } from '../support/controller';

describe('SocketRounds', () => {
  test('the timer starts with the first socket, runs rounds, and stops with the last', async () => {
    let rounds = 0;
    const watch = new SocketRounds<string>(5, () => rounds++);
    expect(watch.running).toBe(false);
    watch.add('a', 'A');
    watch.add('b', 'B');
    expect(watch.running).toBe(true);
    await waitFor(() => rounds >= 2, { what: 'two rounds' });
    watch.delete('a');
    expect(watch.running).toBe(true);
    expect([...watch.entries]).toEqual([['b', 'B']]);
    watch.delete('b');
    expect(watch.running).toBe(false);
    const after = rounds;
    watch.add('c', 'C');
    expect(watch.running).toBe(true);
    watch.stop();
    expect(watch.running).toBe(false);
    expect(rounds).toBeGreaterThanOrEqual(after);
  });
});
