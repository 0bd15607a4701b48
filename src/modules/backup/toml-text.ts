import type { FileText } from '../../config/unit/file-text';
import type { BackupFileSchema } from './schema';

/**
 * The words of backup.toml around its keys (the keys, types, limits and defaults are
 * BackupFileSchema's, schema.ts): written with the current values on first start and on every
 * save, so an operator editing the file by hand always finds them. A key not listed has no comment.
 */
export const BACKUP_TOML_TEXT: FileText<typeof BackupFileSchema> = {
  header: [
    'Backups: what is archived, where to, when, and how many are kept.',
    'Read when the controller starts. PUT /api/backups/config checks a new configuration and',
    'rewrites this file (with these comments); GET /api/backups/config shows it as JSON.',
  ],
  spelling: 'snake_case',
  keys: {
    backup: {
      keys: {
        enabled: ['false pauses the schedules; backups started by hand still run.'],
        localDestination: ["Where archives are written; a relative path is inside the controller's folder."],
        maxConcurrent: ['Backups that run at the same time (1-32).'],
        compressionLevel: ['zstd level (1-22): 3 is quick, 19 and above small but slow.'],
        compressionWorkers: ['zstd worker threads (0-64); 0 = half the cores, at least 1.'],
        quiesceServices: ['Flush running servers and pause their saving (save-off) while they are archived.'],
        quiesceWaitSeconds: ['Seconds to wait after save-all flush (0-60).'],
        timezone: ['The IANA time zone the schedules run in, like "Europe/Berlin" or "UTC".'],
        includeAuthKey: [
          'Database backups also carry the dashboard-login key (data/auth/session.key), so a restore keeps',
          'TOTP working. Off by default: with it, whoever holds a database archive can read every TOTP',
          'seed. Keep a copy of the key somewhere else instead.',
        ],
        scope: { comment: ['What the target "all" covers.'] },
        excludes: {
          comment: ['Left out of archives: globs matched against a file name or its path inside the', 'source folder. An empty list leaves nothing out.'],
          oneItemPerLine: ['patterns'],
        },
        schedules: {
          comment: [
            'Schedules. cron: minute hour day-of-month month day-of-week, in `timezone`; when both day',
            'fields are restricted a day matches either (as cron does). retention_class: hourly, daily,',
            'weekly, monthly or manual. targets: all (every type in [backup.scope]), services, dedicated,',
            'templates, config, controller_config, database, state, state_sync.',
          ],
          whenEmpty: ['No schedules: backups run only when started by hand.'],
        },
        retention: {
          comment: ['Successful backups kept per target and class; older ones are deleted.'],
          keys: {
            keepManual: ['true: manual backups are never deleted by retention.'],
            failedKeepDays: ['Failed records older than this many days are removed (0 keeps them).'],
          },
        },
      },
    },
  },
};
