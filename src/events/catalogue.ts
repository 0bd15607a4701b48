/**
 * Core's event types (both spec documents) with their data keys. Events are values: a type
 * from a catalogue plus a flat map of its keys, published after the state change is durable.
 * A module's events are declared in its own folder (src/modules/<id>/events.ts, through
 * module-events.ts) and registered here; core's code names none of them.
 *
 * `audit` decides what the audit log keeps: `always` (operator-facing changes), `actor` (only
 * when a person or API caller caused it, not the controller itself), or `never`.
 */
export type KeySpec = Readonly<Record<string, 'required' | 'optional'>>;
export type AuditRule = 'always' | 'actor' | 'never';
export interface EventSpec {
  readonly keys: KeySpec;
  readonly audit: AuditRule;
  /** The module that owns the event (module events carry moduleId in their data). */
  readonly module?: string;
  /** SERVICE_MESSAGE carries the sender's own data entries beside its keys. */
  readonly openKeys?: true;
  /** The data key the audit log shows as the target, where the generic preference order would pick the wrong one. */
  readonly auditTarget?: string;
  /**
   * `proxy`: the event carries a secret meant for the proxy (a live login link): the event
   * stream gives it only to the master token and the proxies' own credentials, and consoles
   * never show it. Absent: every subscriber the stream admits hears it.
   */
  readonly audience?: 'proxy';
}

export const R = 'required' as const;
export const O = 'optional' as const;
const ev = <K extends KeySpec>(keys: K, audit: AuditRule = 'never', extra: Partial<EventSpec> = {}) => ({ keys, audit, ...extra });

export const CORE_EVENTS = {
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
  // proxy (svc): the proxy service that reported it, when its own credential did.
  PLAYER_CONNECTED: ev({ player: R, uuid: R, service: R, proxy: O }),
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
} as const satisfies Record<string, EventSpec>;

/**
 * The events modules declare, merged in by each module's events.ts (`declare module`), so a
 * module's publish is typed like core's. Empty here: core knows no module's event.
 */
export interface ModuleEventCatalogue {}

type Catalogue = typeof CORE_EVENTS & ModuleEventCatalogue;
export type EventType = keyof Catalogue & string;
export type EventValue = string | number | boolean;

type Keys<T extends EventType> = Catalogue[T] extends { readonly keys: infer K } ? K : never;
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

/** Module events registered so far (module-events.ts registers a module's table when it is declared). */
const moduleEvents = new Map<string, EventSpec & { readonly module: string }>();

/**
 * Makes a module's events known to the bus and the audit log. Registering the same table again
 * is a no-op; an event type core or another module already has is refused (a programming error).
 */
export function registerModuleEvents(events: Readonly<Record<string, EventSpec & { readonly module: string }>>): void {
  for (const [type, spec] of Object.entries(events)) {
    if (type in CORE_EVENTS) throw new Error(`event ${type} of module ${spec.module} is already a core event`);
    const known = moduleEvents.get(type);
    if (known && known.module !== spec.module) throw new Error(`event ${type} is declared by both module ${known.module} and module ${spec.module}`);
    moduleEvents.set(type, spec);
  }
}

export function specOf(type: string): EventSpec | undefined {
  return (CORE_EVENTS as Record<string, EventSpec>)[type] ?? moduleEvents.get(type);
}
