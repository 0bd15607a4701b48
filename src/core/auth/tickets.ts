import { randomBytes } from 'node:crypto';
import { monotonicNow, type Clock } from '../time/monotonic';
import { TICKET_PREFIX } from './secrets';

export const TICKET_TTL_MS = 30_000;
/** More open tickets than this and a sweep runs before the next is minted. */
const SWEEP_AT = 128;
/** Open tickets one owner may hold; minting another drops its oldest (a page opens three sockets). */
export const MAX_TICKETS_PER_OWNER = 16;

/**
 * Single-use `wt_` tickets for WebSockets: a browser cannot set headers on a socket, and a
 * token in a URL ends up in logs. A ticket stands for `value` (who minted it) for 30 seconds,
 * and is spent by its first use (memory only; a restart voids open tickets). The 30 seconds
 * are measured on the monotonic clock; the expiry handed out is wall-clock, for people. The
 * auth module keeps one book for dashboard sessions; the authenticator one for API tokens.
 */
export class Tickets<T> {
  /** `expiresAt` in monotonic ms. */
  private readonly open = new Map<string, { owner: string; value: T; expiresAt: number }>();
  private readonly now: Clock;
  private readonly mono: Clock;

  /** `now` is the wall clock, `monotonic` the one tickets age on; a test faking `now` alone drives both. */
  constructor(now?: Clock, monotonic?: Clock) {
    this.now = now ?? Date.now;
    this.mono = monotonic ?? now ?? monotonicNow;
  }

  /** A ticket for `value`; `owner` keys the per-owner limit. */
  mint(owner: string, value: T): { ticket: string; expiresAt: number } {
    if (this.open.size >= SWEEP_AT) this.sweep();
    const mine = [...this.open].filter(([, entry]) => entry.owner === owner);
    // Map order is insertion order: the first are the oldest.
    for (const [old] of mine.slice(0, Math.max(0, mine.length - MAX_TICKETS_PER_OWNER + 1))) this.open.delete(old);
    const ticket = `${TICKET_PREFIX}${randomBytes(24).toString('base64url')}`;
    this.open.set(ticket, { owner, value, expiresAt: this.mono() + TICKET_TTL_MS });
    return { ticket, expiresAt: this.now() + TICKET_TTL_MS };
  }

  /** What the ticket stands for; null when unknown, spent or too old. Spends it. */
  redeem(ticket: string): T | null {
    const entry = this.open.get(ticket);
    if (!entry) return null;
    this.open.delete(ticket);
    return entry.expiresAt > this.mono() ? entry.value : null;
  }

  sweep(): void {
    const now = this.mono();
    for (const [ticket, entry] of this.open) if (entry.expiresAt <= now) this.open.delete(ticket);
  }
}
