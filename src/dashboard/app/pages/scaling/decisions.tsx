/**
 * The decisions log (GET /api/scaling/decisions): what the autoscaler (scale_up, scale_down) and
 * smart scaling (a rule, its warm-up, a prediction) decided, newest first, with the reason and
 * the servers started; every group or one, 50 more at a time up to the API's 500. Read again on
 * the events that make a decision (page.tsx), so a scale-up shows as it happens.
 */
import { useState } from 'preact/hooks';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { DECISIONS_KEY, DECISIONS_MAX, DECISIONS_STEP, getDecisions } from './model';
import { actionText, momentText, plural, refusalText, sourceText } from './words';

interface Props {
  groups: readonly string[];
  selected: string;
  /** Not kept current by events: read every 30 s instead. */
  poll: boolean;
}

export function DecisionsLog({ groups, selected, poll }: Props) {
  const [only, setOnly] = useState<'all' | 'selected'>('all');
  const [limit, setLimit] = useState(DECISIONS_STEP);
  const group = only === 'selected' ? selected : '';
  const decisions = useQuery({
    queryKey: [...DECISIONS_KEY, limit, group],
    queryFn: () => getDecisions(limit, group),
    placeholderData: keepPreviousData,
    refetchInterval: poll ? 30_000 : false,
  });
  const rows = decisions.data?.decisions ?? [];
  const total = decisions.data?.total ?? 0;
  const now = Date.now();
  return (
    <section class="sc-card" aria-labelledby="sc-decisions-title">
      <div class="sc-head">
        <h2 id="sc-decisions-title">Decisions</h2>
        <div class="sc-field sc-inline">
          <label for="sc-decisions-of">Of</label>
          <select
            id="sc-decisions-of"
            value={only}
            onChange={(e) => {
              setOnly((e.target as HTMLSelectElement).value as 'all' | 'selected');
              setLimit(DECISIONS_STEP);
            }}
          >
            <option value="all">Every group</option>
            {selected !== '' && groups.includes(selected) && <option value="selected">{selected} only</option>}
          </select>
        </div>
      </div>
      <p class="sc-muted">What the autoscaler and smart scaling decided, newest first, with why.{poll ? ' Read again every 30 s.' : ' Kept current as decisions are made.'}</p>
      {decisions.isPending && <p class="sc-muted">Loading…</p>}
      {decisions.isError && (
        <p role="alert" class="sc-error">
          {refusalText(decisions.error, 'The decisions could not be read')}
        </p>
      )}
      {decisions.data && (
        <>
          <table class="sc-decisions stack">
            <caption class="sc-hidden">Scaling decisions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Group</th>
                <th scope="col">Decision</th>
                <th scope="col">Started</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 && (
                <tr>
                  <td colSpan={5} class="sc-muted">
                    No decision yet{group ? ` for ${group}` : ''}.
                  </td>
                </tr>
              )}
              {rows.map((d, i) => (
                <tr key={`${d.timestamp}-${i}`} data-action={d.action} data-group={d.group}>
                  <td data-label="When">
                    <time dateTime={d.timestamp}>{momentText(d.timestamp, now)}</time>
                  </td>
                  <td data-label="Group">{d.group}</td>
                  <td data-label="Decision">
                    <span class={`sc-action sc-action-${d.source}`}>{actionText(d.action)}</span> <small class="sc-muted">by {sourceText(d.source)}</small>
                  </td>
                  <td data-label="Started">{d.servicesStarted}</td>
                  <td data-label="Why" class="sc-reason">
                    {d.reason}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="sc-pager">
            <span aria-live="polite">{rows.length === 0 ? `none of ${total}` : `the newest ${rows.length} of ${plural(total, 'decision')}`}</span>
            {rows.length < total && limit < DECISIONS_MAX && (
              <button type="button" class="sc-secondary" disabled={decisions.isFetching} onClick={() => setLimit((n) => Math.min(DECISIONS_MAX, n + DECISIONS_STEP))}>
                Show {Math.min(DECISIONS_STEP, total - rows.length)} older
              </button>
            )}
            {rows.length < total && limit >= DECISIONS_MAX && <span class="sc-muted">The API answers the newest {DECISIONS_MAX} at most.</span>}
          </div>
        </>
      )}
    </section>
  );
}
