/**
 * The backup schedules' cron expressions: five fields (minute hour day-of-month month
 * day-of-week) in the config's IANA time zone, read as cronie reads them (POSIX day rule,
 * clock-change rules), computed by the `cron` package through the adapter shared with smart
 * scaling (src/core/time/cron-adapter.ts, whose header lists where and why it stands between
 * the package and the schedules).
 */
export { firesAt, nextRun, validateCron } from '../../core/time/cron-adapter';
export { canonicalTimeZone, isValidTimeZone, machineTimeZone } from '../../core/time/zone';
