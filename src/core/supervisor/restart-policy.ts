/**
 * What to do when a service crashes: a pure decision from the group's policy and the crash
 * history, so every rule is table-tested without a process.
 *
 *   restartOnCrash off ─────────────────────────────► no-restart
 *   too many crashes of the group in the window ────► quarantine (crash-loop breaker)
 *   restarts used up (attempt > maxRestarts) ───────► no-restart
 *   the first restart ──────────────────────────────► restart at once
 *   otherwise ──────────────────────────────────────► restart after an exponential backoff
 *
 * The first restart is immediate, as pm2 and systemd do it: one crash of a server that was
 * fine is an accident, and its players are waiting. A second crash in a row means something
 * is wrong, and from there the delay starts at `baseDelayMs` and doubles.
 *
 * A service that stayed READY for `stableAfterMs` earns a fresh budget: its next crash counts
 * as the first again.
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
  /** Crash times (ms) of the whole group, this crash included. */
  groupCrashTimes: readonly number[];
  now: number;
}

export type RestartDecision =
  | { kind: 'restart'; attempt: number; delayMs: number }
  | { kind: 'no-restart'; reason: string }
  | { kind: 'quarantine'; reason: string };

export function decideRestart(policy: RestartPolicy, facts: CrashFacts): RestartDecision {
  if (!policy.restartOnCrash) return { kind: 'no-restart', reason: 'restartOnCrash is off' };
  const recent = facts.groupCrashTimes.filter((t) => facts.now - t <= policy.loopWindowMs).length;
  if (recent >= policy.loopThreshold) {
    const minutes = Math.round(policy.loopWindowMs / 60_000);
    return { kind: 'quarantine', reason: `crash loop: ${recent} crashes in ${minutes} min; the group is quarantined until an operator clears it` };
  }
  const previous = facts.readyForMs >= policy.stableAfterMs ? 0 : facts.restartCount;
  const attempt = previous + 1;
  if (attempt > policy.maxRestarts) return { kind: 'no-restart', reason: `gave up after ${policy.maxRestarts} restarts` };
  const delayMs = attempt === 1 ? 0 : Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 2));
  return { kind: 'restart', attempt, delayMs };
}
