/**
 * Every error code of the API contract (both spec documents) with its default HTTP status.
 * Handlers throw `ApiError`; the HTTP kernel renders `{success:false, message, error}`.
 * Codes marked with a comment "svc" are ours: the spec leaves the case open.
 */
export const ERROR_STATUS = {
  // Auth
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
  // Scaling
  SCALING_CONFIG_NOT_FOUND: 404,
  // Players
  PLAYER_NOT_FOUND: 404,
  PLAYER_NOT_ONLINE: 404,
  // Perms
  PERMISSION_GROUP_NOT_FOUND: 404,
  PERMISSION_TRACK_NOT_FOUND: 404,
  // Display
  DISPLAY_CONFIG_NOT_FOUND: 404,
  // Punishments
  PUNISHMENT_NOT_FOUND: 404,
  PUNISHMENT_ALREADY_REVOKED: 409,
  PUNISHMENT_TARGET_INVALID: 400,
  PUNISHMENT_DURATION_INVALID: 400,
  // Resource packs
  RESOURCE_PACK_NOT_FOUND: 404,
  RESOURCE_PACK_ALREADY_EXISTS: 409,
  RESOURCE_PACK_INVALID_URL: 400,
  RESOURCE_PACK_UPLOAD_FAILED: 422,
  RESOURCE_PACK_ASSIGNMENT_NOT_FOUND: 404,
  // Backup
  BACKUP_NOT_FOUND: 404,
  BACKUP_ARCHIVE_MISSING: 404,
  BACKUP_MANIFEST_MISSING: 422,
  BACKUP_IN_PROGRESS: 409,
  BACKUP_RESTORE_FAILED: 409,
  BACKUP_VERIFICATION_FAILED: 422,
  BACKUP_CONFIG_INVALID: 400,

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

/** Codes that modules add at registration, with their statuses. */
const moduleCodes = new Map<string, number>();

export function registerErrorCodes(codes: Record<string, number>): void {
  for (const [code, status] of Object.entries(codes)) {
    if (code in ERROR_STATUS) throw new Error(`error code ${code} is already a core code`);
    moduleCodes.set(code, status);
  }
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
