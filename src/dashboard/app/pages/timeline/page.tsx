/**
 * The network's timeline (GET /api/timeline): one history of everything that happened, newest
 * first, with who or what did it (an operator, a dashboard user, the console, the controller,
 * the autoscaler, the crash handler, the scheduler). Filtered by service, group, actor and
 * event type; read back a page at a time as the list is scrolled (only the rows in view are
 * drawn, so 100,000 entries scroll like 100); while "Follow live" is on, what happens is read
 * in at the top as the events socket tells of it.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useInfiniteQuery, useQuery } from '@tanstack/preact-query';
import { Link } from 'wouter-preact';
import { api } from '../../api';
import { onLiveEvent, onReconnect } from '../../live';
import { loadStylesheet } from '../../stylesheet';
import { useVirtualRows } from '../../virtual-rows';
import { actorWords } from '../../event-words';
import { detailsOf, NO_FILTERS, timelineQuery, titleOf, withTail, type TimelineEntry, type TimelineFilters, type TimelinePage } from './model';
import timelineCss from './timeline.css' with { type: 'file' };

export const ready = loadStylesheet(timelineCss);

/** One row's height in px at every width (timeline.css gives .tl-row this height). */
const ROW_HEIGHT = 64;
/** Rows from the end at which the next page back is read. */
const READ_AHEAD = 40;
/** A burst of live events is read in once it is over. */
const GATHER_MS = 200;
/** How long typing in a filter waits before the list is read again. */
const TYPING_MS = 300;
/** Actors the filter suggests (any actor may be typed). */
const ACTORS = ['api:admin', 'system', 'console', 'autoscaler', 'crash-handler', 'scheduler'];

export function Page() {
  const [typed, setTyped] = useState<TimelineFilters>(NO_FILTERS);
  const filters = useDebounced(typed, TYPING_MS);
  const [follow, setFollow] = useState(true);
  const groups = useQuery({ queryKey: ['groups'], queryFn: () => api<{ groups: { name: string }[] }>('/api/groups') });
  const pages = useInfiniteQuery({
    queryKey: ['timeline', filters],
    queryFn: ({ pageParam }) => api<TimelinePage>(`/api/timeline?${timelineQuery(filters, pageParam === undefined ? {} : { before: pageParam })}`),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });
  const [tail, setTail] = useState<TimelineEntry[]>([]);
  useEffect(() => setTail([]), [filters]);
  const readBack = useMemo(() => pages.data?.pages.flatMap((p) => p.entries) ?? [], [pages.data]);
  const entries = useMemo(() => withTail(readBack, tail), [readBack, tail]);
  const newest = useRef(0);
  newest.current = entries[0]?.id ?? 0;

  // The live tail: after a burst of events, what is newer than the newest entry shown.
  useEffect(() => {
    if (!follow || !pages.isSuccess) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let alive = true;
    const readTail = () => {
      void api<TimelinePage>(`/api/timeline?${timelineQuery(filters, { after: newest.current })}`).then(
        (page) => alive && page.entries.length > 0 && setTail((before) => [...before, ...page.entries]),
        () => undefined, // the next event or reconnection tries again
      );
    };
    const soon = () => {
      clearTimeout(timer);
      timer = setTimeout(readTail, GATHER_MS);
    };
    soon(); // what happened while following was off
    const stopEvents = onLiveEvent(soon);
    const stopReconnect = onReconnect(soon);
    return () => {
      alive = false;
      clearTimeout(timer);
      stopEvents();
      stopReconnect();
    };
  }, [follow, filters, pages.isSuccess]);

  const set = (key: keyof TimelineFilters) => (event: Event) => setTyped({ ...typed, [key]: (event.currentTarget as HTMLInputElement).value });
  return (
    <section class="tl-page" aria-labelledby="tl-title">
      <h1 id="tl-title">Timeline</h1>
      <p class="tl-intro">Everything that happened in the network, newest first, and who or what did it.</p>
      <form class="tl-filters" role="search" aria-label="Filter the timeline" onSubmit={(e) => e.preventDefault()}>
        <label>
          Service
          <input value={typed.service} onInput={set('service')} placeholder="Lobby-1" maxLength={128} autocomplete="off" />
        </label>
        <label>
          Group
          <select value={typed.group} onChange={set('group')}>
            <option value="">Any group</option>
            {groups.data?.groups.map((g) => (
              <option key={g.name} value={g.name}>
                {g.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Actor
          <input value={typed.actor} onInput={set('actor')} list="tl-actors" placeholder="api:admin" maxLength={200} autocomplete="off" />
          <datalist id="tl-actors">
            {ACTORS.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
        </label>
        <label>
          Event types
          <input value={typed.types} onInput={set('types')} placeholder="SERVICE_CRASHED, SCALE_UP" maxLength={1000} autocomplete="off" />
        </label>
        <label class="tl-follow">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
          Follow live
        </label>
      </form>
      {pages.isError && (
        <p role="alert" class="error">
          The timeline could not be read: {pages.error.message}
        </p>
      )}
      {pages.isPending && <p>Loading…</p>}
      {pages.isSuccess && entries.length === 0 && <p>{Object.values(filters).every((v) => v.trim() === '') ? 'Nothing recorded yet.' : 'Nothing recorded matches these filters.'}</p>}
      {entries.length > 0 && (
        <EntryList entries={entries} resetKey={JSON.stringify(filters)} more={pages.hasNextPage} loadingMore={pages.isFetchingNextPage} onNearEnd={() => void pages.fetchNextPage()} />
      )}
    </section>
  );
}

function EntryList({ entries, resetKey, more, loadingMore, onNearEnd }: { entries: TimelineEntry[]; resetKey: string; more: boolean; loadingMore: boolean; onNearEnd: () => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualRows(entries.length, scroller, ROW_HEIGHT);
  const items = virtual.getVirtualItems();
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (more && !loadingMore && last >= entries.length - READ_AHEAD) onNearEnd();
  }, [last, entries.length, more, loadingMore]);
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [resetKey]);
  return (
    <div class="tl-scroll" ref={scroller} data-testid="timeline-scroll">
      <ol class="tl-rows" aria-label="Timeline entries" style={{ height: `${virtual.getTotalSize()}px` }}>
        {items.map((item) => {
          const entry = entries[item.index]!;
          const details = detailsOf(entry);
          return (
            <li key={entry.id} class="tl-row" data-type={entry.type} aria-setsize={more ? -1 : entries.length} aria-posinset={item.index + 1} style={{ transform: `translateY(${item.start}px)` }}>
              <time dateTime={entry.timestamp}>{when(entry.timestamp)}</time>
              <span class="tl-what">
                <strong>{titleOf(entry)}</strong>
                {entry.service && (
                  <>
                    {' '}
                    <Link href={`/services/${encodeURIComponent(entry.service)}`}>{entry.service}</Link>
                  </>
                )}
                {!entry.service && entry.group && <span class="tl-group"> {entry.group}</span>}
              </span>
              <span class="tl-actor">by {actorWords(entry.actor)}</span>
              <span class="tl-details" title={details}>
                {details}
              </span>
            </li>
          );
        })}
      </ol>
      {loadingMore && <p class="tl-more">Reading further back…</p>}
      {!more && <p class="tl-more">The beginning of what is kept.</p>}
    </div>
  );
}

/** Time of day for today's entries, with the date for older ones. */
function when(timestamp: string): string {
  const date = new Date(timestamp);
  return date.toDateString() === new Date().toDateString() ? date.toLocaleTimeString() : date.toLocaleString();
}

/** `value`, once it has stayed the same for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
