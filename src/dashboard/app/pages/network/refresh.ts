/**
 * Reads a query again when an event says it changed, at most once every `everyMs` while events
 * keep coming (a network with players joining all the time would otherwise starve a debounce,
 * or ask once per event), and on every opening of the socket. No timer runs while nothing
 * happens: this is no polling loop.
 */
import { useEffect } from 'preact/hooks';
import { useQueryClient, type QueryKey } from '@tanstack/preact-query';
import { onLiveEvent, onReconnect } from '../../live';

export function useEventRefresh(keys: readonly QueryKey[], touches: (type: string) => boolean, everyMs: number): void {
  const queries = useQueryClient();
  const identity = JSON.stringify(keys);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      timer = undefined;
      for (const queryKey of keys) void queries.invalidateQueries({ queryKey });
    };
    const stopEvents = onLiveEvent((event) => {
      if (touches(event.type) && timer === undefined) timer = setTimeout(refresh, everyMs);
    });
    const stopOpen = onReconnect(() => {
      clearTimeout(timer);
      refresh();
    });
    return () => {
      clearTimeout(timer);
      stopEvents();
      stopOpen();
    };
  }, [queries, identity]);
}
