import type { Logger } from '../../log';
import type { AuditStore } from './store';

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Drops audit entries older than `[audit] retention_days` (read at each run): once now, then
 * hourly. The timer does not keep the process alive; stop() ends it.
 */
export function startAuditPruning(audit: Pick<AuditStore, 'prune'>, retentionDays: () => number, log: Logger): { stop(): void } {
  const prune = () => {
    const cutoff = Date.now() - retentionDays() * DAY_MS;
    audit
      .prune(cutoff)
      .then((removed) => removed > 0 && log.info({ area: 'audit', removed }, 'pruned old audit entries'))
      .catch((error) => log.error({ area: 'audit', err: error }, 'audit pruning failed'));
  };
  prune();
  const timer = setInterval(prune, PRUNE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
