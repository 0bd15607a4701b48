import { Type, type Static } from '@sinclair/typebox';
import { t } from '../../http/t';
import { closedObject } from '../../http/schemas';

export const TARGET_TYPES = ['SERVICE', 'DEDICATED', 'TEMPLATES', 'CONFIG', 'DATABASE', 'STATE_SYNC'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];
export const BACKUP_STATUSES = ['RUNNING', 'SUCCESS', 'FAILED', 'PARTIAL'] as const;
export type BackupStatus = (typeof BACKUP_STATUSES)[number];

/** A stored backup attempt; times in epoch ms. */
export interface BackupRow {
  id: number;
  targetType: TargetType;
  targetName: string;
  scheduleClass: string;
  scheduleName: string;
  startedAt: number;
  completedAt: number | null;
  status: BackupStatus;
  sizeBytes: number;
  /** Relative to the local destination it was written to; '' when there is no archive (a skip, a failure). */
  archivePath: string;
  /** The archive's absolute path (the destination may have moved since); '' when none. Not in the API answer. */
  archiveFile: string;
  checksum: string;
  errorMessage: string | null;
  nodeId: string;
  triggeredBy: string;
}

const NullableString = t.Union([t.String(), t.Null()]);

/** B: a backup record as the dashboard's backup page reads it. */
export const BackupSchema = t.Object({
  id: t.Integer(),
  targetType: t.String({ description: TARGET_TYPES.join(' | ') }),
  targetName: t.String({ description: 'the service or dedicated service, or "all" for the other types' }),
  scheduleClass: t.String({ description: 'hourly, daily, weekly, monthly or manual' }),
  scheduleName: t.String({ description: 'the schedule that ran it; empty for a manual trigger' }),
  startedAt: t.String({ description: 'ISO-8601 UTC' }),
  completedAt: NullableString,
  status: t.String({ description: BACKUP_STATUSES.join(' | ') }),
  sizeBytes: t.Integer(),
  archivePath: t.String({ description: 'relative to localDestination; empty when no archive was written' }),
  checksum: t.String({ description: 'SHA-256 of the archive file' }),
  errorMessage: NullableString,
  nodeId: t.String(),
  triggeredBy: t.String({ description: 'scheduler, console, or the API caller (api:admin, dashboard:<name>)' }),
});
export type BackupView = Static<typeof BackupSchema>;

export const BackupListSchema = t.Object({ backups: t.Array(BackupSchema), total: t.Integer({ description: 'records matching the filter, all pages together' }) });

export const ScheduleViewSchema = t.Object({
  name: t.String(),
  cron: t.String(),
  retentionClass: t.String(),
  targets: t.Array(t.String()),
  lastRunAt: NullableString,
  nextRunAt: NullableString,
  lastStatus: t.String({ description: 'SUCCESS, PARTIAL or FAILED of the last run; empty before the first' }),
});

export const StatusSchema = t.Object({
  activeJobs: t.Integer({ description: 'backups running now' }),
  localDestination: t.String({ description: 'where archives are written (absolute)' }),
  schedules: t.Array(ScheduleViewSchema),
});

export const TriggerBodySchema = closedObject({
  targets: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16, description: 'services, dedicated, templates, config, database, state_sync, or all (default: every type in scope)' })),
  scheduleClass: Type.Optional(Type.String({ maxLength: 16, description: 'hourly, daily, weekly, monthly or manual (default)' })),
  target: Type.Optional(Type.String({ maxLength: 128, description: 'one service or dedicated service by name: only it is backed up' })),
});
export type TriggerBody = Static<typeof TriggerBodySchema>;

export const RestoreBodySchema = closedObject({
  targetPath: Type.Optional(Type.String({ maxLength: 1024, description: 'where to restore; inside the controller’s folders (default: where the backup came from; the database goes to restore/database)' })),
  dryRun: Type.Optional(Type.Boolean({ description: 'list what would be restored, write nothing' })),
  force: Type.Optional(Type.Boolean({ description: 'restore over a service that is running' })),
});

export const RestoreAnswerSchema = t.Object({
  id: t.Integer(),
  dryRun: t.Boolean(),
  filesExtracted: t.Integer(),
  files: t.Array(t.String()),
  targetPath: t.String({ description: 'where the files went (or would go)' }),
});

export const VerifyAnswerSchema = t.Object({ valid: t.Boolean(), errors: t.Array(t.String()) });

export const PruneBodySchema = closedObject({
  dryRun: Type.Optional(Type.Boolean({ description: 'count what would go, delete nothing' })),
  retentionClass: Type.Optional(Type.String({ maxLength: 16, description: 'only this class (failed records are then left alone)' })),
});
export const PruneAnswerSchema = t.Object({ deleted: t.Integer(), freedBytes: t.Integer(), errors: t.Array(t.String()), dryRun: t.Boolean() });

export const IdParams = t.Object({ id: t.Integer({ minimum: 1 }) });
export const LIST_LIMIT = { min: 1, max: 1000, default: 100 } as const;
