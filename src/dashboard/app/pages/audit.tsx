import { useState } from 'preact/hooks';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { api } from '../api';

interface AuditEntry {
  timestamp: string;
  actor: string;
  action: string;
  target: string;
  details: string;
}
interface AuditPage {
  entries: AuditEntry[];
  limit: number;
  offset: number;
  total: number;
}

const PAGE_SIZE = 50;

/** The audit log, newest first: filtered by action and actor (exact, as the API matches), a page at a time. */
export function Audit() {
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [offset, setOffset] = useState(0);
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
  if (action.trim()) query.set('action', action.trim());
  if (actor.trim()) query.set('actor', actor.trim());
  const page = useQuery({ queryKey: ['audit', query.toString()], queryFn: () => api<AuditPage>(`/api/audit?${query}`), placeholderData: keepPreviousData });
  const filter = (set: (v: string) => void) => (event: Event) => {
    set((event.target as HTMLInputElement).value);
    setOffset(0);
  };
  // The range shown is the one the table holds (a page being fetched keeps the previous one).
  const total = page.data?.total ?? 0;
  const from = page.data?.offset ?? 0;
  const shown = page.data?.entries.length ?? 0;
  return (
    <section>
      <h1>Audit</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Action
          <input value={action} onInput={filter(setAction)} placeholder="e.g. SERVICE_STARTED" />
        </label>
        <label>
          Actor
          <input value={actor} onInput={filter(setActor)} placeholder="e.g. api:admin" />
        </label>
      </form>
      {page.isError && <p role="alert">{page.error.message}</p>}
      <table class="stack">
        <thead>
          <tr><th>Time</th><th>Actor</th><th>Action</th><th>Target</th><th>Details</th></tr>
        </thead>
        <tbody>
          {page.data?.entries.length === 0 && (
            <tr><td colSpan={5} class="empty">Nothing recorded{action || actor ? ' for this filter' : ''}.</td></tr>
          )}
          {page.data?.entries.map((e, i) => (
            <tr key={`${e.timestamp}-${i}`}>
              <td data-label="Time">{new Date(e.timestamp).toLocaleString()}</td>
              <td data-label="Actor">{e.actor}</td>
              <td data-label="Action">{e.action}</td>
              <td data-label="Target">{e.target}</td>
              <td data-label="Details" class="wrap">{e.details}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <nav class="pager" aria-label="Audit pages">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>Newer</button>
        <span>{total === 0 || shown === 0 ? `none of ${total}` : `${from + 1}–${from + shown} of ${total}`}</span>
        <button type="button" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>Older</button>
      </nav>
    </section>
  );
}
