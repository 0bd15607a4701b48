import { BACKUP_DEFAULTS, type BackupConfig } from '../../../../src/modules/backup/config';

/**
 * The values backup.toml's golden files (next to this) were written from, by the hand-laid
 * renderer backup.toml had before it was rendered from its schema and words.
 */
export const GOLDEN_VALUES: Record<string, BackupConfig> = {
  /** The defaults, in a fixed zone. */
  defaults: { ...structuredClone(BACKUP_DEFAULTS), timezone: 'Europe/Berlin' },
  /** Every field changed from its default, with text TOML must escape. */
  custom: {
    enabled: false,
    localDestination: '/srv/backups/"quoted" \\ back slash/ünïcode 😀',
    maxConcurrent: 32,
    compressionLevel: 22,
    compressionWorkers: 64,
    quiesceServices: false,
    quiesceWaitSeconds: 60,
    timezone: 'America/New_York',
    includeAuthKey: true,
    scope: { services: false, dedicated: true, templates: false, controllerConfig: false, stateSync: true, database: false },
    excludes: ['*.tmp', 'world/"odd" name/**', 'a\\b', '#not-a-comment', 'tab\there'],
    schedules: [
      { name: 'Night_1', cron: '30 2 * * 1-5', retentionClass: 'daily', targets: ['services', 'state_sync'] },
      { name: 'month-end', cron: '0 0 13 * FRI', retentionClass: 'monthly', targets: ['database', 'controller_config', 'config', 'state', 'templates', 'dedicated'] },
      { name: 'adhoc', cron: '*/5 * * * *', retentionClass: 'manual', targets: ['all'] },
    ],
    retention: { hourlyKeep: 0, dailyKeep: 100000, weeklyKeep: 1, monthlyKeep: 12, keepManual: false, failedKeepDays: 0 },
  },
  /** No schedules and no excludes: the lists written empty. */
  bare: { ...structuredClone(BACKUP_DEFAULTS), timezone: 'UTC', schedules: [], excludes: [] },
  /** One schedule and one exclude pattern. */
  single: { ...structuredClone(BACKUP_DEFAULTS), timezone: 'Asia/Tokyo', schedules: [{ name: 'only', cron: '0 0 * * *', retentionClass: 'weekly', targets: ['all'] }], excludes: ['x/**'] },
};
