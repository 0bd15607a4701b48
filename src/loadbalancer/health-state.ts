import type { Health } from './model';

/**
 * The health of one backend, driven by active checks only:
 *
 *            unhealthy_threshold consecutive failures
 *   healthy ─────────────────────────────────────────▶ unhealthy
 *      ▲                                                  │
 *      └──────────────────────────────────────────────────┘
 *            healthy_threshold consecutive successes
 *
 * A new backend starts healthy (a proxy the registry calls READY has just proved itself).
 * A result of the other kind resets the streak, so flapping never crosses a threshold.
 */
export interface HealthState {
  status: Health;
  /** Consecutive passed checks (0 after a failure). */
  successes: number;
  /** Consecutive failed checks (0 after a success). */
  failures: number;
}

export interface Thresholds {
  unhealthy: number;
  healthy: number;
}

export function initialHealth(): HealthState {
  return { status: 'healthy', successes: 0, failures: 0 };
}

/** The state after one check; pure. `changed` says whether `status` moved. */
export function afterCheck(state: HealthState, passed: boolean, thresholds: Thresholds): { state: HealthState; changed: boolean } {
  if (passed) {
    const successes = state.successes + 1;
    if (state.status === 'unhealthy' && successes >= thresholds.healthy) return { state: { status: 'healthy', successes: 0, failures: 0 }, changed: true };
    return { state: { status: state.status, successes, failures: 0 }, changed: false };
  }
  const failures = state.failures + 1;
  if (state.status === 'healthy' && failures >= thresholds.unhealthy) return { state: { status: 'unhealthy', successes: 0, failures: 0 }, changed: true };
  return { state: { status: state.status, successes: 0, failures }, changed: false };
}
