import { holdsAdmin } from '../../core/auth';
import { t } from '../../http/t';
import { basename } from 'node:path';
import { statSync } from 'node:fs';
import { ApiError } from '../../errors';
import { clamp } from '../../http/clamp';
import { defineRoute, type AnyRoute } from '../../http/route';
import { ErrorBodySchema, OkSchema } from '../../http/schemas';
import { BackupConfigSchema } from './config';
import { RETENTION_CLASSES } from './config';
import {
  BACKUP_STATUSES,
  BackupListSchema,
  BackupSchema,
  IdParams,
  LIST_LIMIT,
  PruneAnswerSchema,
  PruneBodySchema,
  RestoreAnswerSchema,
  RestoreBodySchema,
  ScheduleViewSchema,
  StatusSchema,
  TriggerBodySchema,
  VerifyAnswerSchema,
  type BackupRow,
  type BackupStatus,
  type BackupView,
} from './model';
import type { BackupRuntime } from './runtime';
import { holdsCredentials, typesOf } from './sources';
import type { Principal } from '../../core/auth';

const PREFIX = '/api/backups';
const TAG = 'backups';
const VIEW = 'svc.dashboard.backups.view';
const MANAGE = 'svc.dashboard.backups.manage';
const Err = ErrorBodySchema;
const Refusals = { 400: Err, 401: Err, 403: Err } as const;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
export const viewOf = ({ archiveFile: _file, ...r }: BackupRow): BackupView => ({ ...r, startedAt: iso(r.startedAt)!, completedAt: iso(r.completedAt) });

function statusOf(raw: string | undefined): BackupStatus | undefined {
  if (raw === undefined || raw === '') return undefined;
  const upper = raw.toUpperCase();
  const status = BACKUP_STATUSES.find((s) => s === upper);
  if (!status) throw new ApiError('VALIDATION_FAILED', `status must be one of ${BACKUP_STATUSES.join(', ')}, got "${raw}"`);
  return status;
}

/**
 * Reading what an archive holds (its bytes, its manifest) when it holds credentials (the config,
 * the database, or a tree with the controller's secrets in it): a dashboard session needs
 * backups.manage, not only backups.view. A view-only session could otherwise fetch the sealed
 * TOTP secrets, and the key that opens them. API tokens pass on the route's level (admin).
 */
function requireManageFor(runtime: BackupRuntime, row: BackupRow, principal: Principal | null): void {
  if (principal?.kind !== 'session') return;
  if (principal.session?.has(MANAGE)) return;
  if (!holdsCredentials(runtime.kernel, row.targetType, row.targetName)) return;
  throw new ApiError(
    'FORBIDDEN',
    `Missing permission: ${MANAGE} (backup ${row.id} is a ${row.targetType.toLowerCase()} archive and holds credentials; reading it needs ${MANAGE}, not only ${VIEW}: ask an admin)`,
  );
}

function classOf(raw: string | undefined): string {
  const value = (raw ?? 'manual').trim().toLowerCase();
  if (!(RETENTION_CLASSES as readonly string[]).includes(value)) throw new ApiError('VALIDATION_FAILED', `scheduleClass must be one of ${RETENTION_CLASSES.join(', ')}, got "${raw}"`);
  return value;
}

export function backupRoutes(runtime: BackupRuntime): AnyRoute[] {
  const { manager, scheduler } = runtime;
  return [
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/config`,
      auth: 'admin',
      permission: VIEW,
      tag: TAG,
      summary: 'The backup configuration (backup.toml as JSON, camelCase)',
      response: { 200: BackupConfigSchema, ...Refusals },
      handler: () => runtime.config(),
    }),
    defineRoute({
      method: 'PUT',
      path: `${PREFIX}/config`,
      auth: 'admin',
      permission: MANAGE,
      tag: TAG,
      summary: 'Replace the backup configuration: missing fields take their defaults; a rule broken is 400 BACKUP_CONFIG_INVALID naming the field. Written atomically; the scheduler uses it from the next minute',
      body: t.Unknown({ description: 'the configuration as GET answers it' }),
      response: { 200: BackupConfigSchema, ...Refusals },
      handler: ({ body, principal }) => runtime.updateConfig(body, holdsAdmin(principal)),
    }),
    defineRoute({
      method: 'GET',
      path: PREFIX,
      auth: 'admin',
      permission: VIEW,
      tag: TAG,
      summary: 'Backups, newest first, optionally of one target name and/or status; total counts every match',
      query: t.Object({
        target: t.Optional(t.String({ maxLength: 128, description: 'target name (a service, a dedicated service, or "all")' })),
        status: t.Optional(t.String({ maxLength: 16, description: 'RUNNING, SUCCESS, FAILED or PARTIAL (any case)' })),
        limit: t.Optional(t.Integer({ description: `clamped to ${LIST_LIMIT.min}..${LIST_LIMIT.max}, default ${LIST_LIMIT.default}` })),
        offset: t.Optional(t.Integer({ description: 'records to skip (at least 0)' })),
      }),
      response: { 200: BackupListSchema, ...Refusals },
      handler: ({ query }) => {
        const status = statusOf(query.status);
        const { rows, total } = runtime.store.list(
          { ...(query.target ? { target: query.target } : {}), ...(status ? { status } : {}) },
          clamp(query.limit ?? LIST_LIMIT.default, LIST_LIMIT.min, LIST_LIMIT.max),
          clamp(query.offset ?? 0, 0, Number.MAX_SAFE_INTEGER),
        );
        return { backups: rows.map(viewOf), total };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/schedules`,
      auth: 'admin',
      permission: VIEW,
      tag: TAG,
      summary: 'The schedules with their last run, its outcome and the next run (a plain array)',
      response: { 200: t.Array(ScheduleViewSchema), ...Refusals },
      handler: () => scheduler.views(),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/status`,
      auth: 'admin',
      permission: VIEW,
      tag: TAG,
      summary: '{activeJobs (backups running now), localDestination (absolute), schedules}',
      response: { 200: StatusSchema, ...Refusals },
      handler: () => ({ activeJobs: manager.activeJobs(), localDestination: manager.destination(), schedules: scheduler.views() }),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/trigger`,
      auth: 'admin',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Back up now: {targets (services, dedicated, templates, config, database, state_sync, all; default every type in scope), scheduleClass (manual), target (one service)}. ' +
        'Answers 201 at once with the RUNNING records; the archives are made in the background (BACKUP_STARTED, then BACKUP_COMPLETED or BACKUP_FAILED). 409 BACKUP_IN_PROGRESS when a target is being backed up',
      body: t.Optional(TriggerBodySchema),
      response: { 201: BackupListSchema, ...Refusals, 404: Err, 409: Err },
      handler: ({ body, actor, set }) => {
        const rows = manager.trigger({
          types: typesOf(body?.targets ?? [], runtime.config().scope),
          ...(body?.target?.trim() ? { single: body.target.trim() } : {}),
          scheduleClass: classOf(body?.scheduleClass),
          scheduleName: '',
          triggeredBy: actor,
          actor,
        });
        set.status = 201;
        return { backups: rows.map(viewOf), total: rows.length };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/prune`,
      auth: 'admin',
      permission: MANAGE,
      tag: TAG,
      summary: 'Apply retention now (keep-N per class; failed records after failedKeepDays), or with dryRun count what would go: {deleted, freedBytes, errors, dryRun}. Publishes BACKUP_PRUNED',
      body: t.Optional(PruneBodySchema),
      response: { 200: PruneAnswerSchema, ...Refusals },
      handler: ({ body, actor }) => manager.prune({ dryRun: body?.dryRun ?? false, ...(body?.retentionClass ? { retentionClass: body.retentionClass } : {}) }, actor),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/:id`,
      auth: 'admin',
      permission: VIEW,
      tag: TAG,
      summary: 'One backup (404 BACKUP_NOT_FOUND)',
      params: IdParams,
      response: { 200: BackupSchema, ...Refusals, 404: Err },
      handler: ({ params }) => viewOf(manager.get(params.id)),
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/:id/manifest`,
      auth: 'admin',
      permission: VIEW,
      tag: TAG,
      summary: `The archive’s MANIFEST.sha256 as text (sha256sum format); 404 BACKUP_ARCHIVE_MISSING or BACKUP_MANIFEST_MISSING. Of an archive holding credentials (config, database), a session needs ${MANAGE}`,
      params: IdParams,
      response: { 200: t.String({ description: 'text/plain' }), ...Refusals, 404: Err },
      handler: async ({ params, principal }) => {
        const row = manager.get(params.id);
        requireManageFor(runtime, row, principal);
        const { readManifest } = await import('./archive');
        const manifest = await readManifest(manager.archiveOf(row));
        if (manifest === null) throw new ApiError('BACKUP_MANIFEST_MISSING', `the archive of backup ${params.id} has no MANIFEST.sha256 entry`);
        return new Response(manifest, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/:id/download`,
      auth: 'admin',
      permission: VIEW,
      tag: TAG,
      summary: `The archive itself, streamed (application/zstd, Content-Length, an attachment named after the file). An archive holding credentials (config, database) needs ${MANAGE} from a session`,
      params: IdParams,
      response: { 200: t.Any({ description: 'the .tar.zst archive' }), ...Refusals, 404: Err },
      handler: ({ params, principal }) => {
        const row = manager.get(params.id);
        requireManageFor(runtime, row, principal);
        const file = manager.archiveOf(row);
        return new Response(Bun.file(file), {
          headers: {
            'content-type': 'application/zstd',
            'content-length': String(statSync(file).size),
            'content-disposition': `attachment; filename="${basename(file)}"`,
          },
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/:id/restore`,
      auth: 'admin',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Restore a backup: {targetPath (inside the controller’s folders; default where it came from, the database to restore/database), dryRun, force (over a running service)}. ' +
        'Extracted beside the target and swapped in, so the target holds exactly the backup and a failure leaves it as it was. Publishes BACKUP_RESTORED',
      params: IdParams,
      body: t.Optional(RestoreBodySchema),
      response: { 200: RestoreAnswerSchema, ...Refusals, 404: Err, 409: Err },
      handler: ({ params, body, actor }) =>
        manager.restore(params.id, { ...(body?.targetPath !== undefined ? { targetPath: body.targetPath } : {}), dryRun: body?.dryRun ?? false, force: body?.force ?? false }, actor),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/:id/verify`,
      auth: 'admin',
      permission: MANAGE,
      tag: TAG,
      summary: 'Re-read the archive: its own SHA-256, every file against the manifest, missing and extra files: {valid, errors}',
      params: IdParams,
      response: { 200: VerifyAnswerSchema, ...Refusals, 404: Err, 409: Err },
      handler: ({ params }) => manager.verify(params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/:id`,
      auth: 'admin',
      permission: MANAGE,
      tag: TAG,
      summary: 'Delete a backup and its archive (409 BACKUP_IN_PROGRESS while it runs)',
      params: IdParams,
      response: { 200: OkSchema, ...Refusals, 404: Err, 409: Err },
      handler: async ({ params }) => {
        await manager.delete(params.id);
        return { success: true as const, message: `Backup #${params.id} deleted` };
      },
    }),
  ];
}
