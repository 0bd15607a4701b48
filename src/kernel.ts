import type { Database } from 'bun:sqlite';
import type { Config } from './config/schema';
import type { AuditStore } from './core/audit/store';
import type { MetricsRegistry } from './core/metrics/registry';
import type { EventBus } from './events/bus';
import type { Actor } from './events/catalogue';
import type { Authenticator } from './http/auth';
import type { Logger } from './log';
import type { ModuleRegistry } from './modules/registry';

/**
 * What the composition root hands to routes, core services and modules. Parts take the
 * pieces they need from here; none of them reaches for globals.
 */
export interface Kernel {
  readonly version: string;
  readonly startedAt: Date;
  /** Working directory: svc.toml, config/, data/, templates/, services/, logs/. */
  readonly dir: string;
  readonly configPath: string;
  /** Live config; only the hot keys (network.name, console.*) change while running. */
  readonly config: Config;
  readonly log: Logger;
  readonly db: Database;
  readonly bus: EventBus;
  readonly audit: AuditStore;
  readonly auth: Authenticator;
  readonly metrics: MetricsRegistry;
  readonly modules: ModuleRegistry;
  /** Services the controller knows of; the supervisor feeds it. */
  serviceCount(): number;
  /** Stops the controller after the 250 ms the spec grants the 202 to leave. */
  requestShutdown(reason: string, actor: Actor): void;
}
