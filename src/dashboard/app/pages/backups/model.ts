/**
 * What the Backups page reads and sends: the backup module's records (its routes' "B"), its
 * schedules and status, its configuration (backup.toml as camelCase JSON), the answers of
 * restore, verify and prune, the permission nodes its routes check, and the words the page
 * uses for them (src/modules/backup/model.ts and schema.ts are the sources).
 */

export const BASE = '/api/backups';

/** The nodes the module's routes check (a dashboard session must hold them; an API token passes). */
export const NODE = {
  view: 'svc.dashboard.backups.view',
  manage: 'svc.dashboard.backups.manage',
  /** The services list, for the "one service" choice and to say a service is running before a restore. */
  services: 'svc.dashboard.services.view',
  /** The live events socket. */
  live: 'svc.dashboard.overview',
} as const;

export const TARGET_TYPES = ['SERVICE', 'DEDICATED', 'TEMPLATES', 'CONFIG', 'DATABASE', 'STATE_SYNC'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** A backup record as GET /api/backups answers it (times ISO-8601 UTC). */
export interface Backup {
  id: number;
  targetType: string;
  targetName: string;
  scheduleClass: string;
  scheduleName: string;
  startedAt: string;
  completedAt: string | null;
  status: string;
  sizeBytes: number;
  archivePath: string;
  checksum: string;
  errorMessage: string | null;
  nodeId: string;
  triggeredBy: string;
}

export interface BackupList {
  backups: Backup[];
  total: number;
}

export interface ScheduleView {
  name: string;
  cron: string;
  retentionClass: string;
  targets: string[];
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastStatus: string;
}

export interface Status {
  activeJobs: number;
  localDestination: string;
  schedules: ScheduleView[];
}

export interface Schedule {
  name: string;
  cron: string;
  retentionClass: string;
  targets: string[];
}

export interface Scope {
  services: boolean;
  dedicated: boolean;
  templates: boolean;
  controllerConfig: boolean;
  stateSync: boolean;
  database: boolean;
}

export interface Retention {
  hourlyKeep: number;
  dailyKeep: number;
  weeklyKeep: number;
  monthlyKeep: number;
  keepManual: boolean;
  failedKeepDays: number;
}

export interface BackupConfig {
  enabled: boolean;
  localDestination: string;
  maxConcurrent: number;
  compressionLevel: number;
  compressionWorkers: number;
  quiesceServices: boolean;
  quiesceWaitSeconds: number;
  timezone: string;
  includeAuthKey: boolean;
  scope: Scope;
  excludes: string[];
  schedules: Schedule[];
  retention: Retention;
}

/** Fields the API changes only for the operator (an admin token or an admin session). */
export const OPERATOR_FIELDS = ['localDestination', 'includeAuthKey'] as const;

export interface RestoreAnswer {
  id: number;
  dryRun: boolean;
  filesExtracted: number;
  /** Files in archive order; a dry run lists folders too, with a trailing '/'. */
  files: string[];
  /** Where the files went (or would go), relative to the controller's folder. */
  targetPath: string;
}

export interface VerifyAnswer {
  valid: boolean;
  errors: string[];
}

export interface PruneAnswer {
  deleted: number;
  freedBytes: number;
  errors: string[];
  dryRun: boolean;
}

/** Query keys: everything under ALL is read again on the module's events. */
export const KEYS = {
  all: ['backups'] as const,
  list: ['backups', 'list'] as const,
  recent: ['backups', 'recent'] as const,
  status: ['backups', 'status'] as const,
  schedules: ['backups', 'schedules'] as const,
  config: ['backups', 'config'] as const,
};

/** The module's events the page follows. */
export const BACKUP_EVENTS: ReadonlySet<string> = new Set(['BACKUP_STARTED', 'BACKUP_COMPLETED', 'BACKUP_FAILED', 'BACKUP_RESTORED', 'BACKUP_PRUNED']);

export const RETENTION_CLASSES = ['manual', 'hourly', 'daily', 'weekly', 'monthly'] as const;

/** What each target type is, in the page's words. */
export const TYPE_LABELS: Readonly<Record<TargetType, string>> = {
  SERVICE: 'Service',
  DEDICATED: 'Dedicated service',
  TEMPLATES: 'Templates',
  CONFIG: 'Controller config',
  DATABASE: 'Database',
  STATE_SYNC: 'Synced state',
};

/** The target types, as the trigger, the schedules and the scope name them. */
export interface TargetKind {
  type: TargetType;
  /** The word the trigger and a schedule's targets use. */
  word: string;
  /** Other words the API reads as the same type (kept in a schedule as they are). */
  aliases: readonly string[];
  scope: keyof Scope;
  label: string;
  covers: string;
}

export const TARGET_KINDS: readonly TargetKind[] = [
  { type: 'SERVICE', word: 'services', aliases: ['service'], scope: 'services', label: 'Services', covers: 'each game server’s folder (not dedicated ones); a running server’s saving is paused while it is archived' },
  { type: 'DEDICATED', word: 'dedicated', aliases: [], scope: 'dedicated', label: 'Dedicated services', covers: 'each dedicated service’s folder' },
  { type: 'TEMPLATES', word: 'templates', aliases: [], scope: 'templates', label: 'Templates', covers: 'the templates folder' },
  { type: 'CONFIG', word: 'config', aliases: ['controller_config'], scope: 'controllerConfig', label: 'Controller config', covers: 'the controller’s config folder (holds credentials)' },
  { type: 'DATABASE', word: 'database', aliases: [], scope: 'database', label: 'Database', covers: 'a consistent copy of the controller’s database (holds credentials)' },
  { type: 'STATE_SYNC', word: 'state_sync', aliases: ['state'], scope: 'stateSync', label: 'Synced state', covers: 'the services’ synced state folder' },
];

/** Archives whose download a session may take only with .manage (the route's rule; a tree holding the controller's secrets is refused too, by the server). */
export const CREDENTIAL_TYPES: ReadonlySet<string> = new Set(['CONFIG', 'DATABASE']);

/** "service Lobby-1", "the database", "the templates". */
export function targetText(b: Pick<Backup, 'targetType' | 'targetName'>): string {
  switch (b.targetType) {
    case 'SERVICE':
      return `service ${b.targetName}`;
    case 'DEDICATED':
      return `dedicated service ${b.targetName}`;
    case 'TEMPLATES':
      return 'the templates';
    case 'CONFIG':
      return 'the controller config';
    case 'DATABASE':
      return 'the database';
    case 'STATE_SYNC':
      return 'the synced state';
    default:
      return `${b.targetType.toLowerCase()} ${b.targetName}`;
  }
}

/** A record's status in words. */
export const STATUS_LABELS: Readonly<Record<string, string>> = {
  RUNNING: 'Running',
  SUCCESS: 'Succeeded',
  FAILED: 'Failed',
  PARTIAL: 'Partial',
};

/** Who started it: the scheduler, the console, the API token, or a dashboard user. */
export function byText(triggeredBy: string): string {
  if (triggeredBy === 'scheduler') return 'the scheduler';
  if (triggeredBy === 'console') return 'the console';
  if (triggeredBy.startsWith('dashboard:')) return triggeredBy.slice('dashboard:'.length);
  if (triggeredBy === 'api:admin') return 'the API token';
  if (triggeredBy.startsWith('api:')) return `the ${triggeredBy.slice(4).replace(/:/g, ' ')} credential`;
  return triggeredBy;
}

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
}

/** "0.4 s", "12 s", "3 min 5 s", "2 h 10 min". */
export function spanText(ms: number): string {
  if (ms < 100) return 'under 0.1 s';
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const SHORT = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

export const dateText = (iso: string | number): string => DATE.format(new Date(iso));
export const shortDateText = (iso: string | number): string => SHORT.format(new Date(iso));

/** "in 42 min", "in 3 h", "in 2 days", "5 min ago". */
export function relativeText(at: number, now: number): string {
  const diff = at - now;
  const ahead = diff >= 0;
  const abs = Math.abs(diff);
  let text: string;
  if (abs < 60_000) text = `${Math.max(1, Math.round(abs / 1000))} s`;
  else if (abs < 3_600_000) text = `${Math.round(abs / 60_000)} min`;
  else if (abs < 48 * 3_600_000) text = `${Math.round(abs / 3_600_000)} h`;
  else text = `${Math.round(abs / 86_400_000)} days`;
  return ahead ? `in ${text}` : `${text} ago`;
}

