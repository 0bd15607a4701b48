import type { ServiceRecord } from '../services/registry';

/** One row of the dashboard's per-group figures. */
export interface GroupRow {
  name: string;
  /** A dedicated service: its own row, under its own name (as `svc_service_crashes_total` labels it). */
  isDedicated: boolean;
  /** Players one instance admits (`resources.max_players`); 0 for dedicated services, which declare none. */
  maxPlayersPerInstance: number;
}

/**
 * Every row the dashboard's player history and performance figures carry, with zeros when
 * nothing runs: the configured groups (store order), the configured dedicated services, then
 * the groups of services the controller still knows whose group is gone (sorted).
 */
export function groupRows(groups: readonly { name: string; maxPlayers: number }[], dedicated: readonly { name: string }[], records: readonly Pick<ServiceRecord, 'group' | 'isDedicated'>[]): GroupRow[] {
  const rows: GroupRow[] = [
    ...groups.map((g) => ({ name: g.name, isDedicated: false, maxPlayersPerInstance: g.maxPlayers })),
    ...dedicated.map((d) => ({ name: d.name, isDedicated: true, maxPlayersPerInstance: 0 })),
  ];
  const known = new Set(rows.map((r) => r.name));
  const orphans = new Map<string, boolean>();
  for (const record of records) if (!known.has(record.group)) orphans.set(record.group, record.isDedicated);
  const extra = [...orphans].sort(([a], [b]) => a.localeCompare(b)).map(([name, isDedicated]) => ({ name, isDedicated, maxPlayersPerInstance: 0 }));
  return [...rows, ...extra];
}
