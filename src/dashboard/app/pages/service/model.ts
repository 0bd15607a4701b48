/**
 * What a service's page reads: GET /api/services/{name} (the spec's service record, the fields
 * shown here), its metric history, its log tail, and audit entries. Types only, and the query
 * keys the page's parts share.
 */
import type { Service } from '../services/model';

export interface ServiceRecord extends Service {
  port: number;
  host: string;
  pid: number | null;
  tps?: number;
  healthy: boolean;
  restartCount: number;
  isStatic: boolean;
}

export interface MetricSample {
  timestamp: string;
  memoryUsedMb: number;
  memoryMaxMb: number;
  playerCount: number;
}

export type LogSource = 'app' | 'stdout';

export const recordKey = (name: string) => ['service', name] as const;
export const timelineKey = (name: string) => ['service', name, 'timeline'] as const;
export const metricsKey = (name: string) => ['service', name, 'metrics'] as const;
export const logsKey = (name: string, source: LogSource) => ['service', name, 'logs', source] as const;

/** The path of a service's route: its name encoded once. */
export const servicePath = (name: string, rest = '') => `/api/services/${encodeURIComponent(name)}${rest}`;
