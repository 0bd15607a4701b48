import type { SystemFacts } from '../core/info/system-facts';
import type { AuthRequestMessage, HeartbeatResponseMessage } from './protocol';

/** The system facts an agent reports (`GET /api/nodes` `system`): the controller info's shape, less its own process load. */
export type NodeSystem = Omit<SystemFacts, 'processCpuLoad'>;

/** One cluster node as the controller knows it; kept after a disconnect until it fails, and a while after (deadNodeExpiryMs). */
export interface ClusterNode {
  nodeId: string;
  host: string;
  agentVersion: string;
  maxMemoryMb: number;
  maxServices: number;
  cpuUsage: number;
  memoryUsedMb: number;
  memoryTotalMb: number;
  connected: boolean;
  /** Wall-clock ms, shown in GET /api/nodes. */
  connectedAt: number;
  /** Wall-clock ms, shown in GET /api/nodes. */
  lastHeartbeat: number;
  /** The last heartbeat (or the login) on the monotonic clock: what node_timeout and the heartbeat-age metric measure. */
  heardMono: number;
  system: NodeSystem;
  /** How it isolates its services (`[services] isolation` resolved on the agent); null from an agent too old to say. */
  isolation: string | null;
}

/**
 * A node record from its AUTH_REQUEST; `host` is what proxies and players dial, decided by the
 * caller (the node's enrolment, not what this login reports).
 */
export function nodeFromAuth(request: AuthRequestMessage, host: string, now: number, mono: number): ClusterNode {
  return {
    nodeId: request.nodeName,
    host,
    agentVersion: request.agentVersion,
    maxMemoryMb: request.maxMemory,
    maxServices: request.maxServices,
    cpuUsage: 0,
    memoryUsedMb: 0,
    memoryTotalMb: request.systemMemoryTotalMb,
    connected: true,
    connectedAt: now,
    lastHeartbeat: now,
    heardMono: mono,
    system: {
      hostname: request.hostname,
      osName: request.os,
      osVersion: request.osVersion,
      osArch: request.arch,
      cpuModel: request.cpuModel,
      availableProcessors: request.availableProcessors,
      systemCpuLoad: 0,
      systemMemoryUsedMb: 0,
      systemMemoryTotalMb: request.systemMemoryTotalMb,
      // The runtime the agent runs on; an agent too old to report it says so rather than guessing.
      runtimeVersion: request.bunVersion ? `Bun ${request.bunVersion}` : 'Bun (version not reported)',
      runtimeVendor: 'Oven',
    },
    isolation: request.isolation ?? null,
  };
}

/** A heartbeat's figures onto the node; `now` is wall-clock ms, `mono` the monotonic reading. */
export function applyHeartbeat(node: ClusterNode, beat: HeartbeatResponseMessage, now: number, mono: number): void {
  node.lastHeartbeat = now;
  node.heardMono = mono;
  node.cpuUsage = beat.cpuUsage;
  node.memoryUsedMb = beat.memoryUsedMb;
  node.memoryTotalMb = beat.memoryTotalMb;
  node.system.systemCpuLoad = beat.cpuUsage;
  node.system.systemMemoryUsedMb = beat.memoryUsedMb;
  node.system.systemMemoryTotalMb = beat.memoryTotalMb;
}
