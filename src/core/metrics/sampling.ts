import type { Logger } from '../../log';
import type { DashboardMetrics } from './dashboard-metrics';
import { SAMPLE_INTERVAL_MS, type ServiceHistory } from './service-history';

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/**
 * A sample of every running service and of the network each `intervalMs` (`[metrics]
 * sample_interval`, 10 s by default); samples past `[metrics] retention_days` (read at each run)
 * pruned now, then hourly. The timers do not keep the process alive; stop() ends them.
 */
export function startServiceSampling(
  history: Pick<ServiceHistory, 'sample' | 'prune'>,
  dashboardMetrics: Pick<DashboardMetrics, 'sample' | 'prune'>,
  retentionDays: () => number,
  log: Logger,
  intervalMs = SAMPLE_INTERVAL_MS,
): { stop(): void } {
  const sampler = setInterval(() => {
    try {
      history.sample();
      dashboardMetrics.sample();
    } catch (error) {
      log.error({ err: error }, 'service sampling failed');
    }
  }, intervalMs);
  sampler.unref();
  const prune = () => {
    const cutoff = Date.now() - retentionDays() * DAY_MS;
    history.prune(cutoff).catch((error: unknown) => log.error({ err: error }, 'metrics pruning failed'));
    dashboardMetrics.prune(cutoff).catch((error: unknown) => log.error({ err: error }, 'metrics pruning failed'));
  };
  prune();
  const pruner = setInterval(prune, PRUNE_INTERVAL_MS);
  pruner.unref();
  return {
    stop: () => {
      clearInterval(sampler);
      clearInterval(pruner);
    },
  };
}
