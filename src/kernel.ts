import type { Database } from 'bun:sqlite';
import type { Config } from './config/schema';
import type { AuditStore } from './core/audit/store';
import type { GroupStore } from './core/groups/store';
import type { DedicatedStore } from './core/dedicated/store';
import type { ServiceRegistry } from './core/services/registry';
import type { ServiceManager } from './core/services/manager';
import type { ServiceHistory } from './core/metrics/service-history';
import type { DashboardMetrics } from './core/metrics/dashboard-metrics';
import type { StateSync } from './cluster/state-sync/store';
import type { Maintenance } from './core/maintenance/maintenance';
import type { StressTest } from './core/stress/stress-test';
import type { ScalingEngine } from './core/scaling/engine';
import type { WarmPool } from './core/scaling/warm-pool';
import type { PlayerTracker } from './core/players/tracker';
import type { ProxySettings } from './core/proxy/proxy-settings';
import type { NetworkActions } from './core/proxy/network-actions';
import type { CommandRegistry } from './core/commands/registry';
import type { Modpacks } from './core/modpacks/modpacks';
import type { TokenSource } from './config/token-source';
import type { Paths } from './config/paths';
import type { MetricsRegistry } from './core/metrics/registry';
import type { EventBus } from './events/bus';
import type { Actor } from './events/catalogue';
import type { Authenticator } from './core/auth';
import type { Logger } from './log';
import type { ModuleHost } from './core/module-host';
import type { LoadBalancer } from './loadbalancer/load-balancer';
import type { ClusterRuntime } from './cluster/runtime';
import type { SelfUpdates } from './core/update/self-updates';
import type { ProxyUpdates } from './core/proxy/updates/updater';
import type { Isolation } from './core/isolation/resolve';

export type { Paths } from './config/paths';

/**
 * What the composition root hands to routes, core services and modules. Parts take the
 * pieces they need from here; none of them reaches for globals.
 */
export interface Kernel {
  readonly version: string;
  readonly startedAt: Date;
  /** The same start on the monotonic clock (core/time/monotonic): uptime is measured from it. */
  readonly startedMono: number;
  /** Working directory: svc.toml, config/, data/, templates/, services/, logs/. */
  readonly dir: string;
  readonly configPath: string;
  /** Absolute folders: data/, config/, logs/, templates/, services/, dedicated/. */
  readonly paths: Paths;
  /** Live config; only the hot keys (network.name, console.*) change while running. */
  readonly config: Config;
  readonly log: Logger;
  readonly db: Database;
  readonly bus: EventBus;
  readonly audit: AuditStore;
  readonly auth: Authenticator;
  readonly metrics: MetricsRegistry;
  readonly modules: ModuleHost;
  /** The groups, from config/groups/. */
  readonly groups: GroupStore;
  /** The dedicated services' configs, from config/dedicated/; their directories live under paths.dedicated. */
  readonly dedicated: DedicatedStore;
  /** Every service the controller knows; the supervisor keeps it. */
  readonly services: ServiceRegistry;
  /** Starts, stops and looks after the services of this machine. */
  readonly manager: ServiceManager;
  /** Memory and player samples of the services, for the metrics history. */
  readonly history: ServiceHistory;
  /** The network's player history, and the crashes, startups and uptime behind the performance summary. */
  readonly dashboardMetrics: DashboardMetrics;
  /** Canonical state copies of STATIC services with sync enabled (`<services>/state/<name>`): manifests, files, pushes. */
  readonly stateSync: StateSync;
  /** Tab list, MOTD, chat and per-player tab names the proxy bridge shows. */
  readonly proxySettings: ProxySettings;
  /** Global and per-group maintenance and its whitelist. */
  readonly maintenance: Maintenance;
  /** The simulated player load on one backend group (admin stress tests); scaling pauses while it is active. */
  readonly stress: StressTest;
  /** How many instances each group runs: minimum refill, scale up/down, stop-on-empty. */
  readonly scaling: ScalingEngine;
  /** Instances booted ahead of need, per group (`scaling.warm_pool_size`). */
  readonly warmPool: WarmPool;
  /** Who is online where (the bridge's events) and the player counts they move. */
  readonly players: PlayerTracker;
  /** Send, kick and broadcast through the proxies and backends. */
  readonly network: NetworkActions;
  /** Every console command: the local console, /api/commands and the multiplex socket run these. */
  readonly commands: CommandRegistry;
  /** Modpack look-ups and imports (into groups and dedicated services), chunked uploads, import jobs. */
  readonly modpacks: Modpacks;
  /** Agents, placement and the agent channel; null unless `[cluster] enabled`. */
  readonly cluster: ClusterRuntime | null;
  /** The update check, `svc update` / POST /api/controller/update jobs and `[controller] auto_update`. */
  readonly updates: SelfUpdates;
  /** Where the master token came from (its value is config.api.token). */
  readonly apiToken: { source: TokenSource; file?: string };
  /** How the services of this machine are isolated ([services] isolation), resolved once at start. */
  readonly isolation: Isolation;
  /** The TCP load balancer in front of the proxies; set once after the API listens, only when `[loadbalancer] enabled` and its port was bound. */
  loadBalancer?: LoadBalancer;
  /** Keeps the proxy software of proxy groups and dedicated proxies current (`[proxy]`, `proxy update`); set once at start, right after the proxy sync. */
  proxyUpdates?: ProxyUpdates;
  /** Audits the request, then stops the controller after the 250 ms the spec grants the 202 to leave. */
  requestShutdown(reason: string, actor: Actor): void;
}
