/**
 * What the permissions API accepts, checked in the browser before anything is sent, in the
 * API's own words (the perms module's services and schemas: src/modules/perms/nodes.ts,
 * scope.ts, groups-service.ts, tracks-service.ts, model.ts; src/core/players/uuid.ts). Pure
 * code, no DOM: the browser test imports these and holds each equal to its source, so a limit
 * changed on one side only fails a test. The server checks everything again; these only spare
 * a round trip and say what is wrong next to the field.
 */

/** GROUP_NAME_PATTERN, src/modules/perms/nodes.ts (tracks use it too). */
export const GROUP_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
/** NODE_MAX and NODE_PATTERN, src/modules/perms/nodes.ts. */
export const NODE_MAX = 256;
export const NODE_PATTERN = '^-?[a-zA-Z0-9_.#*-]+$';
/** SCOPE_NAME_PATTERN and SCOPE_NAME_MAX, src/modules/perms/scope.ts. */
export const SCOPE_NAME_MAX = 128;
export const SCOPE_NAME_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
/** META_KEY_PATTERN, META_VALUE_MAX, TEXT_MAX, NUMBER_LIMIT, src/modules/perms/groups-service.ts. */
export const META_KEY_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
export const META_VALUE_MAX = 1024;
export const TEXT_MAX = 256;
export const NUMBER_LIMIT = 1_000_000;
/** TRACK_MIN_GROUPS and TRACK_MAX_GROUPS, src/modules/perms/tracks-service.ts. */
export const TRACK_MIN_GROUPS = 2;
export const TRACK_MAX_GROUPS = 100;
/** MAX_PARENTS and SEARCH_MAX of src/modules/perms/model.ts. */
export const MAX_PARENTS = 64;
export const SEARCH_MAX = 64;
/** UUID_PATTERN and PLAYER_NAME_PATTERN, src/core/players/uuid.ts. */
export const UUID_PATTERN = '^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$';
export const PLAYER_NAME_PATTERN = '^[A-Za-z0-9_.*+-]{1,32}$';

/** The module's events (src/modules/perms/events.ts): each one makes the page read again. */
export const PERMS_EVENT_TYPES = [
  'PERMISSION_GROUP_CREATED',
  'PERMISSION_GROUP_UPDATED',
  'PERMISSION_GROUP_DELETED',
  'PLAYER_PERMISSIONS_UPDATED',
  'PERMISSION_TRACK_CREATED',
  'PERMISSION_TRACK_DELETED',
  'PLAYER_PROMOTED',
  'PLAYER_DEMOTED',
] as const;

const NODE_RE = new RegExp(NODE_PATTERN);
const GROUP_NAME_RE = new RegExp(GROUP_NAME_PATTERN);
const SCOPE_NAME_RE = new RegExp(SCOPE_NAME_PATTERN);
const META_KEY_RE = new RegExp(META_KEY_PATTERN);
const UUID_RE = new RegExp(UUID_PATTERN);
const PLAYER_NAME_RE = new RegExp(PLAYER_NAME_PATTERN);

/** The one spelling nodes are stored in (normalizeNode). */
export const normalizeNode = (node: string): string => node.trim().toLowerCase();

/** nodeProblem of nodes.ts, word for word: why `node` (normalised) cannot be stored, or undefined. */
export function nodeProblem(node: string): string | undefined {
  if (node.length === 0) return 'a permission node cannot be empty';
  if (node.length > NODE_MAX) return `a permission node has at most ${NODE_MAX} characters`;
  if (!NODE_RE.test(node)) return `"${node}" is not a permission node (letters, digits and _ . # * -, an optional leading - to negate)`;
  const bare = node.startsWith('-') ? node.slice(1) : node;
  if (bare.length === 0) return '"-" alone negates nothing';
  if (bare.startsWith('-')) return `"${node}": one leading - negates; a node itself cannot start with -`;
  const segments = bare.split('.');
  if (segments.some((s) => s.length === 0)) return `"${node}" has an empty segment (two dots, or a dot at an end)`;
  if (segments.some((s, i) => s.includes('*') && (s !== '*' || i !== segments.length - 1))) {
    return `"${node}": a wildcard must be the whole last segment, as in a.b.* or *`;
  }
  return undefined;
}

/** A group's name as GroupService.create checks it. */
export function groupNameProblem(name: string): string | undefined {
  return GROUP_NAME_RE.test(name) ? undefined : `group name "${name}" must be 1–64 of letters, digits, _ and -`;
}

export function trackNameProblem(name: string): string | undefined {
  return GROUP_NAME_RE.test(name) ? undefined : `track name "${name}" must be 1–64 of letters, digits, _ and -`;
}

/** A server or world of a scope (scope.ts's `name`): blank means every one. */
export function scopeNameProblem(field: 'server' | 'world', value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return SCOPE_NAME_RE.test(trimmed) ? undefined : `${field} "${trimmed}" is not a ${field} name (1–${SCOPE_NAME_MAX} of letters, digits and _ . : -)`;
}

/** checkMeta of groups-service.ts. */
export function metaProblem(key: string, value: string): string | undefined {
  if (!META_KEY_RE.test(key)) return `meta key "${key}" must be 1–128 of letters, digits and _ . : -`;
  if (value.length > META_VALUE_MAX) return `meta value of "${key}" has more than ${META_VALUE_MAX} characters`;
  return undefined;
}

/** checkText of groups-service.ts (prefix, suffix). */
export function textProblem(field: string, value: string): string | undefined {
  if (value.length > TEXT_MAX) return `${field} has more than ${TEXT_MAX} characters`;
  if (/[\r\n]/.test(value)) return `${field} must be one line`;
  return undefined;
}

/** checkNumber of groups-service.ts (priority, weight), for the text a number box holds. */
export function numberProblem(field: string, text: string): string | undefined {
  const value = text.trim() === '' ? NaN : Number(text);
  if (!Number.isInteger(value) || Math.abs(value) > NUMBER_LIMIT) return `${field} must be a whole number between -${NUMBER_LIMIT} and ${NUMBER_LIMIT}`;
  return undefined;
}

/** A track's groups as TrackService.create checks them (existence is the caller's: it knows the groups). */
export function trackGroupsProblem(groups: readonly string[]): string | undefined {
  if (groups.length < TRACK_MIN_GROUPS) return `a track needs at least ${TRACK_MIN_GROUPS} groups, lowest rank first`;
  if (groups.length > TRACK_MAX_GROUPS) return `a track has at most ${TRACK_MAX_GROUPS} groups`;
  if (new Set(groups.map((g) => g.toLowerCase())).size !== groups.length) return 'a group appears twice on the track';
  return undefined;
}

export const isUuid = (value: string): boolean => UUID_RE.test(value);

/** normalizeUuid of src/core/players/uuid.ts: lower-case and dashed, or undefined. */
export function normalizeUuid(value: string): string | undefined {
  if (!UUID_RE.test(value)) return undefined;
  const hex = value.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function playerNameProblem(name: string): string | undefined {
  return PLAYER_NAME_RE.test(name) ? undefined : `player name "${name}" must be 1–32 of letters, digits and _ . * + -`;
}

/** The permission asked about by check and debug (askedPermission of routes/checks.ts). */
export function askedProblem(permission: string): string | undefined {
  return permission.length === 0 || permission.length > NODE_MAX ? `path parameter "permission" must be 1 to ${NODE_MAX} characters after the uuid` : undefined;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** parseDuration of scope.ts (the console's grammar): `30s`, `10m`, `12h`, `7d`, `2w`, or combined (`1d12h`). */
export function parseDuration(text: string): number | undefined {
  const parts = text.toLowerCase().match(/^(?:\d+[smhdw])+$/) ? text.toLowerCase().match(/\d+[smhdw]/g) : null;
  if (!parts) return undefined;
  let ms = 0;
  for (const part of parts) ms += Number(part.slice(0, -1)) * UNIT_MS[part.slice(-1)]!;
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
}

/** How an expiry is given in a form: none, a duration from now, or a local date and time. */
export type ExpiryKind = 'never' | 'after' | 'at';
export interface ExpiryInput {
  kind: ExpiryKind;
  /** The duration's text (`after`). */
  after: string;
  /** A datetime-local value (`at`): the browser's own time zone. */
  at: string;
}
export const NO_EXPIRY: ExpiryInput = { kind: 'never', after: '', at: '' };

/**
 * The ISO-8601 time the API takes for an expiry, null for none, or the problem (parseScope:
 * the time must lie in the future; a duration must follow the console's grammar).
 */
export function expiryOf(input: ExpiryInput, now: number): { expiresAt: string | null } | { problem: string } {
  if (input.kind === 'never') return { expiresAt: null };
  let at: number;
  if (input.kind === 'after') {
    const ms = parseDuration(input.after.trim());
    if (ms === undefined) return { problem: `"${input.after.trim()}" is not a duration: a number and a unit (s, m, h, d, w), e.g. 30m, 12h, 7d or 1d12h` };
    at = now + ms;
  } else {
    if (input.at.trim() === '') return { problem: 'give the date and time it expires' };
    at = new Date(input.at).getTime();
    if (!Number.isFinite(at)) return { problem: `"${input.at}" is not a date and time` };
  }
  if (at > 8_640_000_000_000_000 || !Number.isFinite(at)) return { problem: 'that expiry lies too far ahead' };
  const iso = new Date(at).toISOString();
  if (at <= now) return { problem: `expiresAt ${iso} is not in the future` };
  return { expiresAt: iso };
}
