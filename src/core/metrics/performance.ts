import { holdsPlayers } from '../players/tracker';
import { ACTIVE_STATES } from '../services/lifecycle';
import type { ServiceRecord } from '../services/registry';
import type { GroupRow } from './group-rows';
import type { StartupStats } from './service-events-store';

export interface GroupPerformance {
  groupName: string;
  isDedicated: boolean;
  crashesLast24h: number;
  averageStartupSeconds: number;
  averageMemoryPercent: number;
  averageTps: number;
  playerCount: number;
  maxPlayers: number;
  serviceCount: number;
  readyServiceCount: number;
}

export interface PerformanceSummary {
  crashesLast24h: number;
  crashesLast7d: number;
  averageStartupSeconds: number;
  uptimePercent: number;
  totalMemoryUsedMb: number;
  totalMemoryMaxMb: number;
  networkPlayers: number;
  serviceCount: number;
  readyServiceCount: number;
  groups: GroupPerformance[];
}

/** What the summary is computed from: values only, so it is tested without a controller. */
export interface PerformanceInput {
  records: readonly ServiceRecord[];
  rows: readonly GroupRow[];
  /** `PlayerTracker.networkTotal`: the `/api/status` figure. */
  networkPlayers: number;
  crashes24h: ReadonlyMap<string, number>;
  crashes7d: ReadonlyMap<string, number>;
  /** Startups of the averaging window (7 days), by group. */
  startups: ReadonlyMap<string, StartupStats>;
  /** See `NetworkHistory.availability`. */
  uptimePercent: number;
  /** Resident memory of a service with a process. */
  memoryUsedMb: (record: ServiceRecord) => number;
}

/**
 * `GET /api/metrics/performance`. Live figures come from the registry: players as
 * `/api/status` counts them, `maxPlayers` as its capacity of the active instances, memory
 * and its average percentage over services with a process, TPS averaged over READY services
 * that reported one (0 when none did: the dashboard shows "—"). Crashes and startup times
 * come from the persisted service events; groups with nothing running are listed with zeros.
 */
export function performanceSummary(input: PerformanceInput): PerformanceSummary {
  const { records } = input;
  const withProcess = records.filter((s) => s.pid !== null);
  const used = new Map(withProcess.map((s) => [s.name, input.memoryUsedMb(s)]));
  const groups = input.rows.map((row): GroupPerformance => {
    const members = records.filter((s) => s.group === row.name);
    const ready = members.filter((s) => s.state === 'READY');
    const running = members.filter((s) => s.pid !== null && s.memoryMaxMb > 0);
    const tps = ready.map((s) => s.tps).filter((v): v is number => v !== null);
    return {
      groupName: row.name,
      isDedicated: row.isDedicated,
      crashesLast24h: input.crashes24h.get(row.name) ?? 0,
      averageStartupSeconds: averageSeconds([input.startups.get(row.name)]),
      averageMemoryPercent: round(average(running.map((s) => (100 * (used.get(s.name) ?? 0)) / s.memoryMaxMb)), 1),
      averageTps: round(average(tps), 2),
      playerCount: members.reduce((sum, s) => sum + (holdsPlayers(s) ? s.playerCount : 0), 0),
      maxPlayers: row.maxPlayersPerInstance * members.filter((s) => ACTIVE_STATES.has(s.state)).length,
      serviceCount: members.length,
      readyServiceCount: ready.length,
    };
  });
  return {
    crashesLast24h: sum(input.crashes24h.values()),
    crashesLast7d: sum(input.crashes7d.values()),
    averageStartupSeconds: averageSeconds([...input.startups.values()]),
    uptimePercent: input.uptimePercent,
    totalMemoryUsedMb: sum(used.values()),
    totalMemoryMaxMb: sum(withProcess.map((s) => s.memoryMaxMb)),
    networkPlayers: input.networkPlayers,
    serviceCount: records.length,
    readyServiceCount: records.filter((s) => s.state === 'READY').length,
    groups,
  };
}

function averageSeconds(stats: readonly (StartupStats | undefined)[]): number {
  let count = 0;
  let totalMs = 0;
  for (const s of stats) {
    count += s?.count ?? 0;
    totalMs += s?.totalMs ?? 0;
  }
  return count === 0 ? 0 : round(totalMs / count / 1000, 3);
}

const sum = (values: Iterable<number>): number => {
  let total = 0;
  for (const v of values) total += v;
  return total;
};
const average = (values: readonly number[]): number => (values.length === 0 ? 0 : sum(values) / values.length);
const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
