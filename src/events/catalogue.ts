/**
 * Every event type of both spec documents with its data keys. Events are values: a type from
 * this table plus a flat map of its keys, published after the state change is durable.
 *
 * `audit` decides what the audit log keeps: `always` (operator-facing changes), `actor` (only
 * when a person or API caller caused it, not the controller itself), or `never`.
 */
type KeySpec = Readonly<Record<string, 'required' | 'optional'>>;
type AuditRule = 'always' | 'actor' | 'never';
interface EventSpec {
  readonly keys: KeySpec;
  readonly audit: AuditRule;
  /** The module that owns the event (module events carry moduleId in their data). */
  readonly module?: string;
  /** SERVICE_MESSAGE carries the sender's own data entries beside its keys. */
  readonly openKeys?: true;
  /** The data key the audit log shows as the target, where the generic preference order would pick the wrong one. */
  readonly auditTarget?: string;
}

const R = 'required' as const;
const O = 'optional' as const;
const ev = <K extends KeySpec>(keys: K, audit: AuditRule = 'never', extra: Partial<EventSpec> = {}) => ({ keys, audit, ...extra });
const mod = <K extends KeySpec>(module: string, keys: K, audit: AuditRule = 'always', extra: Partial<EventSpec> = {}) => ({ keys: { ...keys, moduleId: O }, audit, module, ...extra });

export const EVENT_CATALOGUE = {
  SERVICE_STARTING: ev({ service: R, group: R, port: R }, 'actor'),
  SERVICE_READY: ev({ service: R, group: R }),
  SERVICE_DRAINING: ev({ service: R, group: R }, 'actor'),
  SERVICE_STOPPING: ev({ service: R }, 'actor'),
  SERVICE_STOPPED: ev({ service: R }),
  SERVICE_CRASHED: ev({ service: R, exitCode: R, restartAttempt: R }),
  SERVICE_RECOVERED: ev({ service: R, group: R, pid: R, port: R }),
  SERVICE_PREPARED: ev({ service: R, group: R }),
  SERVICE_DEPLOYED: ev({ service: R, group: R, filesChanged: R }, 'always'),
  SERVICE_CUSTOM_STATE_CHANGED: ev({ service: R, group: R, oldState: O, newState: O }),
  WARM_POOL_REPLENISHED: ev({ group: R, poolSize: R }),
  SCALE_UP: ev({ group: R, from: R, to: R, reason: R }),
  SCALE_DOWN: ev({ group: R, service: R, reason: R }),
  PLACEMENT_BLOCKED: ev({ group: R, reason: R }),
  // A push replaces what a service runs from: audited with who pushed (api:node:<id> for an agent).
  SYNC_COMPLETED: ev({ service: R, filesInManifest: R, filesReceived: R, bytesReceived: R, durationMs: R }, 'actor'),
  SYNC_FAILED: ev({ service: R, reason: R }, 'actor'),
  PLAYER_CONNECTED: ev({ player: R, uuid: R, service: R }),
  PLAYER_DISCONNECTED: ev({ player: R, uuid: R, service: R }),
  PLAYER_SERVER_SWITCH: ev({ player: R, uuid: R, from: R, to: R }),
  GROUP_CREATED: ev({ group: R }, 'always'),
  GROUP_UPDATED: ev({ group: R }, 'always'),
  GROUP_DELETED: ev({ group: R }, 'always'),
  // The crash-loop breaker (svc): a group (or dedicated service, kind "dedicated") quarantined
  // until an operator lifts it; audited with the controller as actor, and with who lifted it.
  GROUP_QUARANTINED: ev({ group: R, kind: R, reason: R, crashes: R, service: R }, 'always', { auditTarget: 'group' }),
  GROUP_QUARANTINE_LIFTED: ev({ group: R, kind: R, since: R }, 'always'),
  SERVICE_MESSAGE: ev({ from: R, to: R, channel: R }, 'never', { openKeys: true }),
  TABLIST_UPDATED: ev({ header: R, footer: R, playerFormat: R, updateInterval: R }, 'always'),
  MOTD_UPDATED: ev({ line1: R, line2: R, maxPlayers: R, playerCountOffset: R }, 'always'),
  PLAYER_TAB_UPDATED: ev({ uuid: R, format: O }, 'always'),
  CHAT_FORMAT_UPDATED: ev({ format: R, enabled: R }, 'always'),
  MAINTENANCE_ENABLED: ev({ scope: R, reason: O }, 'always'),
  MAINTENANCE_DISABLED: ev({ scope: R }, 'always'),
  CLUSTER_STARTED: ev({ bind: R, port: R, strategy: R }),
  NODE_CONNECTED: ev({ nodeId: R, host: R }, 'always'),
  NODE_DISCONNECTED: ev({ nodeId: R }, 'always'),
  NODE_HEARTBEAT: ev({ nodeId: R, cpuUsage: R, services: R }),
  // Node identities (svc): enrolment with the cluster token, and the operator's revocations.
  NODE_ENROLLED: ev({ nodeId: R, host: R, reenrolled: R }, 'always'),
  NODE_REVOKED: ev({ nodeId: R, services: R }, 'always'),
  NODE_FORGOTTEN: ev({ nodeId: R }, 'always'),
  NODE_HOST_CHANGED: ev({ nodeId: R, host: R, previous: R }, 'always'),
  LOAD_BALANCER_STARTED: ev({ bind: R, port: R, strategy: R }),
  LOAD_BALANCER_STOPPED: ev({ reason: R }),
  LOAD_BALANCER_BACKEND_HEALTH_CHANGED: ev({ host: R, port: R, oldStatus: R, newStatus: R }),
  DEDICATED_CREATED: ev({ name: R }, 'always'),
  DEDICATED_DELETED: ev({ name: R }, 'always'),
  STRESS_TEST_UPDATED: ev({ simulatedPlayers: R, targetPlayers: R, targetGroup: O, perService: O }),
  CONFIG_RELOADED: ev({ groupsLoaded: R }, 'always'),
  API_STARTED: ev({ bind: R, port: R }, 'always'),
  API_STOPPED: ev({ reason: R }, 'always'),
  API_WARNING: ev({ message: R }),
  API_ERROR: ev({ error: R }),
  SVC_UPDATE_AVAILABLE: ev({ currentVersion: R, newVersion: R, updateType: R }),
  SVC_UPDATE_APPLIED: ev({ oldVersion: R, newVersion: R }, 'always'),
  PROXY_UPDATE_AVAILABLE: ev({ currentVersion: R, newVersion: R }),
  PROXY_UPDATE_APPLIED: ev({ oldVersion: R, newVersion: R }, 'always'),
  MODULE_LOADED: ev({ moduleId: R, moduleName: R, moduleVersion: R }),
  MODULE_ENABLED: ev({ moduleId: R, moduleName: R }, 'always'),
  MODULE_DISABLED: ev({ moduleId: R, moduleName: R }, 'always'),
  CLI_SESSION_CONNECTED: ev({ sessionId: R, remoteIp: R, clientUsername: R, clientHostname: R, clientOs: R, location: R }, 'always'),
  CLI_SESSION_DISCONNECTED: ev({ sessionId: R, remoteIp: R, clientUsername: R, durationSeconds: R, commandCount: R }, 'always'),

  // Dashboard login (core events of the auth document; the spec leaves the wire names open).
  DASHBOARD_LOGIN_SUCCEEDED: ev({ uuid: R, name: R, method: R, totpUsed: R, ip: O, sessionId: O }, 'always'),
  DASHBOARD_LOGIN_FAILED: ev({ reason: R, uuid: O, ip: O }, 'always'),
  DASHBOARD_SESSION_REVOKED: ev({ uuid: R, sessionId: O, scope: R, count: R, ip: O }, 'always'),

  // Module events (module-event envelope, unwrapped on the wire).
  PERMISSION_GROUP_CREATED: mod('perms', { group: R }),
  PERMISSION_GROUP_UPDATED: mod('perms', { group: R }),
  PERMISSION_GROUP_DELETED: mod('perms', { group: R }),
  PLAYER_PERMISSIONS_UPDATED: mod('perms', { uuid: R, player: R }),
  PERMISSION_TRACK_CREATED: mod('perms', { track: R }),
  PERMISSION_TRACK_DELETED: mod('perms', { track: R }),
  PLAYER_PROMOTED: mod('perms', { uuid: R, player: R, track: R, newGroup: R }),
  PLAYER_DEMOTED: mod('perms', { uuid: R, player: R, track: R, newGroup: R }),
  // Audited under the punished player's name (the id and the rest are in the details).
  PUNISHMENT_ISSUED: mod(
    'punishments',
    { id: R, type: R, target: R, targetUuid: R, issuer: R, reason: R, expiresAt: R, scope: R, scopeTarget: O, kickMessage: O },
    'always',
    { auditTarget: 'target' },
  ),
  PUNISHMENT_REVOKED: mod('punishments', { id: R, type: R, target: R, revokedBy: R, reason: R }, 'always', { auditTarget: 'target' }),
  PUNISHMENT_EXPIRED: mod('punishments', { id: R, type: R, target: R }, 'always', { auditTarget: 'target' }),
  BACKUP_STARTED: mod('backup', { id: R, targetType: R, targetName: R, triggeredBy: R }, 'always', { auditTarget: 'targetName' }),
  BACKUP_COMPLETED: mod('backup', { id: R, targetName: R, sizeBytes: R, durationMs: R, status: R }, 'always', { auditTarget: 'targetName' }),
  BACKUP_FAILED: mod('backup', { id: R, targetName: R, reason: R }, 'always', { auditTarget: 'targetName' }),
  BACKUP_RESTORED: mod('backup', { id: R, targetName: R, targetPath: R, triggeredBy: R }, 'always', { auditTarget: 'targetName' }),
  BACKUP_PRUNED: mod('backup', { count: R, freedBytes: R, scheduleClass: R }, 'always', { auditTarget: 'scheduleClass' }),
  SMART_SCHEDULE: mod('scaling', { group: R, rule: R, started: R, min: R }, 'never'),
  SMART_WARMUP: mod('scaling', { group: R, rule: R, started: R, min: R }, 'never'),
  SMART_PREDICTION: mod('scaling', { group: R, predicted: R, started: R, samples: R }, 'never'),
  RESOURCE_PACK_CREATED: mod('resourcepacks', { id: R, name: R, source: R }),
  RESOURCE_PACK_DELETED: mod('resourcepacks', { id: R, name: R }),
  // Audited under the pack (scope and target are in the details).
  RESOURCE_PACK_ASSIGNED: mod('resourcepacks', { packId: R, scope: R, target: R }, 'always', { auditTarget: 'packId' }),
  RESOURCE_PACK_UNASSIGNED: mod('resourcepacks', { packId: R, scope: R, target: R }, 'always', { auditTarget: 'packId' }),
  RESOURCE_PACK_STATUS: mod('resourcepacks', { player: R, pack: R, status: R }, 'never'),
  DISPLAY_UPDATED: mod('display', { group: R }),
  // Carries a live login link: never audited, and only master-token subscribers (the proxy) hear it.
  AUTH_MAGIC_LINK_DELIVERY: mod('auth', { uuid: R, name: R, url: R, ttl: R, expiresAt: R }, 'never'),
} as const satisfies Record<string, EventSpec>;

export type EventType = keyof typeof EVENT_CATALOGUE;
export type EventValue = string | number | boolean;

type Keys<T extends EventType> = (typeof EVENT_CATALOGUE)[T]['keys'];
type RequiredKeys<T extends EventType> = { [K in keyof Keys<T>]: Keys<T>[K] extends 'required' ? K : never }[keyof Keys<T>];
type OptionalKeys<T extends EventType> = Exclude<keyof Keys<T>, RequiredKeys<T>>;

/** The data a publisher must supply for an event type. */
export type EventData<T extends EventType> = { [K in RequiredKeys<T>]: EventValue } & {
  [K in OptionalKeys<T>]?: EventValue | undefined;
} & (T extends 'SERVICE_MESSAGE' ? Record<string, EventValue> : unknown);

/** Who caused an event: the controller itself, the local console, or an API caller. */
export type Actor = 'system' | 'console' | 'api:admin' | 'api:service' | `api:${string}` | `dashboard:${string}`;

export interface SvcEvent {
  type: EventType;
  /** ISO-8601 UTC. */
  timestamp: string;
  /** Flat map; numbers and booleans already stringified, optional keys dropped when absent. */
  data: Record<string, string>;
  actor: Actor;
}

export function specOf(type: string): EventSpec | undefined {
  return (EVENT_CATALOGUE as Record<string, EventSpec>)[type];
}
