import { Tickets } from '../../core/auth/tickets';
import type { Clock } from '../../core/time/monotonic';

export { TICKET_TTL_MS, MAX_TICKETS_PER_OWNER as MAX_TICKETS_PER_SESSION } from '../../core/auth/tickets';

/**
 * The dashboard sessions' `wt_` tickets (GET /api/auth/ws-ticket): each stands for the session
 * (by its token's hash) that minted it, for 30 seconds, single use (core's Tickets).
 */
export class TicketBook {
  private readonly book: Tickets<string>;

  /** `now` is the wall clock, `monotonic` the one tickets age on; a test faking `now` alone drives both. */
  constructor(now?: Clock, monotonic?: Clock) {
    this.book = new Tickets<string>(now, monotonic);
  }

  mint(tokenHash: string): { ticket: string; expiresAt: number } {
    return this.book.mint(tokenHash, tokenHash);
  }

  /** The token hash of the session behind the ticket; null when unknown, spent or too old. Spends it. */
  redeem(ticket: string): string | null {
    return this.book.redeem(ticket);
  }

  sweep(): void {
    this.book.sweep();
  }
}
