import { Type, type Static } from '@sinclair/typebox';
import { SERVICE_STATES } from './lifecycle';
import { residentMemoryMb } from './process-memory';
import { LOCAL_NODE, type ServiceRecord } from './registry';

/** TPS below this counts as unhealthy (the doctor's threshold too). */
export const HEALTHY_TPS = 15;

export const ServiceViewSchema = Type.Object({
  name: Type.String(),
  groupName: Type.String(),
  state: Type.Union(SERVICE_STATES.map((s) => Type.Literal(s))),
  customState: Type.String(),
  port: Type.Integer(),
  host: Type.String(),
  nodeId: Type.String(),
  pid: Type.Union([Type.Integer(), Type.Null()]),
  playerCount: Type.Integer(),
  memoryUsedMb: Type.Integer(),
  memoryMaxMb: Type.Integer(),
  tps: Type.Union([Type.Number(), Type.Null()]),
  healthy: Type.Boolean(),
  uptime: Type.Integer({ description: 'seconds since the process started' }),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  restartCount: Type.Integer(),
  isDedicated: Type.Boolean(),
  proxyEnabled: Type.Boolean(),
  diagnosis: Type.Union([Type.String(), Type.Null()], { description: 'why it last failed, when it did' }),
});
export type ServiceView = Static<typeof ServiceViewSchema>;

/** Resident memory: the agent's report for a remote service, the process table for a local one. */
export function memoryUsedMb(record: Pick<ServiceRecord, 'memoryUsedMb' | 'nodeId' | 'pid'>): number {
  if (record.nodeId !== LOCAL_NODE) return record.memoryUsedMb ?? 0;
  return residentMemoryMb(record.pid);
}

/** The API form of a service record, with live memory from the process table. */
export function serviceView(record: ServiceRecord, now = Date.now()): ServiceView {
  return {
    name: record.name,
    groupName: record.group,
    state: record.state,
    customState: record.customState,
    port: record.port,
    host: record.host,
    nodeId: record.nodeId,
    pid: record.pid,
    playerCount: record.playerCount,
    memoryUsedMb: memoryUsedMb(record),
    memoryMaxMb: record.memoryMaxMb,
    tps: record.tps,
    healthy: record.state === 'READY' && (record.tps === null || record.tps >= HEALTHY_TPS),
    uptime: record.startedAt ? Math.max(0, Math.floor((now - record.startedAt.getTime()) / 1000)) : 0,
    startedAt: record.startedAt?.toISOString() ?? null,
    restartCount: record.restartCount,
    isDedicated: record.isDedicated,
    proxyEnabled: !record.isProxy && record.proxyEnabled,
    diagnosis: record.diagnosis,
  };
}
