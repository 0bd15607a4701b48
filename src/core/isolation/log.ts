import type { Logger } from '../../log';
import { isolationLabel, type Isolation } from './resolve';

/** The mode chosen at start, once, in the log: a warning when services run with this process's own rights. */
export function logIsolation(log: Logger, isolation: Isolation, tightened: readonly string[]): void {
  const label = isolationLabel(isolation);
  if (label === 'none') {
    log.warn({ isolation: label, reason: isolation.reason }, 'services are NOT isolated: any game server (any plugin) can read the token, the config and every other service\'s files, and write wherever svc can');
  } else {
    log.info({ isolation: label, reason: isolation.reason }, `services isolated: ${label}`);
  }
  if (tightened.length > 0) log.info({ paths: tightened }, `tightened the modes of ${tightened.length} path(s) for uid isolation`);
}
