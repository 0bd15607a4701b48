import type { ServerStatus } from '../net/server-list-ping';
import type { ServiceRecord } from '../services/registry';
import type { Roster } from './roster';
import { NIL_UUID, normalizeUuid } from './uuid';

/** Spec: the player list pings each backend for at most 3 s. */
export const PLAYER_LIST_PING_TIMEOUT_MS = 3000;

export interface ListedPlayer {
  name: string;
  /** Lower-case dashed; empty when the server did not say. */
  uuid: string;
  service: string;
  group: string;
  /** Who says so: the proxy bridge, the server's own status, or both. */
  source: 'roster' | 'ping' | 'both';
}

export interface PingedService {
  service: string;
  group: string;
  reachable: boolean;
  /** Players the server reports online; its status lists at most a sample of them (vanilla: 12). */
  online: number;
  max: number;
  error?: string;
}

export interface PlayerListing {
  players: ListedPlayer[];
  total: number;
  /** The larger of the listed players and the sum the servers report (samples are partial). */
  online: number;
  services: PingedService[];
}

export type Ping = (host: string, port: number, options: { timeoutMs: number; measureLatency: boolean }) => Promise<ServerStatus>;

/**
 * Who is online: every READY backend is asked with Server List Ping, all in parallel and each
 * for at most `timeoutMs`, and what they answer is merged with the roster by uuid (a ping is
 * newer, so it decides the service). Approximate by nature: a status lists a sample, a
 * server may hide names, and a hung server only costs its own entry, never more time.
 */
export async function listOnlinePlayers(
  backends: readonly ServiceRecord[],
  roster: Roster,
  ping: Ping,
  options: { timeoutMs?: number; observe?: (service: string, online: number) => void; groupOf?: (service: string) => string | undefined } = {},
): Promise<PlayerListing> {
  const timeoutMs = options.timeoutMs ?? PLAYER_LIST_PING_TIMEOUT_MS;
  const results = await Promise.allSettled(backends.map((s) => ping('127.0.0.1', s.port, { timeoutMs, measureLatency: false })));

  const players = new Map<string, ListedPlayer>();
  for (const p of roster.all()) {
    players.set(p.uuid, { name: p.name, uuid: p.uuid, service: p.service, group: options.groupOf?.(p.service) ?? '', source: 'roster' });
  }
  const services: PingedService[] = [];
  let reportedOnline = 0;
  backends.forEach((service, i) => {
    const result = results[i]!;
    if (result.status === 'rejected') {
      services.push({ service: service.name, group: service.group, reachable: false, online: 0, max: 0, error: (result.reason as Error).message });
      return;
    }
    const { online, max, sample = [] } = result.value.players;
    services.push({ service: service.name, group: service.group, reachable: true, online, max });
    reportedOnline += online;
    options.observe?.(service.name, online);
    for (const entry of sample) {
      const uuid = normalizeUuid(entry.id) ?? '';
      if (uuid === NIL_UUID) continue; // an anonymised entry ("hide online players")
      const key = uuid || `name:${entry.name.toLowerCase()}`;
      const known = players.get(key);
      players.set(key, { name: entry.name, uuid, service: service.name, group: service.group, source: known ? 'both' : 'ping' });
    }
  });
  const list = [...players.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { players: list, total: list.length, online: Math.max(list.length, reportedOnline), services };
}
