import type { EventBus } from '../../events/bus';
import { stepOf, type ServiceTimeline } from '../../core/metrics/service-timeline';
import type { ServiceRecord } from '../../core/services/registry';

/** Backup targets that are one service: their runs go on that service's timeline. */
const SERVICE_TARGETS: ReadonlySet<string> = new Set(['SERVICE', 'DEDICATED']);

/**
 * Puts the backups of a service (or dedicated service) on its timeline (GET
 * /api/services/{name}/timeline): the start, the end (completed or failed) and a restore, each
 * caused by whoever triggered the run (`scheduler` for scheduled ones, else the API caller or
 * the console). BACKUP_COMPLETED and _FAILED name no target type, so the runs under way are
 * remembered by id from their start. A restore names its target but not its kind: it goes on
 * the timeline when a service by that name exists.
 */
export function recordBackupsOnTimeline(bus: EventBus, timeline: ServiceTimeline, lookup: (service: string) => ServiceRecord | undefined): () => void {
  const running = new Map<string, { service: string; triggeredBy: string }>();
  return bus.subscribe((event) => {
    const data = event.data as Record<string, string | undefined>;
    switch (event.type) {
      case 'BACKUP_STARTED': {
        if (!data.id || !data.targetName || !SERVICE_TARGETS.has((data.targetType ?? '').toUpperCase())) return;
        const triggeredBy = data.triggeredBy || event.actor;
        running.set(data.id, { service: data.targetName, triggeredBy });
        timeline.record(data.targetName, stepOf(event, triggeredBy));
        return;
      }
      case 'BACKUP_COMPLETED':
      case 'BACKUP_FAILED': {
        const run = data.id ? running.get(data.id) : undefined;
        if (!run) return;
        running.delete(data.id!);
        timeline.record(run.service, stepOf(event, run.triggeredBy));
        return;
      }
      case 'BACKUP_RESTORED':
        if (data.targetName && lookup(data.targetName)) timeline.record(data.targetName, stepOf(event, data.triggeredBy || event.actor));
        return;
    }
  });
}
