/**
 * What the Network and Players pages read of the API, and the pure helpers they sort, filter and
 * format it with (no JSX here). Shapes: GET /api/players/online (players module), GET /api/players
 * (core), GET /api/status, GET /api/services, GET /api/proxy/motd, GET /api/maintenance.
 */

/** One online player as both pages show it. */
export interface OnlineEntry {
  uuid: string;
  name: string;
  /** The backend the player is on; '' while the proxy has not placed them. */
  service: string;
  /** That backend's group; '' when not known. */
  group: string;
  /** ISO time the current session opened; null when the API does not say (core's listing). */
  since: string | null;
  /** The proxy carrying them; null when it was not said (a report with the shared service token). */
  proxy: string | null;
}

/** GET /api/players/online: the players module's roster. */
export interface ModuleOnlinePlayer {
  uuid: string;
  name: string;
  service: string;
  group: string;
  connectedAt: string;
  proxy: string | null;
}

/** GET /api/players: core's listing (the module's roster when it runs, else the backends pinged). */
export interface CoreListing {
  players: { name: string; uuid: string; service: string; group: string; source: 'roster' | 'ping' | 'both'; proxy: string | null }[];
  total: number;
}

/** GET /api/status: the groups with their totals against capacity. */
export interface NetworkStatus {
  networkName: string;
  totalPlayers: number;
  groups: GroupTotals[];
}

export interface GroupTotals {
  name: string;
  instances: number;
  maxInstances: number;
  players: number;
  maxPlayers: number;
  software: string;
  version: string;
  quarantined: boolean;
}

/** GET /api/services: the fields these pages read. */
export interface ServiceRow {
  name: string;
  groupName: string;
  state: string;
  playerCount: number;
  isDedicated: boolean;
}

/** GET /api/proxy/motd. */
export interface Motd {
  line1: string;
  line2: string;
  maxPlayers: number;
  playerCountOffset: number;
}

/** GET /api/maintenance. */
export interface Maintenance {
  global: { enabled: boolean; reason: string; motdLine1: string; motdLine2: string; whitelist: string[] };
  groups: Record<string, { enabled: boolean; reason: string }>;
}

/** POST /api/players/{name}/send and /kick: the proxies the command went to. */
export interface ViaProxies {
  success: true;
  message: string;
  proxies: string[];
}

/** Software that runs a proxy (src/core/software/kinds.ts: isProxy). */
export const PROXY_SOFTWARE: ReadonlySet<string> = new Set(['VELOCITY']);

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export const byName = <T extends { name: string }>(a: T, b: T): number => collator.compare(a.name, b.name);

/** The players in the list's order: by name (numbers in a name compared as numbers). */
export function sortedPlayers(players: Iterable<OnlineEntry>): OnlineEntry[] {
  return [...players].sort(byName);
}

export interface PlayerFilter {
  /** Part of a name, any case. */
  text: string;
  /** A server's name, or '' for every server. */
  server: string;
}

export const NO_FILTER: PlayerFilter = { text: '', server: '' };

export function filterPlayers(players: readonly OnlineEntry[], filter: PlayerFilter): OnlineEntry[] {
  const text = filter.text.trim().toLowerCase();
  if (text === '' && filter.server === '') return players as OnlineEntry[];
  return players.filter((p) => (filter.server === '' || p.service === filter.server) && (text === '' || p.name.toLowerCase().includes(text)));
}

/** How many of `players` are on each server. */
export function countByServer(players: readonly OnlineEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of players) if (p.service !== '') counts.set(p.service, (counts.get(p.service) ?? 0) + 1);
  return counts;
}

/** The proxy services: those of a group whose software is a proxy. */
export function proxyServices(services: readonly ServiceRow[], groups: readonly GroupTotals[]): ServiceRow[] {
  const proxyGroups = new Set(groups.filter((g) => PROXY_SOFTWARE.has(g.software)).map((g) => g.name));
  return services.filter((s) => proxyGroups.has(s.groupName)).sort(byName);
}

/** Where a player may be sent: READY backends (never a proxy). */
export function sendTargets(services: readonly ServiceRow[], proxies: readonly ServiceRow[]): ServiceRow[] {
  const proxyNames = new Set(proxies.map((p) => p.name));
  return services.filter((s) => s.state === 'READY' && !proxyNames.has(s.name)).sort(byName);
}

/**
 * MiniMessage as plain text for a glance (`<gray>{online} players</gray>` → `{online} players`):
 * tags dropped, the text kept. The proxies render the colours; the page shows the words.
 */
export function plainText(miniMessage: string): string {
  return miniMessage
    .replace(/<\/?[a-z#!][^<>]*>/gi, '')
    .replace(/[&§][0-9a-fk-or]/gi, '')
    .trim();
}

/** "14:02" today, "3 Mar, 14:02" another day, from an ISO time. */
export function shortTime(iso: string | null, now = Date.now()): string {
  if (iso === null) return '—';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '—';
  const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (new Date(now).toDateString() === at.toDateString()) return time;
  return `${at.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: at.getFullYear() === new Date(now).getFullYear() ? undefined : 'numeric' })}, ${time}`;
}

/** A full local date and time, for a title or a table cell. */
export function fullTime(iso: string | null): string {
  if (iso === null) return '—';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? '—' : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** "2h 05m", "4m 10s", "12s" from whole seconds. */
export function formatDuration(totalSeconds: number): string {
  const total = Math.max(0, Math.floor(totalSeconds));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** Players against capacity in words: "3 of 40 (8%)", "no capacity" when no instance runs. */
export function capacityText(players: number, capacity: number): string {
  if (capacity <= 0) return players > 0 ? `${players} (no capacity counted)` : 'no instance running';
  return `${players} of ${capacity} (${Math.round((players / capacity) * 100)}%)`;
}
