import type { Kernel } from '../kernel';
import { holdsPlayers } from './players/tracker';
import { secondsSinceMono } from './time/monotonic';

export interface GroupStatus {
  name: string;
  /** Active instances. */
  instances: number;
  maxInstances: number;
  /** Live: SDK reports moved by the proxy events since. */
  players: number;
  /** Capacity of the active instances. */
  maxPlayers: number;
  software: string;
  version: string;
  /** The crash-loop breaker stopped the group: nothing starts it until an operator lifts it (svc). */
  quarantined: boolean;
}

export interface NetworkStatus {
  networkName: string;
  /** At least one service is READY. */
  online: boolean;
  uptimeSeconds: number;
  uptimeHuman: string;
  totalServices: number;
  /** Players on the network: the larger of what backends and proxies count. */
  totalPlayers: number;
  groups: GroupStatus[];
}

/** The network at a glance, as `GET /api/status` and the `status` command show it. */
export function networkStatus(kernel: Pick<Kernel, 'startedMono' | 'services' | 'groups' | 'config' | 'players' | 'manager'>): NetworkStatus {
  const uptimeSeconds = secondsSinceMono(kernel.startedMono);
  const services = kernel.services.all();
  const groups = kernel.groups.list().map((group) => {
    const members = kernel.services.ofGroup(group.name);
    const instances = kernel.services.activeInstances(group.name);
    return {
      name: group.name,
      instances,
      maxInstances: group.maxInstances,
      players: members.reduce((sum, s) => sum + (holdsPlayers(s) ? s.playerCount : 0), 0),
      maxPlayers: group.maxPlayers * instances,
      software: group.software,
      version: group.version,
      quarantined: kernel.manager.isQuarantined(group.name),
    };
  });
  return {
    networkName: kernel.config.network.name,
    online: services.some((s) => s.state === 'READY'),
    uptimeSeconds,
    uptimeHuman: humanDuration(uptimeSeconds),
    totalServices: services.length,
    totalPlayers: kernel.players.networkTotal(),
    groups,
  };
}

/** `3d 4h 5m`, `4h 5m`, `5m 6s`: a duration a person reads at a glance. */
export function humanDuration(totalSeconds: number): string {
  const d = Math.floor(totalSeconds / 86_400);
  const h = Math.floor((totalSeconds % 86_400) / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m`;
  return `${m}m ${s}s`;
}
