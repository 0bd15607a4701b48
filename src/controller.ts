import { join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Server } from 'bun';
import { ConfigError, loadConfig } from './config/load';
import type { Config } from './config/schema';
import { AuditStore } from './core/audit/store';
import { GroupStore } from './core/groups/store';
import { DedicatedStore } from './core/dedicated/store';
import { ServiceRegistry } from './core/services/registry';
import { ServiceManager } from './core/services/manager';
import type { ManagerTiming } from './core/services/manager-timing';
import { GroupServicePreparer } from './core/services/preparer';
import { keepProxiesInSync } from './core/services/proxy-sync';
import { startProxyUpdates } from './core/proxy/updates';
import { Maintenance } from './core/maintenance/maintenance';
import { StressTest } from './core/stress/stress-test';
import { DEFAULT_SCALING_TIMING, ScalingEngine, type ScalingTiming } from './core/scaling/engine';
import { WarmPool, type WarmPoolTiming } from './core/scaling/warm-pool';
import type { MachineLimits } from './core/scaling/placement';
import { parseMemory } from './core/software/memory';
import { templateStack } from './core/groups/model';
import { deployBack } from './core/templates/deploy-back';
import { pingServer } from './core/net/server-list-ping';
import { PlayerTracker } from './core/players/tracker';
import { NetworkActions } from './core/proxy/network-actions';
import { ProxySettings } from './core/proxy/proxy-settings';
import { CommandRegistry } from './core/commands/registry';
import { registerCoreCommands } from './core/commands/core';
import { defaultPortRanges, PortLeases } from './core/ports';
import { logIsolation, startIsolation } from './core/isolation';
import { ServiceStateFile } from './core/services/state-file';
import { recordAuditedEvents } from './core/audit/recorder';
import { MetricsRegistry } from './core/metrics/registry';
import { registerCoreSeries } from './core/metrics/core-series';
import { SAMPLE_INTERVAL_MS, ServiceHistory } from './core/metrics/service-history';
import { DashboardMetrics } from './core/metrics/dashboard-metrics';
import { EventBus } from './events/bus';
import type { Actor } from './events/catalogue';
import { Authenticator } from './core/auth';
import { resolveMasterToken } from './http/master-token';
import { openApiRoute } from './http/openapi';
import type { AnyRoute, SocketSpec } from './http/route';
import { auditRoutes } from './http/routes/audit';
import { commandRoutes } from './http/routes/commands';
import { configRoutes } from './http/routes/config';
import { metricsRoutes } from './http/routes/metrics';
import { metricsDashboardRoutes } from './http/routes/metrics-dashboard';
import { maintenanceRoutes } from './http/routes/maintenance';
import { stressRoutes } from './http/routes/stress';
import { playerRoutes } from './http/routes/players';
import { proxyRoutes } from './http/routes/proxy';
import { moduleRoutes } from './http/routes/modules';
import { groupRoutes } from './http/routes/groups';
import { dedicatedRoutes } from './http/routes/dedicated';
import { quarantineRoutes } from './http/routes/quarantine';
import { softwareRoutes } from './http/routes/software';
import { pluginRoutes } from './http/routes/plugins';
import { SoftwareServices } from './core/software/software-services';
import { serviceRoutes } from './http/routes/services';
import { statusRoutes } from './http/routes/status';
import { systemRoutes } from './http/routes/system';
import { tokenRoutes } from './http/routes/tokens';
import { stateSyncRoutes } from './http/routes/state-sync';
import { modpackRoutes } from './http/routes/modpacks';
import { Modpacks } from './core/modpacks/modpacks';
import { fileRoutes } from './http/routes/files';
import { StateSync } from './cluster/state-sync/store';
import { createHttpServer } from './http/server';
import { SERVER_BODY_CEILING } from './http/api-handler';
import { SocketHub } from './ws/socket-hub';
import type { RequestGuard } from './http/guard';
import type { Kernel, Paths } from './kernel';
import { createLogger, type Logger } from './log';
import { useTenantLog } from './core/tenancy/fs/report';
import type { ModuleEntry } from './modules/module';
import { ModuleRegistry } from './modules/registry';
import { BUILTIN_MODULES } from './modules/builtin';
import { openCheckedDatabase, type Database } from './storage/db';
import { prepareStorage } from './storage/startup';
import { migrate } from './storage/migrate';
import { CORE_MIGRATIONS } from './storage/core-migrations';
import { BackgroundCheckpointer } from './storage/checkpointer';
import { EVENTS_SOCKET, mountEventsSocket } from './ws/events';
import { CONSOLE_STREAM_SOCKET, mountConsoleStream } from './ws/console-stream';
import { CliSessionStore } from './core/commands/cli-sessions';
import { LocationLookup } from './core/commands/location';
import { mountServiceConsole, SERVICE_CONSOLE_SOCKET } from './ws/service-console';
import { Heartbeat, SPEC_HEARTBEAT, type HeartbeatTiming } from './ws/heartbeat';
import { VERSION } from './version';
import { monotonicNow } from './core/time/monotonic';
import { SelfUpdates } from './core/update/self-updates';
import { RUNNING_BINARY } from './core/update/running-binary';
import { removeControllerRuntime, writeControllerRuntime } from './core/update/runtime-file';
import { loadBalancerRoutes } from './http/routes/loadbalancer';
import type { ClusterRuntime } from './cluster/runtime';
import type { ClusterTiming } from './cluster/cluster';
import { clusterRoutes } from './http/routes/cluster';
import { doctorRoutes } from './http/routes/doctor';
import { controllerInfoRoutes } from './http/routes/controller-info';
import { controllerUpdateRoutes } from './http/routes/controller-update';
import { pathsOf } from './config/paths';
import { pullState, pushState } from './cluster/state-sync/client';
import { startupMark } from './startup-trace';
import { ServiceCredentials } from './core/tenancy/service-credentials';
import { logServiceLifecycle } from './core/services/lifecycle-log';
import { isolationLabel } from './core/isolation/resolve';
import type { StaleHolder } from './core/lock/dir-lock';
import { isActiveService } from './core/tenancy/liveness';

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

const AUDIT_PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const SHUTDOWN_DELAY_MS = 250;

/**
 * The composition root. Start order: config → log → db → bus/audit → auth → modules →
 * HTTP/WebSockets → API_STARTED. Stop order is the reverse, and stop is idempotent.
 */
export class Controller {
  private server: Server<unknown> | undefined;
  private guard: RequestGuard | undefined;
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly kernel: Kernel,
    private readonly heartbeat: Heartbeat,
    private readonly options: ControllerOptions,
    /** Upstream version lists, server jars and plugins (their routes, and tests). */
    readonly software: SoftwareServices,
    /** WAL checkpoints of the database, off the event loop; stopped just before it closes. */
    private readonly checkpoints: BackgroundCheckpointer,
    /** The modules: core sees them as kernel.modules (a ModuleHost); their routes and stop are the composition root's. */
    private readonly moduleRegistry: ModuleRegistry,
  ) {}

  /** Reads config, opens storage and starts serving. Throws ConfigError for operator mistakes. */
  static async start(options: ControllerOptions): Promise<Controller> {
    const env = options.env ?? process.env;
    const dir = resolve(options.dir);
    const configPath = resolve(dir, options.configPath ?? 'svc.toml');
    const { config, warnings, created } = loadConfig(configPath, env);
    const paths = resolvePaths(dir, config);
    startupMark('config loaded');
    const log = createLogger({
      format: env.SVC_LOG_FORMAT === 'json' ? 'json' : 'pretty',
      colored: config.console.colored && (options.stdoutIsTerminal ?? (Boolean(process.stdout.isTTY) && !options.stdout)),
      dir: paths.logs,
      level: env.SVC_LOG_LEVEL,
      stdout: options.stdout,
    });
    if (created) log.info({ file: configPath }, 'first launch: wrote the default configuration');
    const stale = options.lock?.stale;
    if (stale) log.warn({ file: options.lock!.file, pid: stale.pid }, `took over the lock of a controller that did not stop cleanly (pid ${stale.pid}, ${stale.reason === 'not running' ? 'no longer running' : 'now another program'})`);
    for (const warning of warnings) log.warn(warning);
    startupMark('logger open');
    // Before anything in data/ is touched: a usable folder, a database not lost since the last run, no temp files of killed writes.
    prepareStorage({ dir, configPath, paths, dbFile: join(paths.data, `${config.database.name}.db`), log });
    // Entries of service directories svc leaves alone (links, FIFOs, hard links: tenancy/fs) are named in this log.
    useTenantLog(log.child({ area: 'tenancy' }));

    // Isolation is resolved once, here; its sandbox probe (a process) runs while the database opens.
    const isolating = startIsolation({
      setting: config.services.isolation,
      uidBase: config.services.isolation_uid_base,
      dir,
      configFile: configPath,
      dataDir: paths.data,
      ownerOnly: [paths.config, paths.templates, paths.logs, join(paths.services, 'state')],
      serviceRoots: [
        { root: paths.services, sub: ['static', 'temp'] },
        { root: paths.dedicated, sub: [] },
      ],
      legacy: [join(paths.services, '.fifos')],
    });
    isolating.catch(() => undefined); // awaited below; a failure before that must not go unhandled

    const master = resolveMasterToken(config.api.token, Boolean(env.SVC_API_TOKEN), paths.data);
    config.api.token = master.token;
    if (master.source === 'generated') log.info({ file: master.file }, `master token ${master.token.slice(0, 8)}… (generated; full token in the file)`);

    let db: Database | undefined;
    const dbPath = join(paths.data, `${config.database.name}.db`);
    try {
      db = openCheckedDatabase(dbPath);
      migrate(db, 'core', CORE_MIGRATIONS);
      startupMark('database open, core migrated');
    } catch (error) {
      db?.close();
      throw error;
    }
    const bus = new EventBus(log.child({ area: 'events' }), db);
    const audit = new AuditStore(db);
    if (config.audit.enabled) recordAuditedEvents(bus, audit, log.child({ area: 'audit' }));
    startupMark('bus, audit');
    const auth = new Authenticator({ masterToken: master.token, clusterToken: config.cluster.token, jwtEnabled: config.api.jwt_enabled });
    const metrics = new MetricsRegistry();
    const modules = new ModuleRegistry(options.modules ?? BUILTIN_MODULES);
    // Dashboard session tokens authenticate while the auth module is loaded.
    auth.useSessions(() => modules.lookup('sessions'));
    const groups = new GroupStore(join(paths.config, 'groups'));
    const groupReport = groups.load();
    for (const broken of groupReport.broken) log.error(`group file skipped: ${broken.message}`);
    for (const warning of groupReport.warnings) log.warn(warning);
    startupMark('auth, metrics, groups loaded');

    let isolated: Awaited<typeof isolating>;
    try {
      isolated = await isolating;
    } catch (error) {
      db.close();
      throw error; // an explicit [services] isolation this host cannot meet: a configuration error
    }
    logIsolation(log, isolated.isolation, isolated.tightened);
    startupMark('isolation resolved');

    let controller: Controller | undefined;
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
      apiPort: () => controller?.port ?? config.api.port,
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
    const ownApi = () => controller?.url ?? `http://127.0.0.1:${config.api.port}`;
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
        const { startCluster } = await import('./cluster/runtime');
        // The enrolled nodes: each logs in with its own secret, which opens the cluster routes too.
        const { NodeRegistry } = await import('./cluster/identity/registry');
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
      const { ClusterRemoteNodes } = await import('./cluster/remote-nodes');
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
        restart: (reason) => controller?.restartInPlace(reason),
        fetch: options.updateFetch,
      }),
      requestShutdown: (reason: string, actor: Actor) => controller?.requestShutdown(reason, actor),
    };
    startupMark('kernel built');
    registerCoreSeries(kernel);
    if (cluster) (await import('./cluster/metrics')).registerClusterSeries(metrics, cluster.cluster, services);
    registerCoreCommands(kernel, kernel.commands, kernel.network);
    const checkpoints = new BackgroundCheckpointer(db, dbPath, log.child({ area: 'storage' }));
    controller = new Controller(kernel, new Heartbeat(options.heartbeat ?? SPEC_HEARTBEAT), options, software, checkpoints, modules);
    try {
      await modules.start(kernel);
      startupMark('modules started');
      controller.startAuditPruning();
      kernel.modpacks.start();
      controller.startServiceSampling();
      keepProxiesInSync({ bus, log: log.child({ area: 'proxy-sync' }), registry: services, groups, dataDir: paths.data, haproxyProtocol: haproxyProtocol(config), exec: (name, command) => manager.exec(name, command) });
      // Proxy software kept current ([proxy], `proxy update`); the first check runs later, off the start path.
      kernel.proxyUpdates = startProxyUpdates(kernel, software.upstreams);
      // Services the last controller left are known before the API answers anything.
      await manager.recover();
      startupMark('services recovered');
      await modules.ready(kernel);
      startupMark('modules ready');
      if (config.api.enabled) controller.listen();
      else log.warn('[api] enabled = false: the HTTP API is off');
      startupMark('API listening');
      // This process may be the new binary of an update: say so once the API is up.
      kernel.updates.announceApplied();
      controller.logBanner();
      if (config.loadbalancer.enabled) kernel.loadBalancer = (await import('./loadbalancer/start')).startLoadBalancer(kernel);
      // Scaling and the warm pool begin once the boot order has brought every group to its minimum.
      void manager
        .bootGroups()
        .catch((error: unknown) => log.error({ err: error }, 'boot failed'))
        .then(() => {
          if (controller?.stopping) return;
          scaling.start();
          warmPool.start();
          kernel.updates.startAutomatic();
        });
    } catch (error) {
      await controller.stop('start failed');
      throw error;
    }
    return controller;
  }

  /** The bound API address, e.g. http://127.0.0.1:8080. */
  get url(): string {
    const port = this.port;
    const host = this.kernel.config.api.bind === '0.0.0.0' ? '127.0.0.1' : this.kernel.config.api.bind;
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  get port(): number {
    return this.server?.port ?? 0;
  }

  private events: { subscribers(): number } | undefined;
  private consoles: { sessions(): number } | undefined;

  /** Remote consoles (/api/console/stream) that said hello and are still connected. */
  get consoleSessions(): number {
    return this.consoles?.sessions() ?? 0;
  }

  /** Sockets subscribed to /api/events right now. */
  get eventSubscribers(): number {
    return this.events?.subscribers() ?? 0;
  }

  /** Every HTTP route this controller serves, core and modules. */
  routes: AnyRoute[] = [];
  readonly sockets: SocketSpec[] = [EVENTS_SOCKET, SERVICE_CONSOLE_SOCKET, CONSOLE_STREAM_SOCKET];

  private listen(): void {
    const { kernel } = this;
    const { config, log } = kernel;
    this.routes = [
      ...systemRoutes(kernel),
      ...tokenRoutes(kernel),
      ...configRoutes(kernel),
      ...auditRoutes(kernel),
      ...metricsRoutes(kernel),
      ...metricsDashboardRoutes(kernel),
      ...moduleRoutes(kernel),
      ...groupRoutes(kernel),
      ...dedicatedRoutes(kernel),
      ...quarantineRoutes(kernel),
      ...softwareRoutes(this.software),
      ...pluginRoutes(this.software),
      ...serviceRoutes(kernel, kernel.manager),
      ...statusRoutes(kernel),
      ...proxyRoutes(kernel),
      ...maintenanceRoutes(kernel),
      ...stressRoutes(kernel),
      ...playerRoutes(kernel, kernel.network),
      ...commandRoutes(kernel),
      ...stateSyncRoutes(kernel),
      ...modpackRoutes(kernel),
      ...fileRoutes(kernel),
      ...loadBalancerRoutes(kernel),
      ...clusterRoutes(kernel),
      ...doctorRoutes(kernel),
      ...controllerInfoRoutes(kernel),
      ...controllerUpdateRoutes(kernel),
      ...this.moduleRegistry.routes(),
    ];
    this.routes.push(openApiRoute(kernel.version, () => this.routes, this.sockets));
    startupMark(`routes listed (${this.routes.length})`);
    const hub = new SocketHub((error, path) => log.error({ area: 'http', err: error, path }, 'a WebSocket failed to open'));
    this.events = mountEventsSocket(hub, kernel, this.heartbeat);
    mountServiceConsole(hub, kernel, this.heartbeat);
    const sessions = new CliSessionStore(kernel.db);
    const closed = sessions.closeDangling(Date.now());
    if (closed > 0) log.info({ area: 'console', closed }, 'closed remote console sessions the last controller left open');
    this.consoles = mountConsoleStream(hub, { kernel, heartbeat: this.heartbeat, sessions, locations: new LocationLookup(() => config.console.location_lookup_url) });
    const { server, guard, handle } = createHttpServer(kernel, { routes: this.routes, sockets: this.sockets, hub, hostname: config.api.bind, port: config.api.port });
    // Agents fetch templates and state on the cluster's TLS port, through this same dispatch.
    kernel.cluster?.serveApi(handle);
    this.server = server;
    this.guard = guard;
    if (config.api.allowed_origins.length === 0) {
      const message = '[api] allowed_origins is empty: any browser origin may call the API';
      log.warn(message);
      kernel.bus.publish('API_WARNING', { message });
    }
    if (config.api.bind === '0.0.0.0' && !config.api.jwt_enabled) {
      log.warn('[api] bind = 0.0.0.0 exposes the API beyond this machine; put TLS in front of it');
    }
    log.info({ area: 'http', port: this.port }, `API listening on ${this.url}`);
    writeControllerRuntime(kernel.paths.data, { pid: process.pid, url: this.url, version: kernel.version });
    kernel.bus.publish('API_STARTED', { bind: config.api.bind, port: this.port });
  }

  /** One line saying what runs: version, directory, API, isolation, modules, and the pid. */
  private logBanner(): void {
    const { kernel, options } = this;
    const api = this.server ? this.url : 'off';
    const modules = this.moduleRegistry
      .list()
      .filter((m) => m.loaded)
      .map((m) => m.id);
    const services = kernel.services.all().filter((s) => s.pid !== null).length;
    const how = options.restartedInPlace ? `restarted in place (${options.restartedInPlace}), ${services} running service(s) re-attached` : 'started';
    kernel.log.info(
      { pid: process.pid },
      `svc ${kernel.version} ${how}: dir ${kernel.dir}, API ${api}, isolation ${isolationLabel(kernel.isolation)}, modules ${modules.join(', ') || 'none'}, pid ${process.pid}`,
    );
  }

  private startAuditPruning(): void {
    const { config, audit, log } = this.kernel;
    const prune = () => {
      const cutoff = Date.now() - config.audit.retention_days * 24 * 3600 * 1000;
      audit
        .prune(cutoff)
        .then((removed) => removed > 0 && log.info({ area: 'audit', removed }, 'pruned old audit entries'))
        .catch((error) => log.error({ area: 'audit', err: error }, 'audit pruning failed'));
    };
    prune();
    const timer = setInterval(prune, AUDIT_PRUNE_INTERVAL_MS);
    timer.unref();
    this.timers.push(timer);
  }

  /** A sample of every running service and of the network each 10 s; samples past `[metrics] retention_days` pruned hourly. */
  private startServiceSampling(): void {
    const { history, dashboardMetrics, config, log } = this.kernel;
    const sampler = setInterval(() => {
      try {
        history.sample();
        dashboardMetrics.sample();
      } catch (error) {
        log.error({ err: error }, 'service sampling failed');
      }
    }, SAMPLE_INTERVAL_MS);
    sampler.unref();
    const prune = () => {
      const cutoff = Date.now() - config.metrics.retention_days * 24 * 3600 * 1000;
      history.prune(cutoff).catch((error: unknown) => log.error({ err: error }, 'metrics pruning failed'));
      dashboardMetrics.prune(cutoff).catch((error: unknown) => log.error({ err: error }, 'metrics pruning failed'));
    };
    prune();
    const pruner = setInterval(prune, AUDIT_PRUNE_INTERVAL_MS);
    pruner.unref();
    this.timers.push(sampler, pruner);
  }

  /** Every way to ask for a shutdown (route, console command) is audited here, once. */
  private requestShutdown(reason: string, actor: Actor): void {
    try {
      this.kernel.audit.record({ actor, action: 'SHUTDOWN_REQUESTED', target: 'controller' });
    } catch (error) {
      // A full disk must not keep the controller from stopping (a stop is how one gets out of it).
      this.kernel.log.error({ err: error, actor }, 'the shutdown goes ahead without its audit entry');
    }
    this.kernel.log.warn({ actor }, `shutdown: ${reason}`);
    if (this.options.onShutdownRequest) return this.options.onShutdownRequest(reason);
    setTimeout(() => {
      void this.stop(reason).then(() => (this.options.exit ?? process.exit)(0));
    }, SHUTDOWN_DELAY_MS);
  }

  /** Stops serving, stops modules, closes the database. Safe to call more than once. */
  stop(reason: string): Promise<void> {
    this.stopping ??= this.doStop(reason, { keepServices: false });
    return this.stopping;
  }

  /**
   * After a self-update: stops like `stop` but leaves every service running, then hands over
   * to the new binary, which re-attaches them as after a crash.
   */
  restartInPlace(reason: string): void {
    if (this.stopping) return;
    const running = this.kernel.services.all().filter((s) => s.pid !== null).length;
    this.kernel.log.warn({ reason, services: running }, `restarting in place (${reason}): the ${running} running service(s) keep running and are re-attached`);
    this.stopping = this.doStop(reason, { keepServices: true });
    void this.stopping.then(() => (this.options.restartInPlace ?? (() => (this.options.exit ?? process.exit)(75)))(reason));
  }

  private async doStop(reason: string, { keepServices }: { keepServices: boolean }): Promise<void> {
    const { kernel } = this;
    // Nothing may start a service once the shutdown began.
    kernel.scaling.stop();
    kernel.warmPool.stop();
    kernel.proxyUpdates?.stop();
    kernel.updates.stop();
    // No new players through the balancer while the proxies go down.
    kernel.loadBalancer?.stop(reason);
    // Services first (shutdown order: dedicated, stop-on-empty, other backends, proxies), while the API still answers them.
    if (!keepServices) await kernel.manager.stopAll(reason).catch((error: unknown) => kernel.log.error({ err: error }, 'stopping services failed'));
    kernel.stress.close();
    // Running imports end (and clean up) before their groups' files could be read back.
    await kernel.modpacks.stop();
    kernel.cluster?.stop();
    for (const timer of this.timers) clearInterval(timer);
    this.heartbeat.stop();
    // Edits still inside a coalescing window reach the event subscribers before they are cut off.
    kernel.proxySettings.flush();
    if (this.server) {
      kernel.bus.publish('API_STOPPED', { reason });
      await this.server.stop(true).catch((error: unknown) => kernel.log.error({ err: error }, 'HTTP server stop failed'));
      this.server = undefined;
      // After an update the same pid comes back at once and rewrites it.
      if (!keepServices) removeControllerRuntime(kernel.paths.data, process.pid);
      this.guard?.stop();
    }
    await this.moduleRegistry.stop(kernel);
    this.checkpoints.stop();
    kernel.db.close();
    kernel.log.info({ reason }, keepServices ? 'controller stopped for a restart in place; every service left running' : 'controller stopped');
    kernel.log.flush();
  }
}

/** Proxies expect the PROXY header exactly when a load balancer in front sends it; without one their template decides. */
function haproxyProtocol(config: Config): boolean | undefined {
  return config.loadbalancer.enabled ? config.loadbalancer.proxy_protocol : undefined;
}

function resolvePaths(dir: string, config: Config): Paths {
  const paths = pathsOf(dir, config);
  for (const path of Object.values(paths)) mkdirSync(path, { recursive: true });
  return paths;
}

export type { Logger };
