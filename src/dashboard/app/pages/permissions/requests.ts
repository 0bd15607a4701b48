/**
 * The perms module's API (/api/permissions, REFERENCE-MODULES §2 with this controller's scopes
 * and answers) as the page calls it, and the query keys it keeps them under: every key starts
 * with 'perms', so one live event reads all of them again.
 */
import { api } from '../../api';

export const PREFIX = '/api/permissions';
export const VIEW_NODE = 'svc.dashboard.perms.view';
export const MANAGE_NODE = 'svc.dashboard.perms.manage';

export interface Ok {
  success: true;
  message: string;
}

export interface ScopedRow {
  server?: string;
  world?: string;
  /** ISO-8601. */
  expiresAt?: string;
}

export interface PermGroup {
  name: string;
  default: boolean;
  prefix: string;
  suffix: string;
  priority: number;
  weight: number;
  /** Every node held, scoped or not, once each. */
  permissions: string[];
  /** The scoped rows behind `permissions`. */
  scopedPermissions: (ScopedRow & { permission: string })[];
  parents: string[];
  meta: Record<string, string>;
}

export interface PermPlayer {
  uuid: string;
  /** "unknown" for a player the module has not seen. */
  name: string;
  groups: string[];
  memberships: (ScopedRow & { group: string })[];
  effectivePermissions: string[];
  prefix: string;
  suffix: string;
  displayGroup: string;
  priority: number;
  meta: Record<string, string>;
}

export interface PlayerListItem {
  uuid: string;
  name: string;
  groups: string[];
  displayGroup: string;
  prefix: string;
}

export interface Track {
  name: string;
  /** Lowest rank first. */
  groups: string[];
}

export interface StepResult {
  success: boolean;
  previousGroup: string | null;
  newGroup: string | null;
  message: string;
}

export type ChainType = 'exact' | 'wildcard' | 'negated' | 'inherited' | 'context-filtered';

export interface ChainStep extends ScopedRow {
  source: string;
  permission: string;
  type: ChainType;
  granted: boolean;
  weight: number;
  decisive: boolean;
  inheritedFrom?: string;
}

export interface CheckAnswer {
  uuid: string;
  permission: string;
  allowed: boolean;
}

export interface DebugAnswer {
  uuid: string;
  permission: string;
  result: boolean;
  reason: string;
  chain: ChainStep[];
}

export interface AuditEntry {
  timestamp: string;
  actor: string;
  action: string;
  target: string;
  details: string;
}

/** `{server, world}` of a form: blank ones are left out (every server, every world). */
export interface Where {
  server?: string;
  world?: string;
}

const seg = encodeURIComponent;
const where = (w: Where) => {
  const query = new URLSearchParams();
  if (w.server) query.set('server', w.server);
  if (w.world) query.set('world', w.world);
  const text = query.toString();
  return text ? `?${text}` : '';
};

export const KEYS = {
  all: ['perms'] as const,
  groups: ['perms', 'groups'] as const,
  tracks: ['perms', 'tracks'] as const,
  players: (q: string) => ['perms', 'players', q] as const,
  player: (uuid: string) => ['perms', 'player', uuid] as const,
  question: (uuid: string, permission: string, w: Where) => ['perms', 'question', uuid, permission, w.server ?? '', w.world ?? ''] as const,
  audit: (page: number) => ['perms', 'audit', page] as const,
};

export const listGroups = () => api<{ groups: PermGroup[]; total: number }>(`${PREFIX}/groups`);
export const createGroup = (name: string, isDefault: boolean) => api<Ok>(`${PREFIX}/groups`, { method: 'POST', json: { name, default: isDefault } });
export const updateGroup = (name: string, patch: Record<string, unknown>) => api<Ok & { group: PermGroup }>(`${PREFIX}/groups/${seg(name)}`, { method: 'PUT', json: patch });
export const deleteGroup = (name: string) => api<Ok>(`${PREFIX}/groups/${seg(name)}`, { method: 'DELETE' });
export const addGroupPermission = (name: string, body: { permission: string; server?: string; world?: string; expiresAt?: string | null }) =>
  api<Ok>(`${PREFIX}/groups/${seg(name)}/permissions`, { method: 'POST', json: body });
export const removeGroupPermission = (name: string, body: { permission: string; server?: string; world?: string }) =>
  api<Ok>(`${PREFIX}/groups/${seg(name)}/permissions`, { method: 'DELETE', json: body });
export const setGroupMeta = (name: string, key: string, value: string) => api<Ok>(`${PREFIX}/groups/${seg(name)}/meta`, { method: 'PUT', json: { key, value } });
export const removeGroupMeta = (name: string, key: string) => api<Ok>(`${PREFIX}/groups/${seg(name)}/meta/${seg(key)}`, { method: 'DELETE' });

export const listTracks = () => api<{ tracks: Track[]; total: number }>(`${PREFIX}/tracks`);
export const createTrack = (name: string, groups: string[]) => api<Ok>(`${PREFIX}/tracks`, { method: 'POST', json: { name, groups } });
export const deleteTrack = (name: string) => api<Ok>(`${PREFIX}/tracks/${seg(name)}`, { method: 'DELETE' });
export const stepOnTrack = (track: string, uuid: string, direction: 'promote' | 'demote') => api<StepResult>(`${PREFIX}/tracks/${seg(track)}/${direction}/${seg(uuid)}`, { method: 'POST' });

export const searchPlayers = (q: string) => api<PlayerListItem[]>(`${PREFIX}/players?${new URLSearchParams({ q, limit: '50' })}`);
export const getPlayer = (uuid: string) => api<PermPlayer>(`${PREFIX}/players/${seg(uuid)}`);
export const addMembership = (uuid: string, body: { group: string; name?: string; server?: string; world?: string; expiresAt?: string | null }) =>
  api<Ok>(`${PREFIX}/players/${seg(uuid)}/groups`, { method: 'POST', json: body });
export const removeMembership = (uuid: string, body: { group: string; server?: string; world?: string }) => api<Ok>(`${PREFIX}/players/${seg(uuid)}/groups`, { method: 'DELETE', json: body });
export const setPlayerMeta = (uuid: string, key: string, value: string) => api<Ok>(`${PREFIX}/players/${seg(uuid)}/meta`, { method: 'PUT', json: { key, value } });
export const removePlayerMeta = (uuid: string, key: string) => api<Ok>(`${PREFIX}/players/${seg(uuid)}/meta/${seg(key)}`, { method: 'DELETE' });

/** The permission is the rest of the path, percent-encoded once (the route decodes it once; slashes and dots included). */
export const check = (uuid: string, permission: string, w: Where) => api<CheckAnswer>(`${PREFIX}/check/${seg(uuid)}/${seg(permission)}${where(w)}`);
export const debug = (uuid: string, permission: string, w: Where) => api<DebugAnswer>(`${PREFIX}/debug/${seg(uuid)}/${seg(permission)}${where(w)}`);

export const AUDIT_PAGE = 25;
export const auditPage = (page: number) => api<{ entries: AuditEntry[]; total: number }>(`${PREFIX}/audit?limit=${AUDIT_PAGE}&offset=${page * AUDIT_PAGE}`);
