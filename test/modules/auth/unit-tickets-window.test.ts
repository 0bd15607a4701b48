/** The in-memory pieces on a fake clock: WebSocket tickets, the per-address failure window and the sliding windows under it. */
import { describe, expect, test } from 'bun:test';
import { FailureWindow } from '../../../src/modules/auth/failure-window';
import { SlidingWindow } from '../../../src/modules/auth/sliding-window';
import { MAX_TICKETS_PER_SESSION, TICKET_TTL_MS, TicketBook } from '../../../src/modules/auth/tickets';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TicketBook', () => {
  test('a ticket is wt_-prefixed, stands for its session, and is spent by its first use', () => {
    const time = clock();
    const book = new TicketBook(time.now);
    const { ticket, expiresAt } = book.mint('hash-a');
    expect(ticket).toMatch(/^wt_[A-Za-z0-9_-]{32}$/);
    expect(expiresAt).toBe(time.now() + TICKET_TTL_MS);
    expect(book.redeem(ticket)).toBe('hash-a');
    expect(book.redeem(ticket)).toBeNull();
    expect(book.redeem('wt_unknown')).toBeNull();
  });

  test('expires at 30 s: a millisecond before it works, at it it does not', () => {
    const time = clock();
    const book = new TicketBook(time.now);
    const early = book.mint('hash-a').ticket;
    const late = book.mint('hash-a').ticket;
    time.advance(TICKET_TTL_MS - 1);
    expect(book.redeem(early)).toBe('hash-a');
    time.advance(1);
    expect(book.redeem(late)).toBeNull();
  });

  test(`one session holds at most ${MAX_TICKETS_PER_SESSION} open tickets: minting more drops its oldest, not another session's`, () => {
    const book = new TicketBook(clock().now);
    const other = book.mint('hash-b').ticket;
    const mine = Array.from({ length: MAX_TICKETS_PER_SESSION + 2 }, () => book.mint('hash-a').ticket);
    expect(book.redeem(mine[0]!)).toBeNull();
    expect(book.redeem(mine[1]!)).toBeNull();
    for (const ticket of mine.slice(2)) expect(book.redeem(ticket)).toBe('hash-a');
    expect(book.redeem(other)).toBe('hash-b');
  });
});

describe('FailureWindow', () => {
  test('the limit-th failure blocks the address until the oldest failure is 60 s old; others are unaffected', () => {
    const time = clock();
    const window = new FailureWindow(3, time.now);
    window.fail('10.0.0.1');
    time.advance(10_000);
    window.fail('10.0.0.1');
    expect(window.blockedFor('10.0.0.1')).toBe(0);
    window.fail('10.0.0.1');
    expect(window.blockedFor('10.0.0.1')).toBe(50);
    expect(window.blockedFor('10.0.0.2')).toBe(0);
    time.advance(49_999);
    expect(window.blockedFor('10.0.0.1')).toBe(1);
    time.advance(1);
    expect(window.blockedFor('10.0.0.1')).toBe(0);
  });

  test('only time clears a failure (no success resets it); a limit of 0 never blocks', () => {
    const time = clock();
    const window = new FailureWindow(2, time.now);
    window.fail('a');
    expect('succeed' in window).toBe(false);
    time.advance(30_000);
    window.fail('a');
    expect(window.blockedFor('a')).toBe(30);
    time.advance(30_000);
    expect(window.blockedFor('a')).toBe(0);
    const off = new FailureWindow(0, time.now);
    for (let i = 0; i < 100; i++) off.fail('a');
    expect(off.blockedFor('a')).toBe(0);
  });

  test('counts on the monotonic clock by default: a wall-clock step neither frees nor locks an address', () => {
    const realNow = Date.now;
    const window = new FailureWindow(2);
    try {
      window.fail('10.0.0.9');
      window.fail('10.0.0.9');
      expect(window.blockedFor('10.0.0.9')).toBeGreaterThan(0);
      // The clock jumps an hour ahead (NTP, a resumed VM): the failures are still recent.
      Date.now = () => realNow() + 3_600_000;
      expect(window.blockedFor('10.0.0.9')).toBeGreaterThan(0);
      // ... and an hour back: nothing becomes "newer" than it is.
      Date.now = () => realNow() - 3_600_000;
      expect(window.blockedFor('10.0.0.9')).toBeLessThanOrEqual(60);
      expect(window.blockedFor('10.0.0.8')).toBe(0);
    } finally {
      Date.now = realNow;
    }
  });
});

describe('SlidingWindow', () => {
  test('take spends a hit only when there is room and says how long to wait otherwise', () => {
    const time = clock();
    const window = new SlidingWindow(2, 10_000, time.now);
    expect(window.take('k')).toBe(0);
    time.advance(4_000);
    expect(window.take('k')).toBe(0);
    expect(window.take('k')).toBe(6);
    expect(window.take('other')).toBe(0);
    time.advance(6_000);
    expect(window.take('k')).toBe(0);
    expect(window.take('k')).toBe(4);
  });

  test('keys with nothing in the window are forgotten by the sweep', () => {
    const time = clock();
    const window = new SlidingWindow(3, 1_000, time.now);
    for (let i = 0; i < 50; i++) window.hit(`ip-${i}`);
    expect(window.size).toBe(50);
    time.advance(1_000);
    window.sweep();
    expect(window.size).toBe(0);
  });
});

describe('ChallengeService issuance limit', () => {
  test('counts a minute of issues even when codes live shorter than a minute', async () => {
    const { Database } = await import('bun:sqlite');
    const { migrate } = await import('../../../src/storage/migrate');
    const { ChallengeService } = await import('../../../src/modules/auth/challenges');
    const { registerErrorCodes } = await import('../../../src/errors');
    const { AUTH_MIGRATIONS } = await import('../../../src/modules/auth/schema');
    registerErrorCodes({});
    const db = new Database(':memory:');
    migrate(db, 'auth', AUTH_MIGRATIONS);
    const time = clock();
    const config = { code_ttl_seconds: 10, code_length: 6, code_alphabet: 'numeric' as const, magic_link_ttl_seconds: 60, magic_link_token_bytes: 32, magic_link_enabled: true, max_generates_per_minute: 5, max_consume_failures_per_minute: 10 };
    const challenges = new ChallengeService(db, config, time.now);
    const alice = { uuid: '11111111-1111-4111-8111-111111111111', name: 'Alice' };
    for (let i = 0; i < 5; i++) {
      challenges.issueCode(alice);
      time.advance(11_000); // each code has expired before the next is asked for
      challenges.sweep();
    }
    expect(() => challenges.issueCode(alice)).toThrow('per minute');
    time.advance(5_000);
    expect(challenges.issueCode(alice).secret).toMatch(/^\d{6}$/);
  });

  test('public links (deliver-magic-link) neither count against nor are held to the in-game limit', async () => {
    const { Database } = await import('bun:sqlite');
    const { migrate } = await import('../../../src/storage/migrate');
    const { ChallengeService } = await import('../../../src/modules/auth/challenges');
    const { AUTH_MIGRATIONS } = await import('../../../src/modules/auth/schema');
    const db = new Database(':memory:');
    migrate(db, 'auth', AUTH_MIGRATIONS);
    const time = clock();
    const config = { code_ttl_seconds: 60, code_length: 6, code_alphabet: 'numeric' as const, magic_link_ttl_seconds: 60, magic_link_token_bytes: 32, magic_link_enabled: true, max_generates_per_minute: 5, max_consume_failures_per_minute: 10 };
    const challenges = new ChallengeService(db, config, time.now);
    const admin = { uuid: '22222222-2222-4222-8222-222222222222', name: 'Admin' };
    for (let i = 0; i < 20; i++) challenges.issueMagicLink(admin, 'public');
    for (let i = 0; i < 5; i++) challenges.issueCode(admin);
    expect(() => challenges.issueMagicLink(admin)).toThrow('per minute');
    // Spent in game, the public path still mints (its own budget is kept by its caller).
    expect(challenges.issueMagicLink(admin, 'public').secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
