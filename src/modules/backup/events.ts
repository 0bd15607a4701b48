import { moduleEvents, R } from '../../events/module-events';

/** The backup module's events, audited under the target they back up or restore. */
export const BACKUP_EVENTS = moduleEvents('backup', {
  BACKUP_STARTED: { keys: { id: R, targetType: R, targetName: R, triggeredBy: R }, auditTarget: 'targetName' },
  BACKUP_COMPLETED: { keys: { id: R, targetName: R, sizeBytes: R, durationMs: R, status: R }, auditTarget: 'targetName' },
  BACKUP_FAILED: { keys: { id: R, targetName: R, reason: R }, auditTarget: 'targetName' },
  BACKUP_RESTORED: { keys: { id: R, targetName: R, targetPath: R, triggeredBy: R }, auditTarget: 'targetName' },
  BACKUP_PRUNED: { keys: { count: R, freedBytes: R, scheduleClass: R }, auditTarget: 'scheduleClass' },
});

type BackupEvents = typeof BACKUP_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends BackupEvents {}
}
