/**
 * A service's timeline, newest first (timeline-model.ts): starts, READY, crashes with their
 * diagnosis, restarts and stops, each with who or what caused it. The audit entries about the
 * service are read once and again after each step the audit may hold an actor for.
 */
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { auditKey, type AuditEntry, type ServiceRecord } from './model';
import { buildTimeline, TIMELINE_ACTIONS, type AuditView, type HeardEvent } from './timeline-model';

/** Audit entries read per action: a service's history, not the whole log. */
const PER_ACTION = 100;

async function readAudit(): Promise<AuditView> {
  const readAt = Date.now();
  const pages = await Promise.all(TIMELINE_ACTIONS.map((action) => api<{ entries: AuditEntry[] }>(`/api/audit?limit=${PER_ACTION}&action=${action}`)));
  return { entries: pages.flatMap((p) => p.entries), readAt };
}

/** The time of a step: of day when it is today's, with the date otherwise. */
function when(at: number | null): string {
  if (at === null) return 'earlier';
  const date = new Date(at);
  return date.toDateString() === new Date().toDateString() ? date.toLocaleTimeString() : date.toLocaleString();
}

const ACTORS: Record<string, string> = { system: 'the controller', console: 'the controller console' };
const actorText = (actor: string | null) => (actor === null ? 'checking…' : (ACTORS[actor] ?? actor));

export function Timeline({ name, heard, record }: { name: string; heard: readonly HeardEvent[]; record: ServiceRecord | null }) {
  const audit = useQuery({ queryKey: auditKey(name), queryFn: readAudit });
  const items = buildTimeline(name, audit.data ?? null, heard, record);
  return (
    <section class="service-panel service-timeline" aria-labelledby="service-timeline-title">
      <h2 id="service-timeline-title">Timeline</h2>
      {audit.isError && (
        <p class="error" role="alert">
          The audit log could not be read ({audit.error.message}): who started or stopped it is not known; events heard on this page are shown.
        </p>
      )}
      {items.length === 0 ? (
        <p class="service-muted">Nothing recorded yet.</p>
      ) : (
        <ol class="service-steps" aria-label="Timeline steps">
          {items.map((item) => (
            <li key={item.key} data-type={item.type}>
              <time dateTime={item.at === null ? undefined : new Date(item.at).toISOString()}>{when(item.at)}</time>
              <span class="service-step">
                <strong>{item.label}</strong>
                {item.detail && <span class="service-step-detail"> {item.detail}</span>}
              </span>
              <span class="service-actor">by {actorText(item.actor)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
