import { join } from 'node:path';
import { ConfigError } from '../config/load';
import type { Config } from '../config/schema';
import { templateStack } from '../core/groups/model';
import { DedicatedStore } from '../core/dedicated/store';
import { ServiceRegistry } from '../core/services/registry';
import { ServiceManager } from '../core/services/manager';
import { GroupServicePreparer } from '../core/services/preparer';
import { ServiceStateFile } from '../core/services/state-file';
import { logServiceLifecycle } from '../core/services/lifecycle-log';
import { Maintenance } from '../core/maintenance/maintenance';
import { StressTest } from '../core/stress/stress-test';
import { DEFAULT_SCALING_TIMING, ScalingEngine } from '../core/scaling/engine';
import { WarmPool } from '../core/scaling/warm-pool';
import type { MachineLimits } from '../core/scaling/placement';
import { parseMemory } from '../core/software/memory';
import { SoftwareServices } from '../core/software/software-services';
import { deployBack } from '../core/templates/deploy-back';
import { pingServer } from '../core/net/server-list-ping';
import { PlayerTracker } from '../core/players/tracker';
import { NetworkActions } from '../core/proxy/network-actions';
import { ProxySettings } from '../core/proxy/proxy-settings';
import { CommandRegistry } from '../core/commands/registry';
import { registerCoreCommands } from '../core/commands/core';
import { defaultPortRanges, PortLeases } from '../core/ports';
import { registerCoreSeries } from '../core/metrics/core-series';
import { ServiceHistory } from '../core/metrics/service-history';
import { DashboardMetrics } from '../core/metrics/dashboard-metrics';
import { Modpacks } from '../core/modpacks/modpacks';
import { monotonicNow } from '../core/time/monotonic';
import { SelfUpdates } from '../core/update/self-updates';
import { RUNNING_BINARY } from '../core/update/running-binary';
import { ServiceCredentials } from '../core/tenancy/service-credentials';
import { isActiveService } from '../core/tenancy/liveness';
import type { Actor } from '../events/catalogue';
import { SERVER_BODY_CEILING } from '../http/api-handler';
import { StateSync } from '../cluster/state-sync/store';
import { pullState, pushState } from '../cluster/state-sync/client';
import type { ClusterRuntime } from '../cluster/runtime';
import type { Kernel } from '../kernel';
import { ModuleRegistry } from '../modules/registry';
import { BackgroundCheckpointer } from '../storage/checkpointer';
import { startupMark } from '../startup-trace';
import { VERSION } from '../version';
import type { ControllerOptions } from './options';
import { openFoundation } from './foundation';

/** What the kernel's closures ask of the controller, which exists only once the kernel does. */
export interface ControllerHooks {
  /** The API's bound port (0 before it listens); undefined before the controller exists. */
  port(): number | undefined;
  /** The API's address; undefined before the controller exists. */
  url(): string | undefined;
  restartInPlace(reason: string): void;
  requestShutdown(reason: string, actor: Actor): void;
}

/** What the lifecycle runs on: the kernel, and what the controller keeps beside it. */
export interface Built {
  kernel: Kernel;
  /** Upstream version lists, server jars and plugins (their routes, and tests). */
  software: SoftwareServices;
  /** WAL checkpoints of the database, off the event loop; stopped just before it closes. */
  checkpoints: BackgroundCheckpointer;
  /** The modules: core sees them as kernel.modules (a ModuleHost); their routes and stop are the composition root's. */
  modules: ModuleRegistry;
}

/**
 * The composition: the foundation (foundation.ts: config → log → database → bus/audit → auth,
 * metrics, groups → isolation), then services, dedicated, the cluster, scaling → the kernel.
 * Nothing here serves or starts a timer but the cluster server (it must be up before its
 * runtime can be named in the kernel); the lifecycle (parts.ts) starts the rest. Throws
 * ConfigError for operator mistakes, having closed the database it opened.
 */
export async function buildController(options: ControllerOptions, hooks: ControllerHooks): Promise<Built> {
  const { dir, configPath, config, paths, log, master, db, dbPath, bus, audit, auth, metrics, modules, groups, isolated } = await openFoundation(options);

  const services = new ServiceRegistry();
  // Start, ready and stop of every service in the journal and svc.log, with or without a terminal.
  logServiceLifecycle(bus, services, log.child({ area: 'services' }));
  // Each game server's own SVC_API_TOKEN: valid while that service is active, never an operator's token.
  const credentials = new ServiceCredentials(join(paths.data, 'state', 'service-credentials.json'), (name) => isActiveService(services, name), log.child({ area: 'tenancy' }));
  auth.useTenants(credentials);
  // Version lists, server jars (and Forge/NeoForge installs) for starts and plugins, from the upstreams named in [software].
  const software = new SoftwareServices({ config: () => config.software, java: () => config.java, groups, templatesRoot: paths.templates, log: log.child({ area: 'software' }) });
  const preparer = new GroupServicePreparer({
    jars: software.jars,
    templatesRoot: paths.templates,
    dataDir: paths.data,
    java: config.java,
    groups,
    registry: services,
    apiPort: () => hooks.port() ?? config.api.port,
    credentials,
    haproxyProtocol: haproxyProtocol(config),
    env: process.env,
  });
  // Dedicated configs load with the groups (their names must not clash) and start with the preparer's patch and command steps.
  const dedicated = new DedicatedStore({ configDir: join(paths.config, 'dedicated'), root: paths.dedicated, groups, preparer });
  const dedicatedReport = dedicated.load();
  for (const broken of dedicatedReport.broken) log.error(`dedicated config skipped: ${broken.message}`);
  for (const warning of dedicatedReport.warnings) log.warn(warning);
  const limits = (): MachineLimits => ({ maxServices: config.controller.max_services, maxMemoryMb: parseMemory(config.controller.max_memory) });
  // Local static instances share the agents' canonical copies through the same routes, over
  // loopback, with the master token (the cluster token only enrols nodes; an admin may sync
  // any instance).
  const ownApi = () => hooks.url() ?? `http://127.0.0.1:${config.api.port}`;
  const syncToken = () => master.token;
  const localStateSync = {
    pull: async (service: string, dir: string, excludes: readonly string[]) => void (await pullState({ baseUrl: ownApi(), token: syncToken(), service, dir, excludes })),
    push: async (service: string, dir: string, excludes: readonly string[]) => void (await pushState({ baseUrl: ownApi(), token: syncToken(), service, dir, excludes })),
  };
  const manager = new ServiceManager({
    bus,
    log: log.child({ area: 'services' }),
    registry: services,
    groups,
    ports: new PortLeases(defaultPortRanges(config.controller.backend_port_start, config.bedrock.base_port, config.loadbalancer.enabled)),
    servicesDir: paths.services,
    preparer,
    dedicated,
    launcher: isolated.launcher,
    stateFile: new ServiceStateFile(join(paths.data, 'state', 'services.json')),
    quarantineFile: join(paths.data, 'state', 'quarantine.json'),
    timing: { staleTimeoutMs: config.controller.service_stale_timeout * 1000, ...options.timing },
    limits,
    stateSync: config.api.enabled ? localStateSync : undefined,
    deployBack: (group, workDir) =>
      deployBack({ workDir, templateDir: join(paths.templates, templateStack(group)[0]!), excludes: group.deployExcludes }).then((result) => result.filesChanged),
  });
  let cluster: ClusterRuntime | null = null;
  if (config.cluster.enabled) {
    try {
      // The cluster's code (TLS, the agent protocol, placement) loads only when it is enabled.
      const { startCluster } = await import('../cluster/runtime');
      // The enrolled nodes: each logs in with its own secret, which opens the cluster routes too.
      const { NodeRegistry } = await import('../cluster/identity/registry');
      const identities = new NodeRegistry(join(paths.data, 'cluster', 'nodes.json'));
      auth.useNodes(identities);
      cluster = await startCluster({
        identities,
        dir,
        config: config.cluster,
        bus,
        log: log.child({ area: 'cluster' }),
        registry: services,
        localLimits: limits,
        timing: options.cluster,
        release: () => ({ feedUrl: config.controller.update_check_url, publicKey: config.controller.update_public_key }),
      });
    } catch (error) {
      db.close();
      // An operator's mistake (a keystore password that does not open the key): exit 2 with its own message.
      if (error instanceof ConfigError) throw error;
      throw new Error(`the cluster server could not start on ${config.cluster.bind}:${config.cluster.agent_port}: ${(error as Error).message}`);
    }
    const { ClusterRemoteNodes } = await import('../cluster/remote-nodes');
    manager.useRemoteNodes(new ClusterRemoteNodes(cluster.cluster, { templatesRoot: paths.templates, dataDir: paths.data, groups, credentials, jars: software.jars }));
  }
  const players = new PlayerTracker({ bus, registry: services, log: log.child({ area: 'players' }) });
  const stress = new StressTest({ registry: services, groups, bus, log: log.child({ area: 'stress' }) });
  const { warmPool: warmPoolTiming, now: scalingClock, ...scalingTiming } = options.scaling ?? {};
  const scaling = new ScalingEngine({
    bus,
    log: log.child({ area: 'scaling' }),
    registry: services,
    groups,
    manager,
    players,
    // With agents, a scale-up is weighed against the whole cluster; the start picks the node.
    limits: () => cluster?.cluster.capacity() ?? limits(),
    ping: (host, port, timeoutMs) => pingServer(host, port, { timeoutMs, measureLatency: false }).then((status) => status.players.online, () => null),
    paused: () => stress.active,
    timing: { ...DEFAULT_SCALING_TIMING, tickMs: config.controller.scaling_tick_interval * 1000, ...scalingTiming },
    ...(scalingClock ? { now: scalingClock } : {}),
  });
  const warmPool = new WarmPool({ bus, log: log.child({ area: 'warm-pool' }), registry: services, groups, manager, limits, timing: warmPoolTiming });
  const kernel: Kernel = {
    version: VERSION,
    startedAt: new Date(),
    startedMono: monotonicNow(),
    dir,
    configPath,
    paths,
    config,
    log,
    db,
    bus,
    audit,
    auth,
    metrics,
    modules,
    groups,
    dedicated,
    services,
    manager,
    history: new ServiceHistory(db, services),
    dashboardMetrics: new DashboardMetrics({ db, bus, registry: services, groups, dedicated, players }),
    stateSync: new StateSync({
      root: join(paths.services, 'state'),
      groups,
      isDedicated: (name) => dedicated.get(name) !== undefined,
      // A node syncs only the instances this says it runs (or last ran).
      runningOn: (name) => services.get(name)?.nodeId,
      quotaBytes: () => config.cluster.sync_disk_quota_bytes,
      maxPushBytes: SERVER_BODY_CEILING,
      bus,
      metrics,
      log: log.child({ area: 'state-sync' }),
    }),
    proxySettings: new ProxySettings({ file: join(paths.config, 'proxy.toml'), db, bus, log: log.child({ area: 'proxy' }) }),
    maintenance: new Maintenance({ file: join(paths.config, 'maintenance.toml'), bus, groups, log: log.child({ area: 'maintenance' }) }),
    stress,
    scaling,
    warmPool,
    players,
    network: new NetworkActions({ registry: services, groups, roster: players.roster, exec: (name, command) => manager.exec(name, command) }),
    commands: new CommandRegistry(
      { services: () => services.all().map((s) => s.name), groups: () => groups.list().map((g) => g.name), players: () => players.roster.all().map((p) => p.name) },
      log.child({ area: 'commands' }),
    ),
    modpacks: new Modpacks({ config, paths, groups, dedicated, services, bus, log: log.child({ area: 'modpacks' }) }),
    cluster,
    isolation: isolated.isolation,
    apiToken: { source: master.source, file: master.file },
    updates: new SelfUpdates({
      settings: () => config.controller,
      version: VERSION,
      binary: RUNNING_BINARY,
      dataDir: paths.data,
      bus,
      audit,
      log: log.child({ area: 'update' }),
      restart: (reason) => hooks.restartInPlace(reason),
      fetch: options.updateFetch,
    }),
    requestShutdown: (reason: string, actor: Actor) => hooks.requestShutdown(reason, actor),
  };
  startupMark('kernel built');
  registerCoreSeries(kernel);
  if (cluster) (await import('../cluster/metrics')).registerClusterSeries(metrics, cluster.cluster, services);
  registerCoreCommands(kernel, kernel.commands, kernel.network);
  const checkpoints = new BackgroundCheckpointer(db, dbPath, log.child({ area: 'storage' }));
  return { kernel, software, checkpoints, modules };
}

/** Proxies expect the PROXY header exactly when a load balancer in front sends it; without one their template decides. */
export function haproxyProtocol(config: Config): boolean | undefined {
  return config.loadbalancer.enabled ? config.loadbalancer.proxy_protocol : undefined;
}
