import type { Part } from '../core/lifecycle/parts';
import { startAuditPruning } from '../core/audit/pruning';
import { startServiceSampling } from '../core/metrics/sampling';
import { keepProxiesInSync } from '../core/services/proxy-sync';
import { startProxyUpdates } from '../core/proxy/updates';
import { isolationLabel } from '../core/isolation/resolve';
import { startupMark } from '../startup-trace';
import type { ControllerApi } from './api';
import { haproxyProtocol, type Built } from './build';

/** What kind of stop: why, and whether the game servers keep running (a restart in place). */
export interface StopHow {
  reason: string;
  keepServices: boolean;
}

export interface PartsDeps extends Built {
  api: ControllerApi;
  /** Why this process is the controller restarted in place, for the banner. */
  restartedInPlace: string | undefined;
  /** True once a stop began (the boot's tail checks it before it starts scaling). */
  stopped(): boolean;
}

/**
 * The controller's lifecycle, declared: run forward to start, backward to stop (see
 * core/lifecycle/parts.ts). The order is the contract the end-to-end suites hold:
 *
 * - Services the last controller left are re-attached before the API answers anything, and
 *   the API closes only after they stopped (they call it while they stop): so the API's
 *   close is listed early (stops late) and its listen late (starts late).
 * - Nothing may start a service once the shutdown began: scaling, the warm pool, update
 *   checks and the load balancer stop first; a restart in place never stops a service.
 * - Modules stop after the API (no request reaches a stopped module), the database last.
 * - Parts with only a stop close what buildController made before the list runs (the
 *   database, the cluster server, stress tests).
 */
export function controllerParts(d: PartsDeps): Part<StopHow>[] {
  const { kernel, modules, api } = d;
  const { config, log, manager } = kernel;
  let auditPruning: { stop(): void } | undefined;
  let sampling: { stop(): void } | undefined;
  return [
    {
      name: 'log',
      stop: ({ reason, keepServices }) => {
        log.info({ reason }, keepServices ? 'controller stopped for a restart in place; every service left running' : 'controller stopped');
        log.flush();
      },
    },
    {
      name: 'storage',
      stop: () => {
        d.checkpoints.stop();
        kernel.db.close();
      },
    },
    {
      name: 'modules',
      start: async () => {
        await modules.start(kernel);
        startupMark('modules started');
      },
      stop: () => modules.stop(kernel),
    },
    {
      name: 'api: close',
      // After an update the same pid comes back at once and rewrites the runtime file.
      stop: ({ reason, keepServices }) => api.close(reason, keepServices),
    },
    {
      name: 'audit pruning',
      start: () => void (auditPruning = startAuditPruning(kernel.audit, () => config.audit.retention_days, log)),
      stop: () => auditPruning?.stop(),
    },
    {
      name: 'metrics sampling',
      start: () => void (sampling = startServiceSampling(kernel.history, kernel.dashboardMetrics, () => config.metrics.retention_days, log, config.metrics.sample_interval * 1000)),
      stop: () => sampling?.stop(),
    },
    { name: 'cluster', stop: () => kernel.cluster?.stop() },
    {
      name: 'modpacks',
      start: () => kernel.modpacks.start(),
      // Running imports end (and clean up) before their groups' files could be read back.
      stop: () => kernel.modpacks.stop(),
    },
    { name: 'stress tests', stop: () => kernel.stress.close() },
    {
      name: 'proxy sync',
      start: () =>
        void keepProxiesInSync({
          bus: kernel.bus,
          log: log.child({ area: 'proxy-sync' }),
          registry: kernel.services,
          groups: kernel.groups,
          dataDir: kernel.paths.data,
          haproxyProtocol: haproxyProtocol(config),
          exec: (name, command) => manager.exec(name, command),
        }),
    },
    {
      name: 'services',
      // Services the last controller left are known before the API answers anything.
      start: async () => {
        await manager.recover();
        startupMark('services recovered');
      },
      // Shutdown order: dedicated, stop-on-empty, other backends, proxies; the API still answers them.
      stop: async ({ reason, keepServices }) => {
        if (!keepServices) await manager.stopAll(reason).catch((error: unknown) => log.error({ err: error }, 'stopping services failed'));
      },
    },
    {
      name: 'proxy updates',
      // Proxy software kept current ([proxy], `proxy update`); the first check runs later, off the start path.
      start: () => void (kernel.proxyUpdates = startProxyUpdates(kernel, d.software.upstreams)),
      stop: () => kernel.proxyUpdates?.stop(),
    },
    {
      name: 'modules ready',
      start: async () => {
        await modules.ready(kernel);
        startupMark('modules ready');
      },
    },
    {
      name: 'api',
      start: () => {
        if (config.api.enabled) api.listen();
        else log.warn('[api] enabled = false: the HTTP API is off');
        startupMark('API listening');
      },
    },
    // This process may be the new binary of an update: say so once the API is up.
    { name: 'update announcement', start: () => kernel.updates.announceApplied() },
    { name: 'banner', start: () => logBanner(d) },
    {
      name: 'load balancer',
      start: () => {
        if (!config.loadbalancer.enabled) return;
        return import('../loadbalancer/start').then(({ startLoadBalancer }) => void (kernel.loadBalancer = startLoadBalancer(kernel)));
      },
      // No new players through the balancer while the proxies go down.
      stop: ({ reason }) => kernel.loadBalancer?.stop(reason),
    },
    {
      name: 'boot',
      // Scaling and the warm pool begin once the boot order has brought every group to its minimum.
      start: () => {
        void manager
          .bootGroups()
          .catch((error: unknown) => log.error({ err: error }, 'boot failed'))
          .then(() => {
            if (d.stopped()) return;
            kernel.scaling.start();
            kernel.warmPool.start();
            kernel.updates.startAutomatic();
          });
      },
      // Nothing may start a service once the shutdown began.
      stop: () => {
        kernel.scaling.stop();
        kernel.warmPool.stop();
        kernel.updates.stop();
      },
    },
  ];
}

/** One line saying what runs: version, directory, API, isolation, modules, and the pid. */
function logBanner({ kernel, modules, api, restartedInPlace }: PartsDeps): void {
  const address = api.listening ? api.url : 'off';
  const loaded = modules
    .list()
    .filter((m) => m.loaded)
    .map((m) => m.id);
  const services = kernel.services.all().filter((s) => s.pid !== null).length;
  const how = restartedInPlace ? `restarted in place (${restartedInPlace}), ${services} running service(s) re-attached` : 'started';
  kernel.log.info(
    { pid: process.pid },
    `svc ${kernel.version} ${how}: dir ${kernel.dir}, API ${address}, isolation ${isolationLabel(kernel.isolation)}, modules ${loaded.join(', ') || 'none'}, pid ${process.pid}`,
  );
}
