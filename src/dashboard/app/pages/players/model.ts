/**
 * What the Players page reads of the players module (src/modules/players/model.ts): the shapes
 * and query keys, and the pure helpers it formats them with. GET /api/players/all answers
 * every value as a string (the reference dashboard's declared types): kept as strings here and
 * read as numbers only where they are shown.
 */
import { api } from '../../api';

export interface KnownPlayer {
  uuid: string;
  name: string;
  firstSeen: string;
  lastSeen: string;
  /** Whole seconds, as a string. */
  totalPlaytimeSeconds: string;
  online: 'true' | 'false';
}

export interface PlayerInfo {
  uuid: string;
  name: string;
  firstSeen: string;
  lastSeen: string;
  totalPlaytimeSeconds: number;
  online: boolean;
  currentService: string | null;
}

export interface Session {
  service: string;
  group: string;
  connectedAt: string;
  disconnectedAt: string | null;
}

export interface PlayerStats {
  online: number;
  totalUnique: number;
  perService: Record<string, number>;
}

/** Sessions asked for a player (the route allows 1..100). */
export const SESSIONS_LIMIT = 50;
/** Known players asked for at once (the route allows 1..500). */
export const KNOWN_LIMIT = 100;

export const STATS_KEY = ['players', 'stats'] as const;
export const KNOWN_KEY = ['players', 'all'] as const;
export const infoKey = (uuid: string) => ['players', 'info', uuid] as const;
export const historyKey = (uuid: string) => ['players', 'history', uuid] as const;

export const getStats = () => api<PlayerStats>('/api/players/stats');
export const getKnown = (q: string) => api<KnownPlayer[]>(`/api/players/all?limit=${KNOWN_LIMIT}${q === '' ? '' : `&q=${encodeURIComponent(q)}`}`);
export const getInfo = (uuid: string) => api<PlayerInfo>(`/api/players/info/${encodeURIComponent(uuid)}`);
export const getHistory = (uuid: string) => api<Session[]>(`/api/players/history/${encodeURIComponent(uuid)}?limit=${SESSIONS_LIMIT}`);

/** A uuid as the routes take it (dashed or 32 hex digits); anything else is not asked for. */
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/** Where a player's history is shown: this page with ?player=. */
export const playerHref = (uuid: string) => `/players?player=${encodeURIComponent(uuid)}`;

/** A session's length in seconds: to its end, or to `now` while it lasts. */
export function sessionSeconds(session: Session, now: number): number {
  const end = session.disconnectedAt === null ? now : Date.parse(session.disconnectedAt);
  return Math.max(0, Math.floor((end - Date.parse(session.connectedAt)) / 1000));
}

/** The per-service counts, most players first (then by name). */
export function perServiceRows(perService: Record<string, number>): [string, number][] {
  return Object.entries(perService).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0], undefined, { numeric: true }));
}
