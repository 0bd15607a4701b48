import { Type, type Static } from '@sinclair/typebox';
import { SERVICE_STATES } from './lifecycle';
import { residentMemoryMb } from './process-memory';
import { LOCAL_NODE, type ServiceRecord } from './registry';
import { formatUptime, runningSeconds } from './uptime';

/** TPS below this counts as unhealthy (the doctor's threshold too). */
export const HEALTHY_TPS = 15;

/** State sync facts of a service of a STATIC group with `sync.enabled` (see src/cluster/state-sync). */
export const SyncViewSchema = Type.Object({
  lastPushAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO time of the last committed push; null before the first' }),
  lastPushBytes: Type.Integer({ description: 'bytes uploaded by the last push' }),
  lastPushFiles: Type.Integer({ description: 'files uploaded by the last push' }),
  canonicalSizeBytes: Type.Integer({ description: "size of the controller's canonical copy" }),
});
export type SyncView = Static<typeof SyncViewSchema>;
/** The sync facts of a service, undefined when its group does not sync. */
export type SyncLookup = (record: Pick<ServiceRecord, 'name' | 'group'>) => SyncView | undefined;

export const ServiceViewSchema = Type.Object({
  name: Type.String(),
  groupName: Type.String(),
  state: Type.Union(SERVICE_STATES.map((s) => Type.Literal(s))),
  customState: Type.Union([Type.String(), Type.Null()], { description: 'free text an SDK set; null when unset (never empty)' }),
  port: Type.Integer(),
  host: Type.String(),
  nodeId: Type.String(),
  pid: Type.Union([Type.Integer(), Type.Null()]),
  playerCount: Type.Integer(),
  memoryUsedMb: Type.Integer(),
  memoryMaxMb: Type.Integer(),
  tps: Type.Optional(Type.Number({ description: 'the last TPS the SDK reported; absent until it reports one' })),
  healthy: Type.Boolean(),
  uptime: Type.Union([Type.String(), Type.Null()], { description: 'time since the process started as "<h>h <m>m <s>s"; null when not started' }),
  uptimeSeconds: Type.Integer({ description: 'seconds since the process started; 0 when not started' }),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  restartCount: Type.Integer(),
  isStatic: Type.Boolean({ description: 'keeps its directory across restarts: an instance of a STATIC group, or a dedicated service' }),
  isDedicated: Type.Boolean(),
  proxyEnabled: Type.Boolean(),
  diagnosis: Type.Union([Type.String(), Type.Null()], { description: 'why it last failed, when it did' }),
  quarantined: Type.Boolean({ description: 'svc: its group (or dedicated service) is quarantined for a crash loop: it is not restarted, and no instance starts until an operator lifts it' }),
  sync: Type.Optional(SyncViewSchema),
});
export type ServiceView = Static<typeof ServiceViewSchema>;

/** Resident memory: the agent's report for a remote service, the process table for a local one. */
export function memoryUsedMb(record: Pick<ServiceRecord, 'memoryUsedMb' | 'nodeId' | 'pid'>): number {
  if (record.nodeId !== LOCAL_NODE) return record.memoryUsedMb ?? 0;
  return residentMemoryMb(record.pid);
}

/** The API form of a service record, with live memory from the process table (and sync facts when `sync` is given). */
export function serviceView(record: ServiceRecord, now = Date.now(), sync?: SyncLookup, quarantined = false): ServiceView {
  const facts = sync?.(record);
  const uptimeSeconds = runningSeconds(record, now) ?? 0;
  return {
    name: record.name,
    groupName: record.group,
    state: record.state,
    // The record keeps '' for "no custom state"; clients (the SDK's isRoutable) test for null.
    customState: record.customState === '' ? null : record.customState,
    port: record.port,
    host: record.host,
    nodeId: record.nodeId,
    pid: record.pid,
    playerCount: record.playerCount,
    memoryUsedMb: memoryUsedMb(record),
    memoryMaxMb: record.memoryMaxMb,
    // Absent rather than null while unknown: the SDK reads it as a plain number.
    ...(record.tps === null ? {} : { tps: record.tps }),
    healthy: record.state === 'READY' && (record.tps === null || record.tps >= HEALTHY_TPS),
    uptime: record.startedAt ? formatUptime(uptimeSeconds) : null,
    uptimeSeconds,
    startedAt: record.startedAt?.toISOString() ?? null,
    restartCount: record.restartCount,
    isStatic: record.isStatic,
    isDedicated: record.isDedicated,
    proxyEnabled: !record.isProxy && record.proxyEnabled,
    diagnosis: record.diagnosis,
    quarantined,
    ...(facts ? { sync: facts } : {}),
  };
}
