import { describe, expect, test } from 'bun:test';
import { MAX_TICKETS_PER_OWNER, TICKET_TTL_MS, Tickets } from '../../../src/core/auth/tickets';

describe('Tickets', () => {
  test('a ticket stands for its value once, for 30 s on the monotonic clock', () => {
    let mono = 1_000;
    const book = new Tickets<string>(() => 5_000_000, () => mono);
    const { ticket, expiresAt } = book.mint('owner', 'value');
    expect(ticket.startsWith('wt_')).toBe(true);
    expect(expiresAt).toBe(5_000_000 + TICKET_TTL_MS);
    expect(book.redeem(ticket)).toBe('value');
    expect(book.redeem(ticket)).toBeNull();
    const late = book.mint('owner', 'late').ticket;
    mono += TICKET_TTL_MS;
    expect(book.redeem(late)).toBeNull();
  });

  test('an owner holds at most 16 open tickets: the oldest goes first; other owners keep theirs', () => {
    const book = new Tickets<number>();
    const other = book.mint('other', -1).ticket;
    const mine = Array.from({ length: MAX_TICKETS_PER_OWNER + 1 }, (_, i) => book.mint('me', i).ticket);
    expect(book.redeem(mine[0]!)).toBeNull();
    expect(book.redeem(mine[1]!)).toBe(1);
    expect(book.redeem(mine[MAX_TICKETS_PER_OWNER]!)).toBe(MAX_TICKETS_PER_OWNER);
    expect(book.redeem(other)).toBe(-1);
  });
});
