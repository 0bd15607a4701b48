/**
 * Each stress route (start, ramp, stop) allows 5 requests a minute per client address (the
 * spec's limit), kept by the controller as one token bucket per route: 5 at most, one back every
 * 12 s (src/http/rate-limit.ts). The page keeps the same buckets for its own requests that
 * counted (any answer but a 400: the server takes the token after validating the body) in
 * sessionStorage, so a reload still knows. A 429 (another tab, another operator behind the same
 * address) names when the next token comes back: the bucket is set to that.
 */
export const STRESS_LIMIT = 5;
const REFILL_MS = 60_000 / STRESS_LIMIT;

export type StressAction = 'start' | 'ramp' | 'stop';

interface Bucket {
  tokens: number;
  at: number;
}

const store = (action: StressAction) => `svc.stress.bucket.${action}`;

function read(action: StressAction, now: number): Bucket {
  try {
    const raw = JSON.parse(sessionStorage.getItem(store(action)) ?? 'null') as Partial<Bucket> | null;
    if (typeof raw?.tokens === 'number' && typeof raw.at === 'number') return { tokens: raw.tokens, at: raw.at };
  } catch {
    /* a broken entry is a full bucket */
  }
  return { tokens: STRESS_LIMIT, at: now };
}

/** Tokens now: the stored ones plus what came back since, at most the limit. */
function balance(action: StressAction, now: number): number {
  const bucket = read(action, now);
  return Math.min(STRESS_LIMIT, bucket.tokens + Math.max(0, now - bucket.at) / REFILL_MS);
}

function write(action: StressAction, tokens: number, now: number): void {
  sessionStorage.setItem(store(action), JSON.stringify({ tokens, at: now }));
}

export function recordSend(action: StressAction, now = Date.now()): void {
  write(action, Math.max(0, balance(action, now) - 1), now);
}

/** A 429 naming `retryAfterSeconds`: one token is back by then. */
export function recordRefusal(action: StressAction, retryAfterSeconds: number, now = Date.now()): void {
  write(action, 1 - (retryAfterSeconds * 1000) / REFILL_MS, now);
}

export interface Budget {
  /** Requests available now. */
  left: number;
  /** When none is: seconds until the next. */
  freeInSeconds: number;
  /** Below the limit: the page ticks to show tokens coming back. */
  refilling: boolean;
}

export function budget(action: StressAction, now = Date.now()): Budget {
  const tokens = balance(action, now);
  const left = Math.floor(tokens);
  return { left, freeInSeconds: left > 0 ? 0 : Math.max(1, Math.ceil(((1 - tokens) * REFILL_MS) / 1000)), refilling: tokens < STRESS_LIMIT };
}
