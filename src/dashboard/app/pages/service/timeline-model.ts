/**
 * A service's timeline, pure: what the controller kept of the service (GET
 * /api/services/{name}/timeline: every lifecycle step with who or what caused it, also those
 * before the page was opened), the live events heard since (shown at once; who caused them is
 * known once the timeline is read again, which the page does after each), and what the record
 * knows of the current run for a run the controller kept nothing of (it began under a version
 * without the timeline).
 */
import type { ServiceRecord } from './model';
import { eventWords } from '../../event-words';

/** A frame of /api/events (live.ts's LiveEvent; spelled out so this file needs nothing of the page's). */
export interface LiveEvent {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}

/** A step as the controller kept it. */
export interface KeptStep {
  timestamp: string;
  type: string;
  actor: string;
  data: Record<string, string>;
}

export interface TimelineItem {
  /** ms since the epoch; null when the time is not known (a run the controller kept nothing of). */
  at: number | null;
  /** For a step of unknown time: it came after this time (its run's start), which places it in the list. */
  after?: number;
  /** The event type (SERVICE_READY, …). */
  type: string;
  label: string;
  /** Who or what caused it; null while the timeline has not been read since it was heard. */
  actor: string | null;
  detail: string;
  key: string;
}

/** A live event with the time the page heard it (page clock). */
export interface HeardEvent {
  event: LiveEvent;
  heardAt: number;
}

/** The kept steps of one service, as read at `readAt` (page clock). */
export interface KeptView {
  steps: KeptStep[];
  readAt: number;
}

/** The events about one service that belong on its timeline. */
const SERVICE_STEPS: ReadonlySet<string> = new Set([
  'SERVICE_PREPARED',
  'SERVICE_STARTING',
  'SERVICE_READY',
  'SERVICE_DRAINING',
  'SERVICE_STOPPING',
  'SERVICE_STOPPED',
  'SERVICE_CRASHED',
  'SERVICE_RECOVERED',
  'SERVICE_DEPLOYED',
  'SERVICE_CUSTOM_STATE_CHANGED',
  'SYNC_COMPLETED',
  'SYNC_FAILED',
  'SCALE_DOWN',
  'GROUP_QUARANTINED',
]);

/** Whether a live event belongs on the timeline of `name`. */
export function aboutService(event: LiveEvent, name: string): boolean {
  return event.data.service === name && SERVICE_STEPS.has(event.type);
}

/** Whether a live event changes what the controller kept about `name` (the timeline is read again). */
export function changesTimeline(event: LiveEvent, name: string): boolean {
  return aboutService(event, name) || (event.type.startsWith('BACKUP_') && event.data.targetName === name);
}

/** A kept step and a heard event of the same type this close together are one step. */
const SAME_STEP_MS = 2_000;
/** A record's start time this close after a SERVICE_STARTING is that start. */
const START_SLACK_MS = 60_000;

export function buildTimeline(kept: KeptView | null, heard: readonly HeardEvent[], record: ServiceRecord | null): TimelineItem[] {
  const items: TimelineItem[] = [];
  const steps = kept?.steps ?? [];
  for (const step of steps) {
    const at = Date.parse(step.timestamp);
    items.push({ at, type: step.type, label: eventWords(step.type), actor: step.actor, detail: detailOf(step.type, step.data), key: `k-${step.type}-${at}` });
  }
  for (const { event, heardAt } of heard) {
    const at = Date.parse(event.timestamp);
    if (steps.some((s) => s.type === event.type && Math.abs(Date.parse(s.timestamp) - at) <= SAME_STEP_MS)) continue;
    // Read after it was heard and still not there: the controller could not keep it (its disk, say).
    const actor = kept !== null && kept.readAt > heardAt ? 'unrecorded' : null;
    items.push({ at, type: event.type, label: eventWords(event.type), actor, detail: detailOf(event.type, event.data), key: `l-${event.type}-${at}-${heardAt}` });
  }
  addWhatTheRecordKnows(items, record);
  markRestartsAndMoves(items, steps);
  return items.sort(newestFirst);
}

function addWhatTheRecordKnows(items: TimelineItem[], record: ServiceRecord | null): void {
  if (!record?.startedAt) return;
  const started = Date.parse(record.startedAt);
  const starts = items.filter((i) => i.type === 'SERVICE_STARTING' && i.at !== null && i.at <= started + SAME_STEP_MS && started - i.at <= START_SLACK_MS);
  if (starts.length === 0) {
    // A run the controller kept no start of (it began under a version without the timeline).
    items.push({ at: started, type: 'SERVICE_STARTING', label: 'Started', actor: 'unrecorded', detail: 'its process started (from the record)', key: `r-start-${started}` });
  }
  const runStart = Math.min(started, ...starts.map((i) => i.at!));
  const since = (type: string) => items.some((i) => i.type === type && (i.at === null || i.at >= runStart));
  if ((record.state === 'READY' || record.state === 'DRAINING') && !since('SERVICE_READY')) {
    items.push({ at: null, after: runStart, type: 'SERVICE_READY', label: 'READY', actor: 'system', detail: 'its time was not kept (the run began before the timeline was)', key: 'r-ready' });
  }
  if (record.state === 'CRASHED' && !since('SERVICE_CRASHED')) {
    items.push({ at: null, after: runStart, type: 'SERVICE_CRASHED', label: 'Crashed', actor: 'system', detail: record.diagnosis ?? 'it ended without a known reason', key: 'r-crashed' });
  } else if (record.diagnosis) {
    // The record's diagnosis is of its last failure: the newest crash heard (a restart may have followed it).
    const crash = items.filter((i) => i.type === 'SERVICE_CRASHED' && i.at !== null).sort(newestFirst)[0];
    if (crash) crash.detail = `${crash.detail}: ${record.diagnosis}`;
  }
}

/**
 * A start right after a stop or a crash is a restart, and says so; a start on another node than
 * the run before it (a migration) says where it moved.
 */
function markRestartsAndMoves(items: TimelineItem[], steps: readonly KeptStep[]): void {
  const nodeAt = new Map(steps.filter((s) => s.type === 'SERVICE_STARTING' && s.data.node).map((s) => [Date.parse(s.timestamp), s.data.node!]));
  const chronological = items.filter((i) => i.at !== null).sort((a, b) => a.at! - b.at!);
  let previous: TimelineItem | undefined;
  let previousNode: string | undefined;
  for (const item of chronological) {
    if (item.type === 'SERVICE_STARTING') {
      const node = nodeAt.get(item.at!);
      if (node && previousNode && node !== previousNode) item.label = `Moved to node ${node}`;
      else if (previous && (previous.type === 'SERVICE_CRASHED' || previous.type === 'SERVICE_STOPPED' || previous.type === 'SERVICE_STOPPING')) {
        item.label = previous.type === 'SERVICE_CRASHED' ? 'Restarted after the crash' : 'Restarted';
      }
      if (node) previousNode = node;
    }
    previous = item;
  }
}

/** Newest first; a step of unknown time right above the start of its run. */
function newestFirst(a: TimelineItem, b: TimelineItem): number {
  const time = (i: TimelineItem) => i.at ?? (i.after ?? 0) + 0.5;
  return time(b) - time(a);
}

function detailOf(type: string, data: Record<string, string | undefined>): string {
  const why = data.reason ? ` (${data.reason})` : '';
  switch (type) {
    case 'SERVICE_STARTING':
      return `${data.port ? `on port ${data.port}` : ''}${data.node && data.node !== 'local' ? ` of node ${data.node}` : ''}${why}`.trim();
    case 'SERVICE_DRAINING':
    case 'SERVICE_STOPPING':
      return why.trim();
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
    case 'BACKUP_STARTED':
      return `#${data.id ?? '?'}`;
    case 'BACKUP_COMPLETED':
      return `#${data.id ?? '?'}, ${mib(data.sizeBytes)} in ${seconds(data.durationMs)}`;
    case 'BACKUP_FAILED':
      return `#${data.id ?? '?'}: ${data.reason ?? 'no reason given'}`;
    case 'BACKUP_RESTORED':
      return `#${data.id ?? '?'} into ${data.targetPath ?? '?'}`;
    default:
      return '';
  }
}

const mib = (bytes: string | undefined) => (bytes === undefined ? '? MiB' : `${(Number(bytes) / 1_048_576).toFixed(1)} MiB`);
const seconds = (ms: string | undefined) => (ms === undefined ? '? s' : `${(Number(ms) / 1000).toFixed(1)} s`);
