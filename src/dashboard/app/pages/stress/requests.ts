/** The stress routes (stress.ts) with the fields the page reads. */
import { api } from '../../api';

export interface StressStatus {
  active: boolean;
  /** The backend group under test; null when idle or when the test spans every backend group. */
  group: string | null;
  currentPlayers: number;
  targetPlayers: number;
  totalCapacity: number;
  overflow: number;
  elapsedSeconds: number;
  /** Simulated players per READY backend. */
  services: Record<string, number>;
  /** Per READY proxy, the backend total it would carry. */
  proxyServices: Record<string, number>;
}
interface Mutation {
  message: string;
  stress: StressStatus;
}

export const STRESS_KEY = ['stress'] as const;
export const MAX_PLAYERS = 100_000;
export const MAX_SECONDS = 86_400;

export const getStress = () => api<StressStatus>('/api/stress');
/** group null: every backend group. */
export const startStress = (players: number, group: string | null, rampSeconds: number) => api<Mutation>('/api/stress/start', { method: 'POST', json: { players, group, rampSeconds } });
export const rampStress = (players: number, durationSeconds: number) => api<Mutation>('/api/stress/ramp', { method: 'POST', json: { players, durationSeconds } });
export const stopStress = () => api<Mutation>('/api/stress/stop', { method: 'POST' });

/** STRESS_TEST_UPDATED's perService (`name=count,name=count`) as a record. */
export function perService(text: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (text ?? '').split(',')) {
    const at = part.lastIndexOf('=');
    if (at > 0) out[part.slice(0, at)] = Number(part.slice(at + 1)) || 0;
  }
  return out;
}
