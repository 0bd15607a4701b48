import { DEFAULT_RESTART_TIMING, type RestartPolicy } from '../supervisor/restart-policy';

/*
 * How long the service manager waits for what: read by the units next to it (stops, restarts,
 * the stale check, process watch). Its own file so those units share it without importing the
 * manager they are part of.
 */

export interface ManagerTiming {
  /** `stop` on stdin, then this long before a kill (spec: 30 s). */
  stopTimeoutMs: number;
  /** Replaces each kind's ready timeout (180 s, 240 s modded) when set (tests). */
  readyTimeoutMs?: number;
  /** How often a draining service's player count is checked. */
  drainPollMs: number;
  restart: Omit<RestartPolicy, 'restartOnCrash' | 'maxRestarts'>;
  /**
   * A READY service whose SDK reported a player count once and then fell silent this long is
   * hung: it is killed and counts as crashed (`service_stale_timeout`; 0 = never).
   */
  staleTimeoutMs: number;
  /** How often the stale check runs. */
  staleCheckMs: number;
  /** After a SIGKILL (or a remote node's kill), how long the exit may take before the stop counts as failed. */
  killTimeoutMs: number;
}

export const DEFAULT_MANAGER_TIMING: ManagerTiming = {
  stopTimeoutMs: 30_000,
  drainPollMs: 1_000,
  restart: DEFAULT_RESTART_TIMING,
  staleTimeoutMs: 300_000,
  staleCheckMs: 10_000,
  killTimeoutMs: 10_000,
};
