/**
 * A service's timeline from what the API offers, pure. The audit log keeps the steps a person
 * or an API caller caused, with who (SERVICE_STARTING, _STOPPING, _DRAINING when not the
 * controller's own doing; SERVICE_DEPLOYED and the sync pushes always); the live events add what
 * happens while the page is open (READY, crashes, the controller's own starts and stops); the
 * record adds what it knows of the current run (when its process started, that it is READY or
 * CRASHED and why). Who did a step: the audit entry's actor; a step of the kind the audit keeps
 * for people but with no entry once the audit was read after it was the controller's own
 * (`system`); READY, STOPPED and crashes are always the controller's observation.
 */
import type { AuditEntry, ServiceRecord } from './model';

/** A frame of /api/events (live.ts's LiveEvent; spelled out so this file needs nothing of the page's). */
export interface LiveEvent {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}

export interface TimelineItem {
  /** ms since the epoch; null when the time is not known (happened before the page was opened and is not kept). */
  at: number | null;
  /** For a step of unknown time: it came after this time (its run's start), which places it in the list. */
  after?: number;
  /** The event type (SERVICE_READY, …). */
  type: string;
  label: string;
  /** Who or what caused it; null while the audit log has not been read since. */
  actor: string | null;
  detail: string;
  key: string;
}

/** A live event with the time the page heard it (page clock). */
export interface HeardEvent {
  event: LiveEvent;
  heardAt: number;
}

/** The audit log's entries about one service, as read at `readAt` (page clock). */
export interface AuditView {
  entries: AuditEntry[];
  readAt: number;
}

/** Events that are audited when a person or API caller caused them (the catalogue's `actor` rule). */
export const AUDITED_WITH_ACTOR = ['SERVICE_STARTING', 'SERVICE_DRAINING', 'SERVICE_STOPPING', 'SYNC_COMPLETED', 'SYNC_FAILED'] as const;
/** The audit actions read for a timeline (those plus the ones always audited). */
export const TIMELINE_ACTIONS = [...AUDITED_WITH_ACTOR, 'SERVICE_DEPLOYED'] as const;

const LABELS: Record<string, string> = {
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
  SCALE_DOWN: 'Scaled down',
  GROUP_QUARANTINED: 'Group quarantined',
};

/** Whether a live event belongs on the timeline of `name`. */
export function aboutService(event: LiveEvent, name: string): boolean {
  return event.data.service === name && event.type in LABELS;
}

/** An audit entry and a live event this close together (same type) are one step. */
const SAME_STEP_MS = 2_000;
/** A record's start time this close after a SERVICE_STARTING is that start. */
const START_SLACK_MS = 60_000;

export function buildTimeline(name: string, audit: AuditView | null, heard: readonly HeardEvent[], record: ServiceRecord | null): TimelineItem[] {
  const items: TimelineItem[] = [];
  const entries = (audit?.entries ?? []).filter((e) => e.target === name);
  for (const e of entries) {
    const at = Date.parse(e.timestamp);
    items.push({ at, type: e.action, label: LABELS[e.action] ?? e.action, actor: e.actor, detail: detailOf(e.action, parseDetails(e.details)), key: `a-${e.action}-${at}` });
  }
  for (const { event, heardAt } of heard) {
    const at = Date.parse(event.timestamp);
    const audited = (AUDITED_WITH_ACTOR as readonly string[]).includes(event.type);
    if (audited && entries.some((e) => e.action === event.type && Math.abs(Date.parse(e.timestamp) - at) <= SAME_STEP_MS)) continue;
    const actor = !audited || (audit !== null && audit.readAt > heardAt) ? 'system' : null;
    items.push({ at, type: event.type, label: LABELS[event.type] ?? event.type, actor, detail: detailOf(event.type, event.data), key: `l-${event.type}-${at}-${heardAt}` });
  }
  addWhatTheRecordKnows(items, record);
  markRestarts(items);
  return items.sort(newestFirst);
}

function addWhatTheRecordKnows(items: TimelineItem[], record: ServiceRecord | null): void {
  if (!record?.startedAt) return;
  const started = Date.parse(record.startedAt);
  const starts = items.filter((i) => i.type === 'SERVICE_STARTING' && i.at !== null && i.at <= started + SAME_STEP_MS && started - i.at <= START_SLACK_MS);
  if (starts.length === 0) {
    // No start in the audit log: the controller started it itself (the log keeps starts by people).
    items.push({ at: started, type: 'SERVICE_STARTING', label: 'Started', actor: 'system', detail: 'its process started (from the record)', key: `r-start-${started}` });
  }
  const runStart = Math.min(started, ...starts.map((i) => i.at!));
  const since = (type: string) => items.some((i) => i.type === type && (i.at === null || i.at >= runStart));
  if ((record.state === 'READY' || record.state === 'DRAINING') && !since('SERVICE_READY')) {
    items.push({ at: null, after: runStart, type: 'SERVICE_READY', label: 'READY', actor: 'system', detail: 'before this page was opened (the time is not kept)', key: 'r-ready' });
  }
  if (record.state === 'CRASHED' && !since('SERVICE_CRASHED')) {
    items.push({ at: null, after: runStart, type: 'SERVICE_CRASHED', label: 'Crashed', actor: 'system', detail: record.diagnosis ?? 'it ended without a known reason', key: 'r-crashed' });
  } else if (record.diagnosis) {
    // The record's diagnosis is of its last failure: the newest crash heard (a restart may have followed it).
    const crash = items.filter((i) => i.type === 'SERVICE_CRASHED' && i.at !== null).sort(newestFirst)[0];
    if (crash) crash.detail = `${crash.detail}: ${record.diagnosis}`;
  }
}

/** A start right after a stop or a crash is a restart, and says so. */
function markRestarts(items: TimelineItem[]): void {
  const chronological = items.filter((i) => i.at !== null).sort((a, b) => a.at! - b.at!);
  let previous: TimelineItem | undefined;
  for (const item of chronological) {
    if (item.type === 'SERVICE_STARTING' && previous && (previous.type === 'SERVICE_CRASHED' || previous.type === 'SERVICE_STOPPED' || previous.type === 'SERVICE_STOPPING')) {
      item.label = previous.type === 'SERVICE_CRASHED' ? 'Restarted after the crash' : 'Restarted';
    }
    previous = item;
  }
}

/** Newest first; a step of unknown time right above the start of its run. */
function newestFirst(a: TimelineItem, b: TimelineItem): number {
  const time = (i: TimelineItem) => i.at ?? (i.after ?? 0) + 0.5;
  return time(b) - time(a);
}

function parseDetails(details: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const part of details.split(', ')) {
    const eq = part.indexOf('=');
    if (eq > 0) data[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return data;
}

function detailOf(type: string, data: Record<string, string | undefined>): string {
  switch (type) {
    case 'SERVICE_STARTING':
      return data.port ? `on port ${data.port}` : '';
    case 'SERVICE_CRASHED':
      return `exit code ${data.exitCode ?? '?'}${data.restartAttempt && data.restartAttempt !== '0' ? `, restart attempt ${data.restartAttempt}` : ''}`;
    case 'SERVICE_DEPLOYED':
      return `${data.filesChanged ?? '?'} files changed`;
    case 'SERVICE_CUSTOM_STATE_CHANGED':
      return `${data.oldState || '(none)'} → ${data.newState || '(none)'}`;
    case 'SYNC_FAILED':
    case 'SCALE_DOWN':
    case 'GROUP_QUARANTINED':
      return data.reason ?? '';
    case 'SYNC_COMPLETED':
      return `${data.filesReceived ?? '?'} files received`;
    default:
      return '';
  }
}
