import type { ManagerTiming } from '../core/services/manager-timing';
import type { ScalingTiming } from '../core/scaling/engine';
import type { WarmPoolTiming } from '../core/scaling/warm-pool';
import type { StaleHolder } from '../core/lock/dir-lock';
import type { ClusterTiming } from '../cluster/cluster';
import type { ModuleEntry } from '../modules/module';
import type { HeartbeatTiming } from '../ws/heartbeat';

/** How main.ts (or a test) starts a controller. */
export interface ControllerOptions {
  /** Supervisor timings (tests shorten the 30 s stop timeout and the restart backoff). */
  timing?: Partial<ManagerTiming>;
  /** Working directory (svc.toml, config/, data/, templates/, services/, logs/). */
  dir: string;
  /** svc.toml location; default `<dir>/svc.toml`. */
  configPath?: string;
  env?: Record<string, string | undefined>;
  /** Where log lines go (default stdout). */
  stdout?: { write(line: string): unknown };
  /** Whether `stdout` ends on a terminal (colours); by default only process.stdout is asked. */
  stdoutIsTerminal?: boolean;
  /** Called after a requested shutdown has stopped everything (default process.exit). */
  exit?: (code: number) => void;
  heartbeat?: HeartbeatTiming;
  modules?: readonly ModuleEntry[];
  /** Replaces the stop-and-exit of POST /api/shutdown (tests that must keep serving). */
  onShutdownRequest?: (reason: string) => void;
  /** Scaling and warm-pool timings (tests shorten the tick, the cooldowns and the pool interval). */
  scaling?: Partial<ScalingTiming> & { warmPool?: Partial<WarmPoolTiming>; /** The scaling engine's clock, which smart scaling reads too (tests walk a week in minutes). */ now?: () => number };
  /** Cluster timings (tests shorten the heartbeat, the node timeout and the reconciliation delay). */
  cluster?: Partial<ClusterTiming>;
  /**
   * After an update installed a new binary and the controller stopped without stopping its
   * services: start that binary in this process's place (main.ts execs it). Default: exit 75,
   * for a service manager to start the new binary.
   */
  restartInPlace?: (reason: string) => void;
  /** The release feed's fetch (tests); default the global fetch. */
  updateFetch?: typeof fetch;
  /** The working directory's lock main.ts took (its file, and the holder before it when that one did not stop cleanly), for the start banner. */
  lock?: { file: string; stale: StaleHolder | null };
  /** Set when this process is the controller restarted in place (why: an update, SIGUSR2, `svc restart`). */
  restartedInPlace?: string;
}
