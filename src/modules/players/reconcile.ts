import { holdsPlayers, proxyUp } from '../../core/players/tracker';
import type { ServiceRecord } from '../../core/services/registry';

/** What reconciling needs to know of a service. */
export type ServiceView = Pick<ServiceRecord, 'name' | 'state' | 'isProxy' | 'playerCount' | 'playersReportedAt'>;

/** What reconciling needs to know of an open session. */
export interface OpenSessionView {
  service: string;
  connectedAt: number;
}

/** How long a backend's SDK may still report 0 after a player joined it before the report wins. */
export const REPORT_GRACE_MS = 60_000;

/**
 * True when the controller supervises proxies and none of them is up: nobody can be connected
 * through them. With no supervised proxy at all (an external one feeds the bridge) it is false.
 */
export function proxiesGone(services: readonly ServiceView[]): boolean {
  const proxies = services.filter((s) => s.isProxy);
  return proxies.length > 0 && !proxies.some(proxyUp);
}

/**
 * The sessions a controller restart must close: every one when the proxies are gone, else
 * those on a service that is unknown now or not running (it stopped or crashed while no
 * controller watched). The rest are the roster, until the bridge says otherwise.
 */
export function closedByRestart<S extends OpenSessionView>(open: readonly S[], services: readonly ServiceView[]): S[] {
  if (proxiesGone(services)) return [...open];
  const byName = new Map(services.map((s) => [s.name, s]));
  return open.filter((session) => {
    const service = byName.get(session.service);
    return !service || !holdsPlayers(service);
  });
}

/**
 * Sessions a backend's own count contradicts: its SDK reported 0 players at least
 * REPORT_GRACE_MS after the session opened (a disconnect the controller never heard of, for
 * example one while it was down). Each closes at the time of that report.
 */
export function emptiedByReport<S extends OpenSessionView>(open: readonly S[], services: readonly ServiceView[], graceMs = REPORT_GRACE_MS): { session: S; at: number }[] {
  const byName = new Map(services.map((s) => [s.name, s]));
  const out: { session: S; at: number }[] = [];
  for (const session of open) {
    const service = byName.get(session.service);
    if (!service || service.isProxy || service.playersReportedAt === null || service.playerCount !== 0) continue;
    if (service.playersReportedAt - session.connectedAt >= graceMs) out.push({ session, at: service.playersReportedAt });
  }
  return out;
}
