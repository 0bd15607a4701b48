/**
 * The routes the Overview calls beside GET /api/status: the controller's own figures
 * (controller-info.ts), its changelog, and a broadcast (players.ts), with the fields it reads.
 */
import { api } from '../../api';

/** GET /api/controller/info's `system`: the machine the controller runs on. */
export interface SystemFacts {
  hostname: string;
  osName: string;
  osVersion: string;
  osArch: string;
  cpuModel: string;
  availableProcessors: number;
  /** 0..1 since the previous reading. */
  systemCpuLoad: number;
  /** 0..1 of the whole machine; -1 where it is not reported. */
  processCpuLoad: number;
  systemMemoryUsedMb: number;
  systemMemoryTotalMb: number;
  runtimeVersion: string;
  runtimeVendor: string;
}

export interface ControllerInfo {
  version: string;
  startedAt: string;
  uptimeSeconds: number;
  /** Resident memory of the controller process. */
  runtimeMemoryUsedMb: number;
  /** svc fills the reference's JVM names with its own figures: the JavaScript heap the runtime committed… */
  jvmMemoryAllocatedMb: number;
  /** …and what the process may grow to (its cgroup limit, else the machine's memory). */
  jvmMemoryMaxMb: number;
  /** [controller] max_memory. */
  servicesMaxMemoryMb: number;
  /** What the services on this machine are budgeted: what max_memory is checked against. */
  servicesAllocatedMemoryMb: number;
  /** Resident memory of the services on this machine. */
  servicesUsedMemoryMb: number;
  runningServices: number;
  system: SystemFacts;
  updateAvailable: boolean;
  latestVersion: string | null;
  updateType: 'MAJOR' | 'MINOR' | 'PATCH' | null;
  releaseUrl: string | null;
}

export interface ChangelogEntry {
  version: string;
  /** The first line of prose; a released version's ends in "(<date>)". */
  title: string;
  /** Markdown: ### headings, - list lines (indented ones nested or continued), paragraphs. */
  body: string;
}

export interface BroadcastAnswer {
  success: true;
  message: string;
  services: number;
  targets: string[];
}

/** The broadcast route's limits: one line of 1 to 1024 characters. */
export const BROADCAST_MAX = 1024;

export const INFO_KEY = ['controller', 'info'] as const;
export const CHANGELOG_KEY = ['controller', 'changelog'] as const;

export const getInfo = () => api<ControllerInfo>('/api/controller/info');
export const getChangelog = () => api<{ entries: ChangelogEntry[] }>('/api/controller/changelog');
export const broadcast = (message: string, group: string | null) =>
  api<BroadcastAnswer>('/api/broadcast', { method: 'POST', json: group === null ? { message } : { message, group } });

/** Megabytes as people read them: "812 MB", "1.5 GB". */
export function megabytes(mb: number): string {
  if (mb >= 1024) return `${(mb / 1024).toFixed(mb >= 10 * 1024 ? 0 : 1)} GB`;
  return `${Math.round(mb)} MB`;
}

/** A 0..1 load as a percentage; a negative one (not reported) as a dash. */
export function percent(load: number): string {
  if (load < 0) return '—';
  return `${(load * 100).toFixed(1)} %`;
}

/** Seconds as "2d 3h 4m", "5m 6s" under an hour. */
export function uptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m`;
  return `${m}m ${s}s`;
}
