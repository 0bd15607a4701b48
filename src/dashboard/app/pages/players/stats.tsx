/**
 * The players module's statistics (GET /api/players/stats): online now, players ever seen, and
 * the online players of each server; read again when players move (at most every half second).
 */
import { useQuery } from '@tanstack/preact-query';
import { useEventRefresh } from '../network/refresh';
import { getStats, perServiceRows, STATS_KEY } from './model';

const touchesStats = (type: string) => type.startsWith('PLAYER_') || type === 'SERVICE_STOPPED' || type === 'SERVICE_CRASHED';

export function Stats() {
  useEventRefresh([STATS_KEY], touchesStats, 500);
  const stats = useQuery({ queryKey: STATS_KEY, queryFn: getStats });
  const rows = stats.data ? perServiceRows(stats.data.perService) : [];
  return (
    <section class="nw-section" aria-labelledby="pl-stats-title">
      <h2 id="pl-stats-title">Statistics</h2>
      {stats.isPending && <p class="nw-muted">Loading…</p>}
      {stats.isError && (
        <p class="nw-error" role="alert">
          The statistics could not be read: {stats.error.message}
        </p>
      )}
      {stats.data && (
        <div class="pl-stats">
          <dl class="figures pl-figures">
            <div>
              <dt>Online now</dt>
              <dd>{stats.data.online}</dd>
            </div>
            <div>
              <dt>Players ever seen</dt>
              <dd>{stats.data.totalUnique}</dd>
            </div>
            <div>
              <dt>Servers with players</dt>
              <dd>{rows.length}</dd>
            </div>
          </dl>
          <table class="pl-table pl-per-service" aria-label="Online by server">
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">Online</th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 && (
                <tr>
                  <td colSpan={2} class="nw-muted">
                    Nobody is online.
                  </td>
                </tr>
              )}
              {rows.map(([service, count]) => (
                <tr key={service}>
                  <th scope="row">{service}</th>
                  <td data-label="Online">{count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
