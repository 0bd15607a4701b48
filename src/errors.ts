/**
 * Core's error codes of the API contract (both spec documents) with their default HTTP status.
 * A module's codes are declared in its own folder (src/modules/<id>/errors.ts, through
 * `moduleErrors`) and registered here; core's code names none of them.
 * Handlers throw `ApiError`; the HTTP kernel renders `{success:false, message, error}`.
 * Codes marked with a comment "svc" are ours: the spec leaves the case open.
 */
export const ERROR_STATUS = {
  // Auth: one area, core's. Core's HTTP layer answers several of them (sessions, TOTP
  // required, auth disabled) and the auth module the rest; the spec lists them together.
  AUTH_FAILED: 401,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  READ_ONLY: 403,
  AUTH_CHALLENGE_INVALID: 401,
  AUTH_RATE_LIMITED: 429,
  AUTH_DISABLED: 409,
  AUTH_SESSION_INVALID: 401,
  AUTH_SESSION_EXPIRED: 401,
  AUTH_PLAYER_OFFLINE: 409,
  AUTH_TOTP_REQUIRED: 401,
  AUTH_TOTP_INVALID: 401,
  AUTH_TOTP_ALREADY_ENABLED: 409,
  AUTH_MAGIC_LINK_INVALID: 401,
  AUTH_LOGIN_CHALLENGE_EXPIRED: 401,
  // Generic
  VALIDATION_FAILED: 400,
  INTERNAL_ERROR: 500,
  PAYLOAD_TOO_LARGE: 413,
  NO_FIELDS_TO_UPDATE: 400,
  ROUTE_NOT_FOUND: 404, // svc: unknown route (the spec retires the generic NOT_FOUND)
  RATE_LIMITED: 429, // svc: the global and per-route request limits
  INSUFFICIENT_STORAGE: 507, // svc: the disk (or quota) is full; the message names what could not be written
  // Service
  SERVICE_NOT_FOUND: 404,
  SERVICE_NOT_READY: 409,
  SERVICE_UNAVAILABLE: 503,
  SERVICE_START_FAILED: 409,
  SERVICE_STOP_FAILED: 409,
  SERVICE_RESTART_FAILED: 409,
  // Group
  GROUP_NOT_FOUND: 404,
  GROUP_ALREADY_EXISTS: 409,
  GROUP_HAS_RUNNING_INSTANCES: 409,
  // svc: a start of a group (or dedicated service) the crash-loop breaker quarantined. Not
  // SERVICE_START_FAILED: nothing was tried, and retrying never helps; the client must lift it.
  GROUP_QUARANTINED: 409, // svc
  GROUP_ACTION_IN_PROGRESS: 409, // svc: a group action (start N, rolling restart, stop all) is still running
  // Dedicated
  DEDICATED_NOT_FOUND: 404,
  DEDICATED_ALREADY_EXISTS: 409,
  DEDICATED_ALREADY_RUNNING: 409,
  DEDICATED_DIRECTORY_NOT_FOUND: 404,
  DEDICATED_PORT_IN_USE: 409,
  // Command
  COMMAND_NOT_FOUND: 404,
  COMMAND_NOT_REMOTE: 400,
  COMMAND_EXECUTION_FAILED: 422,
  // Stress
  STRESS_ALREADY_RUNNING: 409,
  STRESS_NOT_RUNNING: 409,
  // Cluster / load balancer
  CLUSTER_NOT_ENABLED: 404,
  CLUSTER_TOKEN_MISSING: 409,
  LOAD_BALANCER_NOT_ENABLED: 404,
  NODE_NOT_FOUND: 404,
  NODE_ONLINE: 409, // svc: forgetting a node that is on the channel
  // Files
  INVALID_SCOPE: 400,
  PATH_NOT_FOUND: 404,
  PATH_TRAVERSAL: 400,
  // Proxy
  PROXY_NOT_AVAILABLE: 503,
  // Template
  TEMPLATE_NOT_FOUND: 404,
  // Modpack
  MODPACK_NOT_FOUND: 404,
  MODPACK_INVALID: 400,
  MODPACK_UPLOAD_FAILED: 422,
  CHUNKED_UPLOAD_NOT_FOUND: 404,
  CHUNKED_UPLOAD_INVALID: 400,
  PACKHOST_API_KEY_MISSING: 409,
  // Plugin
  PLUGIN_VERSION_NOT_FOUND: 404,
  // Software
  SOFTWARE_UNKNOWN: 404,
  // Players: a player not online is core's too (a player send through the proxies answers it).
  PLAYER_NOT_ONLINE: 404,

  // Self-update (svc): POST /api/controller/update
  UPDATE_IN_PROGRESS: 409, // svc
  UPDATE_NOT_POSSIBLE: 409, // svc
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Retired codes the spec still names. They are never emitted (0.13 speaks domain codes
 * everywhere); they stay listed so clients can look them up. `INSUFFICIENT_SCOPE` is gone.
 */
export const DEPRECATED_ERROR_CODES = ['INVALID_INPUT', 'NOT_FOUND'] as const;

/** Codes that modules add, with their statuses. */
const moduleCodes = new Map<string, number>();

/**
 * Makes a module's codes known. Registering a code again with the same status is a no-op (two
 * modules may both answer one, as players and perms do for an unknown player); a core code, or
 * a second status, is refused.
 */
export function registerErrorCodes(codes: Readonly<Record<string, number>>): void {
  for (const [code, status] of Object.entries(codes)) {
    if (code in ERROR_STATUS) throw new Error(`error code ${code} is already a core code`);
    const known = moduleCodes.get(code);
    if (known !== undefined && known !== status) throw new Error(`error code ${code} is declared with status ${known} and ${status}`);
    moduleCodes.set(code, status);
  }
}

/**
 * Declares a module's error codes with their statuses. Declaring is registering: the codes are
 * known from the moment the file is loaded, so a module's code (and a test that builds a part
 * of it without the registry) throws them with their status. The module object carries the
 * same table (`errors`) for the registry.
 */
export function moduleErrors<const T extends Readonly<Record<string, number>>>(codes: T): T {
  registerErrorCodes(codes);
  return codes;
}

export function statusOf(code: string): number {
  return (ERROR_STATUS as Record<string, number>)[code] ?? moduleCodes.get(code) ?? 500;
}

export function isKnownErrorCode(code: string): boolean {
  return code in ERROR_STATUS || moduleCodes.has(code);
}

export class ApiError extends Error {
  readonly status: number;
  /** Extra response headers (Retry-After on 429, for example). */
  readonly headers: Record<string, string>;

  constructor(
    readonly errorCode: ErrorCode | (string & {}),
    message: string,
    status?: number,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? statusOf(errorCode);
    this.headers = headers;
  }
}

export interface ErrorBody {
  success: false;
  message: string;
  error: string;
}

export const errorBody = (error: string, message: string): ErrorBody => ({ success: false, message, error });
