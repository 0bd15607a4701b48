/**
 * A service's timeline, newest first (timeline-model.ts): starts, READY, crashes with their
 * diagnosis, restarts, stops, scaling, deploys, pushes, migrations and backups, each with who or
 * what caused it. What the controller kept is read once and again after each step heard live.
 */
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { actorWords } from '../../event-words';
import { servicePath, timelineKey, type ServiceRecord } from './model';
import { buildTimeline, type HeardEvent, type KeptStep, type KeptView } from './timeline-model';

/** Steps read: the service's recent history (the controller keeps it for [metrics] retention_days). */
const STEPS = 100;

async function readTimeline(name: string): Promise<KeptView> {
  const readAt = Date.now();
  const { steps } = await api<{ steps: KeptStep[] }>(servicePath(name, `/timeline?limit=${STEPS}`));
  return { steps, readAt };
}

/** The time of a step: of day when it is today's, with the date otherwise. */
function when(at: number | null): string {
  if (at === null) return 'earlier';
  const date = new Date(at);
  return date.toDateString() === new Date().toDateString() ? date.toLocaleTimeString() : date.toLocaleString();
}


export function Timeline({ name, heard, record }: { name: string; heard: readonly HeardEvent[]; record: ServiceRecord | null }) {
  const kept = useQuery({ queryKey: timelineKey(name), queryFn: () => readTimeline(name) });
  const items = buildTimeline(kept.data ?? null, heard, record);
  return (
    <section class="service-panel service-timeline" aria-labelledby="service-timeline-title">
      <h2 id="service-timeline-title">Timeline</h2>
      {kept.isError && (
        <p class="error" role="alert">
          The timeline could not be read ({kept.error.message}): the steps heard on this page are shown, without who caused them.
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
              <span class="service-actor">by {actorWords(item.actor)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
