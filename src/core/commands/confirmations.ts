import { monotonicNow, type Clock } from '../time/monotonic';

/** How long a dangerous request waits for its confirmation. */
export const CONFIRM_WINDOW_MS = 30_000;

/**
 * Requests that need a second word from the same caller within a window (`shutdown`, then
 * `shutdown confirm`). A confirmation is used once; a stale or unknown one confirms nothing.
 * The window is measured on the monotonic clock.
 */
export class Confirmations {
  private readonly pending = new Map<string, number>();

  constructor(
    private readonly windowMs = CONFIRM_WINDOW_MS,
    private readonly now: Clock = monotonicNow,
  ) {}

  request(caller: string): void {
    this.prune();
    this.pending.set(caller, this.now() + this.windowMs);
  }

  /** True once per request, when it came from this caller within the window. */
  confirm(caller: string): boolean {
    const deadline = this.pending.get(caller);
    this.pending.delete(caller);
    return deadline !== undefined && this.now() <= deadline;
  }

  private prune(): void {
    const now = this.now();
    for (const [caller, deadline] of this.pending) if (deadline < now) this.pending.delete(caller);
  }
}
