/**
 * Every online player, kept current by the proxy events on the shared socket (live.ts) with no
 * polling: read once (GET /api/players/online when the players module runs, else core's
 * GET /api/players), then PLAYER_CONNECTED, PLAYER_SERVER_SWITCH and PLAYER_DISCONNECTED move
 * the list in the browser as the controller's roster moves. A reopened socket reads it again
 * (events may have been missed meanwhile).
 *
 * Events that arrive while a read is under way are applied again on top of its answer, so a
 * read that started before an event never undoes it. A burst (1,000 joins) is applied in one
 * go a moment later, so the list renders once for it.
 */
import { useEffect } from 'preact/hooks';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { onLiveEvent, onReconnect, type LiveEvent } from '../../live';
import { hasFeature } from '../../login/features';
import { sortedPlayers, type CoreListing, type ModuleOnlinePlayer, type OnlineEntry } from './model';

export const ROSTER_KEY = ['network', 'roster'] as const;

export type RosterSource = 'module' | 'core';

export interface Roster {
  /** Whose list it is: the players module's sessions, or core's listing (the backends pinged). */
  source: RosterSource;
  /** By uuid. */
  byUuid: ReadonlyMap<string, OnlineEntry>;
  /** Sorted by name. */
  list: OnlineEntry[];
}

/** How long a burst of events is gathered before it is applied in one go. */
const GATHER_MS = 40;
/** Events remembered for the read under way; far more than a read takes to answer. */
const JOURNAL_MAX = 50_000;

const PLAYER_EVENTS: ReadonlySet<string> = new Set(['PLAYER_CONNECTED', 'PLAYER_DISCONNECTED', 'PLAYER_SERVER_SWITCH']);
/** The players module closes the sessions of a service that stopped or crashed (its runtime.ts). */
const SERVICE_ENDS: ReadonlySet<string> = new Set(['SERVICE_STOPPED', 'SERVICE_CRASHED']);

const touchesRoster = (type: string) => PLAYER_EVENTS.has(type) || SERVICE_ENDS.has(type);

/** A service's group, as the page last read it (GET /api/services); undefined when not known. */
type GroupLookup = (service: string) => string | undefined;

/** The events heard while a read is under way (only then: the read's answer covers the rest). */
let journal: { seq: number; event: LiveEvent }[] = [];
let seq = 0;
let reading = 0;
let groupLookup: GroupLookup = () => undefined;

function sourceNow(): RosterSource {
  return hasFeature('players') ? 'module' : 'core';
}

async function readRoster(): Promise<Roster> {
  const from = seq;
  const source = sourceNow();
  let entries: OnlineEntry[];
  reading++;
  try {
    if (source === 'module') {
      const online = await api<ModuleOnlinePlayer[]>('/api/players/online');
      entries = online.map((p) => ({ uuid: p.uuid, name: p.name, service: p.service, group: p.group, since: p.connectedAt, proxy: p.proxy }));
    } else {
      const listing = await api<CoreListing>('/api/players');
      entries = listing.players.map((p) => ({ uuid: p.uuid, name: p.name, service: p.service, group: p.group, since: null, proxy: p.proxy }));
    }
  } finally {
    reading--;
  }
  const byUuid = new Map(entries.map((p) => [p.uuid.toLowerCase(), p]));
  const missed = journal.filter((j) => j.seq > from).map((j) => j.event);
  // What this read answered covers every event before it started.
  journal = journal.filter((j) => j.seq > from);
  applyEvents(byUuid, missed, source);
  return { source, byUuid, list: sortedPlayers(byUuid.values()) };
}

/** The group of `service`: the services list's word, else that of a player already on it. */
function groupFor(service: string, players: ReadonlyMap<string, OnlineEntry>): string {
  if (service === '') return '';
  const known = groupLookup(service);
  if (known !== undefined) return known;
  for (const p of players.values()) if (p.service === service && p.group !== '') return p.group;
  return '';
}

/** Moves `players` as the controller's roster moves for these events (mirrors its rules). */
export function applyEvents(players: Map<string, OnlineEntry>, events: readonly LiveEvent[], source: RosterSource): void {
  for (const event of events) {
    const data = event.data;
    if (SERVICE_ENDS.has(event.type)) {
      // The module closes the sessions of a stopped or crashed server; core's roster keeps them.
      if (source !== 'module' || !data.service) continue;
      for (const [uuid, p] of players) if (p.service === data.service) players.delete(uuid);
      continue;
    }
    const uuid = (data.uuid ?? '').toLowerCase();
    const name = data.player ?? '';
    if (uuid === '' || name === '') continue;
    if (event.type === 'PLAYER_DISCONNECTED') {
      players.delete(uuid);
      continue;
    }
    const service = (event.type === 'PLAYER_SERVER_SWITCH' ? data.to : data.service) ?? '';
    // The module opens no session for a connect that names no server yet.
    if (service === '' && source === 'module') continue;
    const known = players.get(uuid);
    // A name now held by another uuid (an offline-mode name reused): the newest holder wins.
    if (!known) {
      const lower = name.toLowerCase();
      for (const [other, p] of players) if (p.name.toLowerCase() === lower) players.delete(other);
    }
    const moved = known?.service !== service;
    players.set(uuid, {
      uuid,
      name,
      service,
      group: moved ? groupFor(service, players) : known.group,
      // The module's session on a server opens when the player arrives there.
      since: moved ? (source === 'module' ? event.timestamp : (known?.since ?? null)) : known.since,
      // A connect names the proxy that reported it (when its own credential did); a switch keeps it.
      proxy: (event.type === 'PLAYER_CONNECTED' ? data.proxy : undefined) || known?.proxy || null,
    });
  }
}

function flushInto(queries: QueryClient, pending: LiveEvent[]): void {
  const events = pending.splice(0);
  queries.setQueryData<Roster>(ROSTER_KEY, (old) => {
    if (!old) return old;
    const byUuid = new Map(old.byUuid);
    applyEvents(byUuid, events, old.source);
    return { source: old.source, byUuid, list: sortedPlayers(byUuid.values()) };
  });
}

/**
 * The online players, live. `groupOf` names a service's group for a player who just arrived
 * (the event does not say it); the page passes what GET /api/services answered.
 */
export function useLiveRoster(groupOf?: GroupLookup) {
  const queries = useQueryClient();
  useEffect(() => {
    groupLookup = groupOf ?? (() => undefined);
  }, [groupOf]);
  useEffect(() => {
    const pending: LiveEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopEvents = onLiveEvent((event) => {
      if (!touchesRoster(event.type)) return;
      seq++;
      if (reading > 0) {
        journal.push({ seq, event });
        if (journal.length > JOURNAL_MAX) journal.splice(0, journal.length - JOURNAL_MAX);
      }
      pending.push(event);
      if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          flushInto(queries, pending);
        }, GATHER_MS);
      }
    });
    // Every opening (the first too): what was published before it may be missing from the list.
    const stopOpen = onReconnect(() => void queries.invalidateQueries({ queryKey: ROSTER_KEY }));
    return () => {
      clearTimeout(timer);
      stopEvents();
      stopOpen();
      journal = [];
    };
  }, [queries]);
  // Kept current by the events while shown; read again when shown anew (no event was heard meanwhile).
  return useQuery({ queryKey: ROSTER_KEY, queryFn: readRoster, structuralSharing: false, staleTime: Infinity, refetchOnMount: 'always' });
}
