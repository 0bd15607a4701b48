import type { EventBus } from '../../events/bus';
import { specOf, type SvcEvent } from '../../events/catalogue';
import type { Logger } from '../../log';
import type { AuditStore } from './store';

/** Data keys that name what an event is about, in order of preference. */
const TARGET_KEYS = ['service', 'group', 'name', 'scope', 'uuid', 'nodeId', 'moduleId', 'sessionId', 'id', 'track'];

/**
 * Writes the audited subset of events (catalogue `audit` rule) to the audit table, as one of
 * the bus's recorders: the row is written in the transaction of the change it records when the
 * publisher has one, and a row that cannot be written fails that change (or the request that
 * made it) instead of being dropped with a log line. `log` is kept for callers; failures are
 * reported by the bus.
 */
export function recordAuditedEvents(bus: EventBus, store: AuditStore, _log?: Logger): () => void {
  return bus.subscribe(
    (event) => {
      if (!isAudited(event)) return;
      store.record({ actor: event.actor, action: event.type, target: targetOf(event), details: detailsOf(event.data), at: Date.parse(event.timestamp) });
    },
    { records: 'the audit log entry' },
  );
}

export function isAudited(event: SvcEvent): boolean {
  const rule = specOf(event.type)?.audit ?? 'never';
  return rule === 'always' || (rule === 'actor' && event.actor !== 'system');
}

function targetOf(event: SvcEvent): string {
  const named = specOf(event.type)?.auditTarget;
  if (named !== undefined && event.data[named]) return String(event.data[named]);
  for (const key of TARGET_KEYS) {
    const value = event.data[key];
    if (value) return value;
  }
  return '';
}

/** `key=value, key=value`: readable in a table cell, still parseable. */
export function detailsOf(data: Record<string, string | number | boolean>): string {
  return Object.entries(data)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}
