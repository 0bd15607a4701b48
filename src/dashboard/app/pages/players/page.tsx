/**
 * Players (/players, the players module's page): who is online now (live from the proxy events,
 * as on the Network page), the module's statistics, every player it has seen with a search, and
 * one player's record and sessions (/players?player=<uuid>, so Back and a shared link work), with
 * Send and Kick through the proxies. Shown only when the module runs (guarded.tsx says so
 * otherwise). Loaded when first shown (pages/players.tsx), with its stylesheets.
 *
 * Unlike the reference page (REFERENCE-MODULES §1, §11): nothing polls, a session is asked only
 * for what its nodes allow (the history has its own), playtime and online stay the strings
 * /all answers, and a search of `%` or `_` finds those characters (the route escapes them).
 */
import { useMemo, useState } from 'preact/hooks';
import { useSearch } from 'wouter-preact';
import { loadStylesheet } from '../../stylesheet';
import networkCss from '../network/network.css' with { type: 'file' };
import { NODES, useMay } from '../network/grants';
import { useNetworkLists } from '../network/lists';
import { countByServer, filterPlayers, NO_FILTER } from '../network/model';
import { PlayerActionDialog, type PlayerAction } from '../network/player-actions';
import { PlayerTable } from '../network/player-table';
import { NotLive } from '../network/not-live';
import { ROSTER_KEY, useLiveRoster } from '../network/roster';
import playersCss from './players.css' with { type: 'file' };
import { PlayerDetail } from './detail';
import { KnownPlayers } from './known';
import { KNOWN_KEY, playerHref, STATS_KEY } from './model';
import { Stats } from './stats';

export const ready = Promise.all([loadStylesheet(networkCss), loadStylesheet(playersCss)]);

export function Page() {
  const may = useMay();
  if (!may) return <p class="notice">Loading…</p>;
  return <PlayersPage may={may} />;
}

function PlayersPage({ may }: { may: (node: string) => boolean }) {
  const selected = new URLSearchParams(useSearch()).get('player');
  const { groupOf, targets } = useNetworkLists(may);
  const roster = useLiveRoster(groupOf);
  const [text, setText] = useState('');
  const [action, setAction] = useState<PlayerAction | null>(null);
  const canManage = may(NODES.manage);
  const all = roster.data?.list ?? [];
  const shown = filterPlayers(all, { ...NO_FILTER, text });
  const onlineOn = useMemo(() => countByServer(all), [roster.data]);

  return (
    <section class="nw-page pl-page">
      <h1>Players</h1>
      {!may(NODES.events) && <NotLive keys={[ROSTER_KEY, STATS_KEY, KNOWN_KEY, ['players', 'info'], ['players', 'history']]} />}
      {selected !== null && <PlayerDetail uuid={selected} may={may} onAction={setAction} />}
      <Stats />
      <section class="nw-section" aria-labelledby="pl-online-title">
        <div class="nw-section-head">
          <h2 id="pl-online-title">Online now</h2>
          {roster.data && (
            <p class="nw-count">
              <strong>{all.length}</strong> online
            </p>
          )}
        </div>
        {roster.isPending && <p class="nw-muted">Loading…</p>}
        {roster.isError && (
          <p class="nw-error" role="alert">
            The online players could not be read: {roster.error.message}
          </p>
        )}
        {roster.data && (
          <>
            <div class="nw-filters" role="search" aria-label="Search online players">
              <label>
                <span>Name</span>
                <input type="search" placeholder="Search by name" autoComplete="off" spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} />
              </label>
            </div>
            <PlayerTable
              label="Online players"
              players={shown}
              resetKey={text}
              hrefOf={(p) => playerHref(p.uuid)}
              onAction={canManage ? setAction : undefined}
              empty={all.length === 0 ? 'No player is online.' : 'No player matches.'}
            />
          </>
        )}
      </section>
      <KnownPlayers />
      {action && <PlayerActionDialog action={action} targets={targets} onlineOn={onlineOn} onClose={() => setAction(null)} />}
    </section>
  );
}
