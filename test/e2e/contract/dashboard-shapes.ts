/**
 * What the existing dashboard reads and sends, route by route (../shared/CLIENT-CONTRACT.md):
 * the field paths of its answers with their JSON types, and the group bodies it builds out of a
 * group's answer.
 */
import { type Shape } from './expect-shape';
import { arr, field, obj } from './harness';

export const SYSTEM_INFO: Shape = {
  'system.hostname': 'string',
  'system.osName': 'string',
  'system.osVersion': 'string',
  'system.osArch': 'string',
  'system.cpuModel': 'string',
  'system.availableProcessors': 'number',
  'system.systemCpuLoad': 'number',
  'system.processCpuLoad': 'number',
  'system.systemMemoryUsedMb': 'number',
  'system.systemMemoryTotalMb': 'number',
  'system.javaVersion': 'string',
  'system.javaVendor': 'string',
};

export const STATUS: Shape = {
  networkName: 'string',
  online: 'boolean',
  uptimeSeconds: 'number',
  totalServices: 'number',
  totalPlayers: 'number',
  'groups[].name': 'string',
  'groups[].software': 'string',
  'groups[].version': 'string',
  'groups[].instances': 'number',
  'groups[].maxInstances': 'number',
  'groups[].players': 'number',
  'groups[].maxPlayers': 'number',
};

/** One service as the services page, the topology and the player sheet read it. */
export const SERVICE: Shape = {
  name: 'string',
  groupName: 'string',
  state: 'string',
  port: 'number',
  playerCount: 'number',
  memoryUsedMb: 'number',
  memoryMaxMb: 'number',
  healthy: 'boolean',
  uptime: 'string|null',
  isDedicated: 'boolean|absent',
  proxyEnabled: 'boolean|absent',
  nodeId: 'string|absent',
  sync: 'object|null|absent',
  backedBy: 'string|absent',
};

export const prefixed = (prefix: string, shape: Shape): Shape => Object.fromEntries(Object.entries(shape).map(([path, type]) => [`${prefix}${path}`, type]));

/** A group as the groups page, the detail page and the edit dialog read it. */
export const GROUP: Shape = {
  name: 'string',
  type: 'string',
  software: 'string',
  version: 'string',
  template: 'string',
  'resources.memory': 'string',
  'resources.maxPlayers': 'number',
  'scaling.minInstances': 'number',
  'scaling.maxInstances': 'number',
  'scaling.playersPerInstance': 'number',
  'scaling.scaleThreshold': 'number',
  'scaling.idleTimeout': 'number',
  'lifecycle.stopOnEmpty': 'boolean',
  'lifecycle.restartOnCrash': 'boolean',
  'lifecycle.maxRestarts': 'number',
  jvmArgs: 'array',
  'jvmArgs[]?': 'string',
  jvmOptimize: 'boolean',
  activeInstances: 'number',
  docker: 'object|absent',
};

export const DEDICATED: Shape = {
  name: 'string',
  directory: 'string',
  software: 'string',
  version: 'string',
  memory: 'string',
  port: 'number',
  maxRestarts: 'number',
  proxyEnabled: 'boolean',
  restartOnCrash: 'boolean',
  jvmOptimize: 'boolean',
  jvmArgs: 'array',
  'jvmArgs[]?': 'string',
  state: 'string|null',
  pid: 'number|null',
  playerCount: 'number|null',
  uptime: 'string|null',
};

export const STRESS: Shape = {
  active: 'boolean',
  group: 'string|null',
  currentPlayers: 'number',
  targetPlayers: 'number',
  totalCapacity: 'number',
  overflow: 'number',
  elapsedSeconds: 'number',
  services: 'object',
  'services{}?': 'number',
  proxyServices: 'object',
  'proxyServices{}?': 'number',
};

export const MAINTENANCE: Shape = {
  'global.enabled': 'boolean',
  'global.motdLine1': 'string',
  'global.motdLine2': 'string',
  'global.protocolText': 'string',
  'global.kickMessage': 'string',
  'global.whitelist': 'array',
  'global.whitelist[]?': 'string',
  groups: 'object',
  'groups{}?.enabled': 'boolean',
  'groups{}?.kickMessage': 'string',
};

/** The dashboard's body for a group PUT from the detail page, built from its GET as the page does (form defaults where a field is missing). */
export function detailPageBody(group: unknown, name: string) {
  const nested = (section: string, key: string) => field(group, section, key);
  const or = <T,>(value: unknown, fallback: T): T => (value === undefined ? fallback : (value as T));
  return {
    name,
    type: field(group, 'type'),
    template: field(group, 'template'),
    software: or(field(group, 'software'), ''),
    version: or(field(group, 'version'), ''),
    memory: or(nested('resources', 'memory'), ''),
    maxPlayers: or(nested('resources', 'maxPlayers'), 50),
    minInstances: or(nested('scaling', 'minInstances'), 1),
    maxInstances: or(nested('scaling', 'maxInstances'), 4),
    playersPerInstance: or(nested('scaling', 'playersPerInstance'), 40),
    scaleThreshold: or(nested('scaling', 'scaleThreshold'), 0.8),
    idleTimeout: or(nested('scaling', 'idleTimeout'), 0),
    stopOnEmpty: or(nested('lifecycle', 'stopOnEmpty'), false),
    restartOnCrash: or(nested('lifecycle', 'restartOnCrash'), true),
    maxRestarts: or(nested('lifecycle', 'maxRestarts'), 5),
    jvmOptimize: or(field(group, 'jvmOptimize'), true),
  };
}

/** The edit dialog's body (components/group-edit-dialog.tsx): the detail fields plus jvmArgs and docker. */
export function editDialogBody(group: unknown, name: string) {
  const docker = obj(field(group, 'docker'));
  return {
    ...detailPageBody(group, name),
    template: (field(group, 'template') as string | undefined) || name.toLowerCase(),
    jvmArgs: arr(field(group, 'jvmArgs')),
    docker: { enabled: docker.enabled ?? false, memoryLimit: docker.memoryLimit ?? '', cpuLimit: docker.cpuLimit ?? 0, javaImage: docker.javaImage ?? '', network: docker.network ?? '' },
  };
}
