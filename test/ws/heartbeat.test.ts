/** The socket heartbeat on a fake monotonic clock, and against a wall clock that steps. */
import { describe, expect, spyOn, test } from 'bun:test';
import { Heartbeat } from '../../src/ws/heartbeat';

function socket() {
  const s = { pings: 0, terminated: false, ping: () => void s.pings++, terminate: () => void (s.terminated = true) };
  return s;
}

describe('Heartbeat', () => {
  test('pings each round; a socket silent for more than timeoutMs is terminated, one that answers is kept', () => {
    let now = 5_000;
    const heartbeat = new Heartbeat({ intervalMs: 15_000, timeoutMs: 30_000 }, () => now);
    const quiet = socket();
    const chatty = socket();
    heartbeat.track('quiet', quiet);
    heartbeat.track('chatty', chatty);
    try {
      for (let round = 1; round <= 2; round++) {
        now += 15_000;
        heartbeat.alive('chatty');
        heartbeat.tick();
      }
      expect(quiet).toMatchObject({ pings: 2, terminated: false });
      now += 1;
      heartbeat.tick();
      expect(quiet.terminated).toBe(true);
      expect(chatty).toMatchObject({ pings: 3, terminated: false });
    } finally {
      heartbeat.stop();
    }
  });

  test('the default clock is monotonic: a wall-clock step of +2 min drops nobody', () => {
    const heartbeat = new Heartbeat({ intervalMs: 15_000, timeoutMs: 30_000 });
    const peer = socket();
    const wall = spyOn(Date, 'now');
    try {
      heartbeat.track('peer', peer);
      wall.mockReturnValue(Date.now() + 120_000);
      heartbeat.tick();
      wall.mockReturnValue(Date.now() + 3_600_000);
      heartbeat.tick();
      expect(peer).toMatchObject({ pings: 2, terminated: false });
    } finally {
      wall.mockRestore();
      heartbeat.stop();
    }
  });
});
