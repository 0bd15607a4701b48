import { useEffect } from 'preact/hooks';
import { useQueryClient, type QueryKey } from '@tanstack/preact-query';
import { onLiveEvent, onReconnect } from './live';

/**
 * Keeps queries current from the live events instead of polling: an event `touches` says is
 * about them marks them stale (fetched again if shown), and so does every opening of the socket
 * (events may have been missed meanwhile). With `gatherMs`, a burst of events (a restart is
 * STOPPING, STOPPED, STARTING… within milliseconds) causes one fetch after it.
 */
export function useLiveRefresh(keys: readonly QueryKey[], touches: (type: string) => boolean, gatherMs = 0): void {
  const queries = useQueryClient();
  // The keys as one value, so a caller's new array with the same keys does not resubscribe.
  const identity = JSON.stringify(keys);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      for (const queryKey of keys) void queries.invalidateQueries({ queryKey });
    };
    const stopEvents = onLiveEvent((event) => {
      if (!touches(event.type)) return;
      if (gatherMs <= 0) return refresh();
      clearTimeout(timer);
      timer = setTimeout(refresh, gatherMs);
    });
    const stopOpen = onReconnect(refresh);
    return () => {
      clearTimeout(timer);
      stopEvents();
      stopOpen();
    };
  }, [queries, identity]);
}
