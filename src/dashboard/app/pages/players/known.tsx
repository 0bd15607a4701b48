/**
 * Every player the module has seen (GET /api/players/all): the most recently seen first, or
 * those whose name contains what is typed (asked a moment after the typing stops). Each name
 * opens the player's history. Read again when players come and go (at most once a second).
 */
import { useEffect, useState } from 'preact/hooks';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { Link } from 'wouter-preact';
import { useEventRefresh } from '../network/refresh';
import { formatDuration, fullTime, shortTime } from '../network/model';
import { getKnown, KNOWN_KEY, KNOWN_LIMIT, playerHref } from './model';

const touchesKnown = (type: string) => type.startsWith('PLAYER_') || type === 'SERVICE_STOPPED' || type === 'SERVICE_CRASHED';
/** How long the typing rests before the search is asked. */
const TYPING_MS = 250;

export function KnownPlayers() {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQ(text.trim()), TYPING_MS);
    return () => clearTimeout(timer);
  }, [text]);
  useEventRefresh([KNOWN_KEY], touchesKnown, 1000);
  const known = useQuery({ queryKey: [...KNOWN_KEY, q], queryFn: () => getKnown(q), placeholderData: keepPreviousData });
  const now = Date.now();
  const list = known.data ?? [];
  return (
    <section class="nw-section" aria-labelledby="pl-all-title">
      <h2 id="pl-all-title">All players</h2>
      <div class="nw-filters" role="search" aria-label="Search all players">
        <label>
          <span>Name</span>
          <input type="search" placeholder="Part of a name" maxLength={64} autoComplete="off" spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
      </div>
      {known.isError && (
        <p class="nw-error" role="alert">
          The players could not be read: {known.error.message}
        </p>
      )}
      {known.data && (
        <p class="nw-muted" data-testid="known-count">
          {q === '' ? `${list.length} most recently seen` : `${list.length} whose name contains “${q}”`}
          {list.length >= KNOWN_LIMIT ? ` (the first ${KNOWN_LIMIT}: narrow the search)` : ''}
        </p>
      )}
      {known.data && (
        <table class="pl-table pl-known" aria-label="Known players" aria-busy={known.isFetching && q !== text.trim()}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">First seen</th>
              <th scope="col">Last seen</th>
              <th scope="col">Playtime</th>
            </tr>
          </thead>
          <tbody>
            {list.length === 0 && (
              <tr>
                <td colSpan={5} class="nw-muted">
                  {q === '' ? 'No player has been seen yet.' : 'No player matches.'}
                </td>
              </tr>
            )}
            {list.map((p) => (
              <tr key={p.uuid}>
                <th scope="row">
                  <Link href={playerHref(p.uuid)}>{p.name}</Link>
                </th>
                <td data-label="Status">
                  <span class={`nw-pill ${p.online === 'true' ? 'pl-online' : 'pl-offline'}`}>{p.online === 'true' ? 'Online' : 'Offline'}</span>
                </td>
                <td data-label="First seen">
                  <time dateTime={p.firstSeen} title={fullTime(p.firstSeen)}>
                    {shortTime(p.firstSeen, now)}
                  </time>
                </td>
                <td data-label="Last seen">
                  <time dateTime={p.lastSeen} title={fullTime(p.lastSeen)}>
                    {shortTime(p.lastSeen, now)}
                  </time>
                </td>
                <td data-label="Playtime">{formatDuration(Number(p.totalPlaytimeSeconds))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
