/** The module's own audit log (GET /api/permissions/audit): who changed what, newest first, a page at a time. */
import { useState } from 'preact/hooks';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { dateTime, ReadFailure } from './common';
import { AUDIT_PAGE, auditPage, KEYS } from './requests';

export function ChangesView() {
  const [page, setPage] = useState(0);
  const log = useQuery({ queryKey: KEYS.audit(page), queryFn: () => auditPage(page), placeholderData: keepPreviousData });
  const pages = log.data ? Math.max(1, Math.ceil(log.data.total / AUDIT_PAGE)) : 1;
  return (
    <section class="op-card" aria-labelledby="perm-changes-title">
      <h2 id="perm-changes-title">Changes</h2>
      <p class="op-muted">Every change to groups, tracks and memberships, with who made it (an API token, a dashboard session, the console, or the expiry sweep).</p>
      {log.isPending && <p>Loading…</p>}
      {log.isError && <ReadFailure error={log.error} what="The audit log" />}
      {log.data && log.data.entries.length === 0 && <p class="op-muted">No change recorded yet.</p>}
      {log.data && log.data.entries.length > 0 && (
        <table class="gd-table perm-table" aria-label="Permission changes">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {log.data.entries.map((e, i) => (
              <tr key={`${e.timestamp}-${i}`}>
                <td data-label="When">
                  <time dateTime={e.timestamp}>{dateTime(e.timestamp)}</time>
                </td>
                <td data-label="Who" class="gd-wrap">
                  {e.actor}
                </td>
                <td data-label="What">
                  <code>{e.action}</code>
                </td>
                <td data-label="Target" class="gd-wrap">
                  {e.target}
                </td>
                <td data-label="Details" class="gd-wrap perm-details">
                  {e.details || <span class="op-muted">none</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {log.data && log.data.total > AUDIT_PAGE && (
        <div class="pager">
          <button type="button" class="gd-secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span>
            Page {page + 1} of {pages} ({log.data.total} changes)
          </span>
          <button type="button" class="gd-secondary" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </div>
      )}
    </section>
  );
}
