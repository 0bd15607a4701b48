import type { Server } from 'bun';
import type { Kernel } from '../kernel';
import type { SoftwareServices } from '../core/software/software-services';
import type { ModuleRegistry } from '../modules/registry';
import { startupMark } from '../startup-trace';
import { openApiRoute } from '../http/openapi';
import type { AnyRoute, SocketSpec } from '../http/route';
import type { RequestGuard } from '../http/guard';
import { createHttpServer } from '../http/server';
import { auditRoutes } from '../http/routes/audit';
import { timelineRoutes } from '../http/routes/timeline';
import { commandRoutes } from '../http/routes/commands';
import { configRoutes } from '../http/routes/config';
import { metricsRoutes } from '../http/routes/metrics';
import { metricsDashboardRoutes } from '../http/routes/metrics-dashboard';
import { maintenanceRoutes } from '../http/routes/maintenance';
import { stressRoutes } from '../http/routes/stress';
import { playerRoutes } from '../http/routes/players';
import { proxyRoutes } from '../http/routes/proxy';
import { moduleRoutes } from '../http/routes/modules';
import { groupRoutes } from '../http/routes/groups';
import { groupActionRoutes } from '../http/routes/group-actions';
import { dedicatedRoutes } from '../http/routes/dedicated';
import { quarantineRoutes } from '../http/routes/quarantine';
import { softwareRoutes } from '../http/routes/software';
import { pluginRoutes } from '../http/routes/plugins';
import { serviceRoutes } from '../http/routes/services';
import { statusRoutes } from '../http/routes/status';
import { systemRoutes } from '../http/routes/system';
import { tokenRoutes } from '../http/routes/tokens';
import { stateSyncRoutes } from '../http/routes/state-sync';
import { modpackRoutes } from '../http/routes/modpacks';
import { fileRoutes } from '../http/routes/files';
import { loadBalancerRoutes } from '../http/routes/loadbalancer';
import { clusterRoutes } from '../http/routes/cluster';
import { doctorRoutes } from '../http/routes/doctor';
import { controllerInfoRoutes } from '../http/routes/controller-info';
import { controllerUpdateRoutes } from '../http/routes/controller-update';
import { SocketHub } from '../ws/socket-hub';
import { EVENTS_SOCKET, mountEventsSocket } from '../ws/events';
import { CONSOLE_STREAM_SOCKET, mountConsoleStream } from '../ws/console-stream';
import { mountServiceConsole, SERVICE_CONSOLE_SOCKET } from '../ws/service-console';
import type { Heartbeat } from '../ws/heartbeat';
import { CliSessionStore } from '../core/commands/cli-sessions';
import { LocationLookup } from '../core/commands/location';
import { removeControllerRuntime, writeControllerRuntime } from '../core/update/runtime-file';

/**
 * The controller's HTTP API and its three WebSockets: every route (core's and the modules'),
 * one server on `[api] bind:port`, the runtime file that says where it listens. listen() opens
 * it once, close() shuts it; both are the lifecycle's ("api" parts).
 */
export class ControllerApi {
  private server: Server<unknown> | undefined;
  private guard: RequestGuard | undefined;
  private events: { subscribers(): number } | undefined;
  private consoles: { sessions(): number } | undefined;
  /** Every HTTP route this controller serves, core and modules (listed when it listens). */
  routes: AnyRoute[] = [];
  readonly sockets: SocketSpec[] = [EVENTS_SOCKET, SERVICE_CONSOLE_SOCKET, CONSOLE_STREAM_SOCKET];

  constructor(
    private readonly kernel: Kernel,
    private readonly software: SoftwareServices,
    private readonly moduleRegistry: ModuleRegistry,
    /** The sockets' liveness checks; stopped when the API closes. */
    private readonly heartbeat: Heartbeat,
  ) {}

  /** Whether the server is open. */
  get listening(): boolean {
    return this.server !== undefined;
  }

  get port(): number {
    return this.server?.port ?? 0;
  }

  /** The bound API address, e.g. http://127.0.0.1:8080. */
  get url(): string {
    const port = this.port;
    const host = this.kernel.config.api.bind === '0.0.0.0' ? '127.0.0.1' : this.kernel.config.api.bind;
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  /** Remote consoles (/api/console/stream) that said hello and are still connected. */
  get consoleSessions(): number {
    return this.consoles?.sessions() ?? 0;
  }

  /** Sockets subscribed to /api/events right now. */
  get eventSubscribers(): number {
    return this.events?.subscribers() ?? 0;
  }

  listen(): void {
    const { kernel } = this;
    const { config, log } = kernel;
    this.routes = [
      ...systemRoutes(kernel),
      ...tokenRoutes(kernel),
      ...configRoutes(kernel),
      ...auditRoutes(kernel),
      ...timelineRoutes(kernel),
      ...metricsRoutes(kernel),
      ...metricsDashboardRoutes(kernel),
      ...moduleRoutes(kernel),
      ...groupRoutes(kernel),
      ...groupActionRoutes(kernel),
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

  /**
   * Ends the sockets' heartbeats and closes the server (safe when it never listened). The
   * runtime file stays for a restart in place: the same pid comes back at once and rewrites it.
   */
  async close(reason: string, keepRuntimeFile: boolean): Promise<void> {
    const { kernel } = this;
    this.heartbeat.stop();
    // Edits still inside a coalescing window reach the event subscribers before they are cut off.
    kernel.proxySettings.flush();
    if (!this.server) return;
    kernel.bus.publish('API_STOPPED', { reason });
    await this.server.stop(true).catch((error: unknown) => kernel.log.error({ err: error }, 'HTTP server stop failed'));
    this.server = undefined;
    if (!keepRuntimeFile) removeControllerRuntime(kernel.paths.data, process.pid);
    this.guard?.stop();
  }
}
