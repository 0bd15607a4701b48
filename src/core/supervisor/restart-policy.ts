/**
 * What to do when a service crashes: a pure decision from the group's policy and the crash
 * history, so every rule is table-tested without a process.
 *
 *   the group is quarantined already ──────────────► no-restart (the crash still counts)
 *   too many crashes of the group in the window ────► quarantine (crash-loop breaker)
 *   restartOnCrash off ─────────────────────────────► no-restart
 *   restarts used up (attempt > maxRestarts) ───────► no-restart
 *   the first restart ──────────────────────────────► restart at once
 *   otherwise ──────────────────────────────────────► restart after an exponential backoff
 *
 * The breaker comes before `restartOnCrash`: a group that is not restarted on a crash is still
 * started again by its `minInstances` refill (and by the warm pool and scaling), so a crash loop
 * is counted whoever starts the next instance. A quarantine holds until an operator lifts it;
 * every start path refuses the group meanwhile.
 *
 * The first restart is immediate, as pm2 and systemd do it: one crash of a server that was
 * fine is an accident, and its players are waiting. A second crash in a row means something
 * is wrong, and from there the delay starts at `baseDelayMs` and doubles.
 *
 * A service that stayed READY for `stableAfterMs` earns a fresh budget: its next crash counts
 * as the first again.
 *
 * Times are milliseconds on a monotonic clock (`performance.now()`): a wall-clock step neither
 * trips the breaker nor forgets crashes. Wall time is only for what people read (the record of
 * a quarantine, kept elsewhere).
 */
export interface RestartPolicy {
  restartOnCrash: boolean;
  maxRestarts: number;
  /** Delay before the second restart (the first is immediate); doubled for each further attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Crash-loop breaker: this many crashes of one group within `loopWindowMs` quarantine it. */
  loopThreshold: number;
  loopWindowMs: number;
  /** READY for at least this long resets the restart count. */
  stableAfterMs: number;
}

export const DEFAULT_RESTART_TIMING = {
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  loopThreshold: 10,
  loopWindowMs: 5 * 60_000,
  stableAfterMs: 10 * 60_000,
} as const;

export interface CrashFacts {
  /** Restarts this service line has had so far (0 for the original start). */
  restartCount: number;
  /** How long the crashed process was READY (0 when it never became READY). */
  readyForMs: number;
  /** Crash times (monotonic ms) of the whole group, this crash included. */
  groupCrashTimes: readonly number[];
  /** Monotonic ms, on the clock of `groupCrashTimes`. */
  now: number;
  /** The group (or dedicated service) is quarantined already: nothing restarts it. */
  quarantined?: boolean;
}

export type RestartDecision =
  | { kind: 'restart'; attempt: number; delayMs: number }
  | { kind: 'no-restart'; reason: string }
  | { kind: 'quarantine'; reason: string; crashes: number };

/** The crash times still inside the breaker's window at `now` (what a caller keeps between crashes). */
export function crashesInWindow(times: readonly number[], now: number, windowMs: number): number[] {
  return times.filter((t) => t <= now && now - t <= windowMs);
}

export function decideRestart(policy: RestartPolicy, facts: CrashFacts): RestartDecision {
  if (facts.quarantined) return { kind: 'no-restart', reason: 'the group is quarantined' };
  const recent = crashesInWindow(facts.groupCrashTimes, facts.now, policy.loopWindowMs).length;
  if (recent >= policy.loopThreshold) {
    return { kind: 'quarantine', reason: `crash loop: ${recent} crashes within ${windowWords(policy.loopWindowMs)}`, crashes: recent };
  }
  if (!policy.restartOnCrash) return { kind: 'no-restart', reason: 'restartOnCrash is off' };
  const previous = facts.readyForMs >= policy.stableAfterMs ? 0 : facts.restartCount;
  const attempt = previous + 1;
  if (attempt > policy.maxRestarts) return { kind: 'no-restart', reason: `gave up after ${policy.maxRestarts} restarts` };
  const delayMs = attempt === 1 ? 0 : Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 2));
  return { kind: 'restart', attempt, delayMs };
}

/** `5 min`, `90 s`: the window as the reason says it. */
function windowWords(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}
