/** GET /api/metrics/performance and /api/metrics/players/history (metrics-dashboard.ts), with the fields the page reads. */
import { api } from '../../api';

export interface GroupPerformance {
  groupName: string;
  isDedicated: boolean;
  crashesLast24h: number;
  /** STARTING to READY over the last 7 days; 0 without any start. */
  averageStartupSeconds: number;
  averageMemoryPercent: number;
  /** 0 when no READY service reported a TPS. */
  averageTps: number;
  playerCount: number;
  maxPlayers: number;
  serviceCount: number;
  readyServiceCount: number;
}

export interface Performance {
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

export interface PlayerSample {
  timestamp: string;
  totalPlayers: number;
  byGroup: Record<string, number>;
}

export const PERFORMANCE_KEY = ['metrics', 'performance'] as const;
export const historyKey = (minutes: number) => ['metrics', 'players', minutes] as const;

export const getPerformance = () => api<Performance>('/api/metrics/performance');
export const getPlayerHistory = (minutes: number) => api<{ samples: PlayerSample[] }>(`/api/metrics/players/history?minutes=${minutes}`);

/** Megabytes as the page shows them: MiB below a GiB, GiB with one decimal above. */
export const memory = (mb: number) => (mb < 1024 ? `${mb} MiB` : `${(mb / 1024).toFixed(1)} GiB`);
/** Seconds (two decimals below 10 s, one above), or a dash when nothing was measured. */
export const seconds = (s: number) => (s > 0 ? `${s.toFixed(s < 10 ? 2 : 1)} s` : '—');
