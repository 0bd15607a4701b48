import type { SvcEvent } from '../../events/catalogue';
import type { Timeline } from '../../core/metrics/timeline';
import type { ServiceRecord } from '../../core/services/registry';

/** Backup targets that are one service: their runs are about that service. */
const SERVICE_TARGETS: ReadonlySet<string> = new Set(['SERVICE', 'DEDICATED']);

/**
 * Tells the network timeline which service a backup event is about and who caused it, so the
 * runs of a service's (or dedicated service's) backups show on its own timeline too (GET
 * /api/services/{name}/timeline): the start, the end (completed or failed) and a restore, each
 * caused by whoever triggered the run (`scheduler` for scheduled ones, else the API caller or
 * the console). BACKUP_COMPLETED and _FAILED name no target type, so the runs under way are
 * remembered by id from their start. A restore names its target but not its kind: it is about
 * a service when one by that name exists.
 */
export function resolveBackupsOnTimeline(timeline: Timeline, lookup: (service: string) => ServiceRecord | undefined): () => void {
  const running = new Map<string, { service: string; triggeredBy: string }>();
  return timeline.addResolver((event: SvcEvent) => {
    const data = event.data as Record<string, string | undefined>;
    switch (event.type) {
      case 'BACKUP_STARTED': {
        if (!data.id || !data.targetName || !SERVICE_TARGETS.has((data.targetType ?? '').toUpperCase())) return undefined;
        const run = { service: data.targetName, triggeredBy: data.triggeredBy || event.actor };
        running.set(data.id, run);
        return { service: run.service, actor: run.triggeredBy };
      }
      case 'BACKUP_COMPLETED':
      case 'BACKUP_FAILED': {
        const run = data.id ? running.get(data.id) : undefined;
        if (!run) return undefined;
        running.delete(data.id!);
        return { service: run.service, actor: run.triggeredBy };
      }
      case 'BACKUP_RESTORED':
        return data.targetName && lookup(data.targetName) ? { service: data.targetName, actor: data.triggeredBy || event.actor } : undefined;
      default:
        return undefined;
    }
  });
}
