/**
 * One player (/players?player=<uuid>): what the module knows of them (GET /api/players/info),
 * their sessions newest first (GET /api/players/history, which needs its own node), and Send
 * and Kick while they are online. Read again when an event about this player (or a server
 * that ended, which closes sessions) arrives. Opening it moves the focus to its heading.
 */
import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { Link } from 'wouter-preact';
import { ApiFailure } from '../../api';
import { onLiveEvent } from '../../live';
import { NODES } from '../network/grants';
import { formatDuration, fullTime } from '../network/model';
import type { PlayerAction } from '../network/player-actions';
import { getHistory, getInfo, historyKey, infoKey, isUuid, SESSIONS_LIMIT, sessionSeconds } from './model';

/** Events about `uuid` (and servers ending, which close sessions) mark its info and sessions stale. */
function usePlayerLive(uuid: string): void {
  const queries = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = onLiveEvent((event) => {
      const about = event.type.startsWith('PLAYER_') ? (event.data.uuid ?? '').toLowerCase() === uuid.toLowerCase() : event.type === 'SERVICE_STOPPED' || event.type === 'SERVICE_CRASHED';
      if (!about || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        void queries.invalidateQueries({ queryKey: infoKey(uuid) });
        void queries.invalidateQueries({ queryKey: historyKey(uuid) });
      }, 150);
    });
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [queries, uuid]);
}

interface Props {
  uuid: string;
  may: (node: string) => boolean;
  onAction: (action: PlayerAction) => void;
}

export function PlayerDetail(props: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'nearest' });
  }, [props.uuid]);
  if (!isUuid(props.uuid)) {
    return (
      <section class="pl-detail" aria-labelledby="pl-detail-title">
        <div class="pl-detail-head">
          <h2 id="pl-detail-title" tabIndex={-1} ref={heading}>
            Player
          </h2>
          <Link href="/players">Close</Link>
        </div>
        <p class="nw-error" role="alert">
          “{props.uuid}” is not a player's uuid.
        </p>
      </section>
    );
  }
  return <PlayerRecord {...props} heading={heading} />;
}

function PlayerRecord({ uuid, may, onAction, heading }: Props & { heading: RefObject<HTMLHeadingElement> }) {
  usePlayerLive(uuid);
  const canHistory = may(NODES.history);
  const info = useQuery({ queryKey: infoKey(uuid), queryFn: () => getInfo(uuid) });
  const history = useQuery({ queryKey: historyKey(uuid), queryFn: () => getHistory(uuid), enabled: canHistory });
  const unseen = info.error instanceof ApiFailure && info.error.status === 404;
  const p = info.data;
  const now = Date.now();
  return (
    <section class="pl-detail" aria-labelledby="pl-detail-title">
      <div class="pl-detail-head">
        <h2 id="pl-detail-title" tabIndex={-1} ref={heading}>
          {p ? p.name : 'Player'}
        </h2>
        {p && <span class={`nw-pill ${p.online ? 'pl-online' : 'pl-offline'}`}>{p.online ? `Online on ${p.currentService ?? '—'}` : 'Offline'}</span>}
        <Link href="/players" class="pl-close">
          Close
        </Link>
      </div>
      {info.isPending && <p class="nw-muted">Loading…</p>}
      {unseen && <p class="nw-muted">No player with the uuid {uuid} has been seen.</p>}
      {info.isError && !unseen && (
        <p class="nw-error" role="alert">
          The player could not be read: {info.error.message}
        </p>
      )}
      {p && (
        <>
          <dl class="pl-facts">
            <div>
              <dt>UUID</dt>
              <dd>
                <code>{p.uuid}</code>
              </dd>
            </div>
            <div>
              <dt>First seen</dt>
              <dd>{fullTime(p.firstSeen)}</dd>
            </div>
            <div>
              <dt>Last seen</dt>
              <dd>{fullTime(p.lastSeen)}</dd>
            </div>
            <div>
              <dt>Total playtime</dt>
              <dd data-testid="playtime">{formatDuration(p.totalPlaytimeSeconds)}</dd>
            </div>
          </dl>
          {p.online && may(NODES.manage) && (
            <div class="pl-actions">
              <button type="button" class="nw-secondary" aria-label={`Send ${p.name}`} onClick={() => onAction({ kind: 'send', name: p.name, service: p.currentService ?? '' })}>
                Send to a server…
              </button>
              <button type="button" class="nw-secondary nw-danger-text" aria-label={`Kick ${p.name}`} onClick={() => onAction({ kind: 'kick', name: p.name, service: p.currentService ?? '' })}>
                Kick…
              </button>
            </div>
          )}
        </>
      )}
      <h3 id="pl-sessions-title">Sessions</h3>
      {!canHistory && <p class="nw-muted">Your account may not read sessions: it needs the permission {NODES.history}.</p>}
      {history.isError && (
        <p class="nw-error" role="alert">
          The sessions could not be read: {history.error.message}
        </p>
      )}
      {history.data && (
        <>
          <table class="pl-table pl-sessions" aria-labelledby="pl-sessions-title">
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col">Group</th>
                <th scope="col">Joined</th>
                <th scope="col">Left</th>
                <th scope="col">Length</th>
              </tr>
            </thead>
            <tbody>
              {history.data.length === 0 && (
                <tr>
                  <td colSpan={5} class="nw-muted">
                    No session recorded.
                  </td>
                </tr>
              )}
              {history.data.map((s) => (
                <tr key={`${s.connectedAt}-${s.service}`} data-open={s.disconnectedAt === null ? 'true' : undefined}>
                  <th scope="row">{s.service}</th>
                  <td data-label="Group">{s.group}</td>
                  <td data-label="Joined">{fullTime(s.connectedAt)}</td>
                  <td data-label="Left">{s.disconnectedAt === null ? <span class="nw-pill pl-online">online now</span> : fullTime(s.disconnectedAt)}</td>
                  <td data-label="Length">{formatDuration(sessionSeconds(s, now))}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {history.data.length >= SESSIONS_LIMIT && <p class="nw-muted">The last {SESSIONS_LIMIT} sessions.</p>}
        </>
      )}
    </section>
  );
}
