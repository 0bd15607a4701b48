import { monotonicNow, SlidingWindow } from './sliding-window';

const WINDOW_MS = 60_000;

/**
 * Failed login attempts per client address over a sliding 60 s: beyond the limit, consume
 * calls are refused before any look-up until old failures age out. Only time clears a failure:
 * a success does not (else one's own good login, with a second account, would buy unlimited
 * guesses at other people's codes). Counted on the monotonic clock.
 */
export class FailureWindow {
  private readonly window: SlidingWindow;

  constructor(limit: number, now: () => number = monotonicNow) {
    this.window = new SlidingWindow(limit, WINDOW_MS, now);
  }

  /** Seconds until this address may try again; 0 when it may now (always 0 when the cap is off). */
  blockedFor(ip: string): number {
    return this.window.blockedFor(ip);
  }

  fail(ip: string): void {
    this.window.hit(ip);
  }

  sweep(): void {
    this.window.sweep();
  }
}
