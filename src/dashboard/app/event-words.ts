/**
 * Event types and actors in words, for the timelines (the network's and a service's). A type
 * without words of its own reads as a sentence made of its name (GROUP_CREATED: "Group created").
 */
const WORDS: Readonly<Record<string, string>> = {
  SERVICE_PREPARED: 'Prepared',
  SERVICE_STARTING: 'Starting',
  SERVICE_READY: 'READY',
  SERVICE_DRAINING: 'Draining',
  SERVICE_STOPPING: 'Stopping',
  SERVICE_STOPPED: 'Stopped',
  SERVICE_CRASHED: 'Crashed',
  SERVICE_RECOVERED: 'Re-attached after a controller restart',
  SERVICE_DEPLOYED: 'Deployed to its template',
  SERVICE_CUSTOM_STATE_CHANGED: 'Custom state changed',
  SYNC_COMPLETED: 'State pushed',
  SYNC_FAILED: 'State push failed',
  SCALE_UP: 'Scaled up',
  SCALE_DOWN: 'Scaled down',
  PLACEMENT_BLOCKED: 'A start is blocked',
  GROUP_QUARANTINED: 'Group quarantined',
  GROUP_QUARANTINE_LIFTED: 'Quarantine lifted',
  BACKUP_STARTED: 'Backup started',
  BACKUP_COMPLETED: 'Backed up',
  BACKUP_FAILED: 'Backup failed',
  BACKUP_RESTORED: 'Restored from a backup',
  CONFIG_RELOADED: 'Configuration reloaded',
  API_STARTED: 'API started',
  API_STOPPED: 'API stopped',
  API_ERROR: 'API error',
  MOTD_UPDATED: 'MOTD changed',
  TABLIST_UPDATED: 'Tab list changed',
  CHAT_FORMAT_UPDATED: 'Chat format changed',
  SVC_UPDATE_AVAILABLE: 'An svc update is available',
  SVC_UPDATE_APPLIED: 'svc updated',
};

export function eventWords(type: string): string {
  const words = WORDS[type];
  if (words) return words;
  const sentence = type.toLowerCase().replaceAll('_', ' ');
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

const ACTORS: Readonly<Record<string, string>> = {
  system: 'the controller',
  console: 'the controller console',
  autoscaler: 'the autoscaler',
  'crash-handler': 'the crash handler',
  scheduler: 'the scheduler',
  unrecorded: 'unknown (not recorded)',
};

/** Who or what did it, in words: `checking…` while not known yet (null). */
export function actorWords(actor: string | null): string {
  return actor === null ? 'checking…' : (ACTORS[actor] ?? actor);
}
