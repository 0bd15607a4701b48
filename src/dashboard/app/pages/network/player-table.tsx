/**
 * The online players as a virtualised table (virtual.ts): with 1,000 players only the rows in
 * view are in the page. An ARIA table (role table, row, rowheader, cell, with the row count and
 * each row's index), since rows come and go as it scrolls; each row's Send and Kick name the
 * player in their accessible names. Below 640 px each row is a three-line card.
 */
import { useEffect, useRef } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { fullTime, shortTime, type OnlineEntry } from './model';
import type { PlayerAction } from './player-actions';
import { useVirtualRows } from './virtual';

interface Props {
  /** The accessible name of the table. */
  label: string;
  players: readonly OnlineEntry[];
  /** Changes when another list is shown (a new search): the table scrolls back to its top. */
  resetKey: string;
  /** The proxy column's value for a player; the column is left out when absent. */
  proxyOf?: (player: OnlineEntry) => string;
  /** Where a player's name leads (their history), when somewhere. */
  hrefOf?: (player: OnlineEntry) => string | undefined;
  /** Send and Kick are offered only to a sign-in that may manage players. */
  onAction?: (action: PlayerAction) => void;
  empty: string;
}

export function PlayerTable({ label, players, resetKey, proxyOf, hrefOf, onAction, empty }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const { virtualizer } = useVirtualRows(players.length, scroller);
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [resetKey]);
  const now = Date.now();
  const withProxy = proxyOf !== undefined;
  const cls = `nw-table${withProxy ? ' nw-with-proxy' : ''}`;
  return (
    <div class={cls}>
      <div role="table" aria-label={label} aria-rowcount={players.length + 1}>
      <div role="rowgroup" class="nw-head">
        <div role="row" aria-rowindex={1} class="nw-head-row">
          <span role="columnheader">Name</span>
          <span role="columnheader">Server</span>
          <span role="columnheader">Group</span>
          {withProxy && <span role="columnheader">Proxy</span>}
          <span role="columnheader">On server since</span>
          <span role="columnheader">
            <span class="nw-hidden">Actions</span>
          </span>
        </div>
      </div>
      {players.length > 0 && (
        <div class="nw-scroll" ref={scroller} data-testid="player-scroll">
          <div role="rowgroup" class="nw-rows" style={{ height: `${virtualizer.getTotalSize()}px` }}>
            {virtualizer.getVirtualItems().map((item) => {
              const p = players[item.index]!;
              const href = hrefOf?.(p);
              return (
                <div key={p.uuid} role="row" aria-rowindex={item.index + 2} class="nw-row" style={{ transform: `translateY(${item.start}px)` }}>
                  <span role="rowheader" class="nw-name">
                    {href ? (
                      <Link href={href} title={`${p.name}: history and sessions`}>
                        {p.name}
                      </Link>
                    ) : (
                      p.name
                    )}
                  </span>
                  <span role="cell" class="nw-server" title={p.service || undefined}>
                    {p.service || <span class="nw-muted">not placed yet</span>}
                  </span>
                  <span role="cell" class="nw-group">
                    {p.group || '—'}
                  </span>
                  {withProxy && (
                    <span role="cell" class="nw-proxy">
                      {proxyOf(p)}
                    </span>
                  )}
                  <span role="cell" class="nw-since">
                    {p.since ? (
                      <time dateTime={p.since} title={fullTime(p.since)}>
                        {shortTime(p.since, now)}
                      </time>
                    ) : (
                      '—'
                    )}
                  </span>
                  <span role="cell" class="nw-actions">
                    {onAction && (
                      <>
                        <button type="button" class="nw-secondary" aria-label={`Send ${p.name}`} onClick={() => onAction({ kind: 'send', name: p.name, service: p.service })}>
                          Send
                        </button>
                        <button type="button" class="nw-secondary nw-danger-text" aria-label={`Kick ${p.name}`} onClick={() => onAction({ kind: 'kick', name: p.name, service: p.service })}>
                          Kick
                        </button>
                      </>
                    )}
                  </span>
                </div>
              );
            })}
          </div>
        </div>
      )}
      </div>
      {players.length === 0 && <p class="nw-empty">{empty}</p>}
    </div>
  );
}
