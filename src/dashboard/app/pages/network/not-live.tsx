/**
 * For a session without the event stream's node: the page cannot follow the network by itself,
 * so it says so and offers to read its lists again on request (never on a timer).
 */
import { useIsFetching, useQueryClient, type QueryKey } from '@tanstack/preact-query';
import { NODES } from './grants';

export function NotLive({ keys }: { keys: readonly QueryKey[] }) {
  const queries = useQueryClient();
  const fetching = useIsFetching() > 0;
  return (
    <div class="nw-not-live">
      <p class="nw-muted">
        Not kept current by itself: the live event stream needs the permission {NODES.events}. Read the lists again when you want them fresh.
      </p>
      <button type="button" class="nw-secondary" disabled={fetching} onClick={() => keys.forEach((queryKey) => void queries.invalidateQueries({ queryKey }))}>
        {fetching ? 'Reading…' : 'Read again'}
      </button>
    </div>
  );
}
