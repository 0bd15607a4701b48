import { afterCheck, initialHealth, type HealthState, type Thresholds } from './health-state';
import { backendKey, type Backend, type Health } from './model';

/** Resolves true when the backend answered in time; never rejects (a rejection counts as a failure). */
export type HealthProbe = (backend: Backend, timeoutMs: number) => Promise<boolean>;

export interface HealthCheckerOptions {
  /** The backends to watch, asked at every round. */
  backends: () => readonly Backend[];
  probe: HealthProbe;
  intervalMs: number;
  timeoutMs: number;
  thresholds: Thresholds;
  /** Called once per status change, after the new status is in place. */
  onChange: (backend: Backend, oldStatus: Health, newStatus: Health) => void;
}

/**
 * Active health checks: every `intervalMs` each current backend is probed once (a backend
 * whose previous probe is still running is skipped, so a slow backend never piles up probes).
 * State is kept per host:port; a backend that leaves the list loses its state, so a proxy
 * that later comes back on the same port starts healthy like any new one.
 */
export class HealthChecker {
  private readonly states = new Map<string, HealthState>();
  private readonly inFlight = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(private readonly options: HealthCheckerOptions) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.checkNow(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Healthy unless checks said otherwise; unknown backends are healthy (they start so). */
  statusOf(backend: Pick<Backend, 'host' | 'port'>): Health {
    return this.states.get(backendKey(backend))?.status ?? 'healthy';
  }

  /** One round of checks; resolves when every probe it started has settled. */
  async checkNow(): Promise<void> {
    if (this.stopped) return;
    const backends = this.options.backends();
    const current = new Set(backends.map(backendKey));
    for (const key of this.states.keys()) if (!current.has(key)) this.states.delete(key);
    await Promise.all(backends.map((backend) => this.checkOne(backend)));
  }

  private async checkOne(backend: Backend): Promise<void> {
    const key = backendKey(backend);
    if (this.inFlight.has(key)) return;
    this.inFlight.add(key);
    if (!this.states.has(key)) this.states.set(key, initialHealth());
    let passed: boolean;
    try {
      passed = await this.options.probe(backend, this.options.timeoutMs);
    } catch {
      passed = false;
    } finally {
      this.inFlight.delete(key);
    }
    const state = this.states.get(key);
    // Stopped meanwhile, or the backend left the list while its probe ran: the result is stale.
    if (this.stopped || !state) return;
    const next = afterCheck(state, passed, this.options.thresholds);
    this.states.set(key, next.state);
    if (next.changed) this.options.onChange(backend, state.status, next.state.status);
  }
}
