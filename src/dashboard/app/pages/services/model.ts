/**
 * What the Services page reads of GET /api/services (the spec's service record; only the fields
 * shown here), and the pure helpers the page sorts, filters and formats it with.
 */
export const SERVICE_STATES = ['PREPARING', 'PREPARED', 'STARTING', 'READY', 'DRAINING', 'STOPPING', 'STOPPED', 'CRASHED'] as const;
export type ServiceState = (typeof SERVICE_STATES)[number];

export interface Service {
  name: string;
  groupName: string;
  state: ServiceState;
  customState: string | null;
  nodeId: string;
  playerCount: number;
  memoryUsedMb: number;
  memoryMaxMb: number;
  /** ISO time the process started; null when it has not. */
  startedAt: string | null;
  isDedicated: boolean;
  diagnosis: string | null;
  quarantined: boolean;
}

export interface ServiceList {
  services: Service[];
  total: number;
}

/** The answer of the start, stop and restart routes (start and restart also name the service started). */
export interface ActionAnswer {
  success: true;
  message: string;
  service?: { name: string };
}

/** A service with no process: one a bulk Start brings back (the others are already up or on their way down). */
export const DOWN_STATES: ReadonlySet<ServiceState> = new Set(['STOPPED', 'CRASHED']);

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * The page's list order, which is also the order bulk actions run in: by name, numbers in a name
 * compared as numbers (Lobby-2 before Lobby-10). The API's own order follows start times, so a
 * restarted service would jump to the end of the list and a bulk run would be hard to follow.
 */
export function sortServices(services: readonly Service[]): Service[] {
  return [...services].sort((a, b) => collator.compare(a.name, b.name));
}

export interface Filters {
  /** A group name, or '' for every group. */
  group: string;
  /** A state, or '' for every state. */
  state: string;
  /** Part of a name, any case; '' for every name. */
  text: string;
}

export const NO_FILTERS: Filters = { group: '', state: '', text: '' };

export function applyFilters(services: readonly Service[], filters: Filters): Service[] {
  const text = filters.text.trim().toLowerCase();
  return services.filter(
    (s) => (filters.group === '' || s.groupName === filters.group) && (filters.state === '' || s.state === filters.state) && (text === '' || s.name.toLowerCase().includes(text)),
  );
}

/** "1h 02m 05s" style, counted from `startedAt` to `now` (ms); '—' when not started. */
export function formatUptime(startedAt: string | null, now: number): string {
  if (startedAt === null) return '—';
  const total = Math.max(0, Math.floor((now - Date.parse(startedAt)) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** Megabytes as the operator reads them: "512 MB", "1.5 GB". */
export function formatMb(mb: number): string {
  return mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${mb} MB`;
}

/** "40 MB / 1.5 GB": what the process holds, of what its group allows. */
export function formatMemory(usedMb: number, maxMb: number): string {
  return `${formatMb(usedMb)} / ${formatMb(maxMb)}`;
}

/** A failure's words for the operator: the API's message, else whatever the error says. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
