/**
 * Backup retention planner: decides which backup rows a prune removes. Pure (no I/O, no clock):
 * the caller passes the rows, the policy and `now`, then deletes the files and rows of `remove`.
 *
 * Policy ("GFS" as in the reference: an independent keep-N per class, no promotion between classes):
 * - Rows are grouped by (targetType, targetName, scheduleClass); groups never affect each other.
 * - Budget candidates are SUCCESS rows and PARTIAL rows that HAVE an archive, newest first
 *   (later startedAt, then higher id). The first N of the class's keep survive, the rest are removed.
 *   A keep of 0 removes every candidate of that class.
 * - PARTIAL rows WITHOUT an archive are records of a skipped source, not backups: they never use up the
 *   budget (the reference let 24 of them push every real hourly archive out). They age out like FAILED rows.
 * - RUNNING rows are never removed.
 * - FAILED rows and archive-less PARTIAL rows whose startedAt is more than failedKeepDays days before
 *   `now` are removed when failedKeepDays > 0 and no class filter is given. This applies to every class:
 *   such rows hold no archive, so removing an old one loses nothing.
 * - Manual rows: keepManual=true keeps every manual archive forever. keepManual=false does NOT mean
 *   "keep none" (the prune runs hourly, so that would delete a backup an operator made before an upgrade
 *   within the hour); manual archives then follow the daily budget, dailyKeep newest per target.
 *   A manual backup is an ad-hoc "snapshot of today", closest in lifetime to a daily one, and the rule
 *   uses only numbers the operator already configured.
 * - Unknown classes have no budget: their archives are kept.
 * - `onlyClass` (the prune route's retentionClass) restricts the plan to that class's budget; failed and
 *   archive-less rows are then left alone.
 * Class names are compared case-insensitively (the API spec spells them HOURLY…, the store lowercase).
 */

export type RetentionStatus = 'RUNNING' | 'SUCCESS' | 'FAILED' | 'PARTIAL';

export interface RetentionRow {
  id: number;
  targetType: string;
  targetName: string;
  /** hourly | daily | weekly | monthly | manual | anything else (kept). */
  scheduleClass: string;
  status: RetentionStatus;
  /** Epoch ms. */
  startedAt: number;
  /** '' when the row has no archive. */
  archivePath: string;
  sizeBytes: number;
}

export interface RetentionPolicy {
  hourlyKeep: number;
  dailyKeep: number;
  weeklyKeep: number;
  monthlyKeep: number;
  keepManual: boolean;
  failedKeepDays: number;
}

export interface PrunePlan<T extends RetentionRow = RetentionRow> {
  /** Rows to delete, oldest first (the very objects given). */
  remove: T[];
  /** Sum of sizeBytes of the removed rows that have an archive. */
  freedBytes: number;
  /** Removed rows per (lowercase) schedule class; classes with nothing removed are absent. */
  byClass: Record<string, number>;
}

const DAY_MS = 86_400_000;

/** How many archives of a class survive; Infinity = all (unknown class, manual with keepManual, bad value). */
function keepFor(cls: string, policy: RetentionPolicy): number {
  const n = (() => {
    switch (cls) {
      case 'hourly': return policy.hourlyKeep;
      case 'daily': return policy.dailyKeep;
      case 'weekly': return policy.weeklyKeep;
      case 'monthly': return policy.monthlyKeep;
      case 'manual': return policy.keepManual ? Infinity : policy.dailyKeep;
      default: return Infinity;
    }
  })();
  // A negative or non-numeric keep is a config error; keeping everything is the safe reading.
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : Infinity;
}

const hasArchive = (r: RetentionRow): boolean => r.archivePath !== '';

/** Newest first: later startedAt, then higher id. */
const newestFirst = (a: RetentionRow, b: RetentionRow): number => b.startedAt - a.startedAt || b.id - a.id;

export function planPrune<T extends RetentionRow>(rows: readonly T[], policy: RetentionPolicy, now: number, onlyClass?: string): PrunePlan<T> {
  const only = onlyClass?.toLowerCase();
  const remove: T[] = [];

  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const cls = row.scheduleClass.toLowerCase();
    if (only !== undefined && cls !== only) continue;
    const isCandidate = row.status === 'SUCCESS' || (row.status === 'PARTIAL' && hasArchive(row));
    if (isCandidate) {
      const key = JSON.stringify([row.targetType, row.targetName, cls]);
      const group = groups.get(key);
      if (group) group.push(row);
      else groups.set(key, [row]);
    } else if (row.status !== 'RUNNING' && only === undefined && policy.failedKeepDays > 0) {
      // FAILED, or PARTIAL without an archive.
      if (row.startedAt < now - policy.failedKeepDays * DAY_MS) remove.push(row);
    }
  }

  for (const group of groups.values()) {
    const keep = keepFor(group[0]!.scheduleClass.toLowerCase(), policy);
    if (group.length > keep) remove.push(...group.sort(newestFirst).slice(keep));
  }

  remove.sort((a, b) => -newestFirst(a, b));
  const byClass: Record<string, number> = {};
  let freedBytes = 0;
  for (const row of remove) {
    const cls = row.scheduleClass.toLowerCase();
    byClass[cls] = (byClass[cls] ?? 0) + 1;
    if (hasArchive(row)) freedBytes += row.sizeBytes;
  }
  return { remove, freedBytes, byClass };
}
