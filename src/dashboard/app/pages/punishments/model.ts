/**
 * What the Punishments page reads and sends: the punishments module's records (its routes'
 * "R"), the nine message templates, and the permission nodes its routes check.
 */

export const TYPES = ['BAN', 'TEMPBAN', 'IPBAN', 'MUTE', 'TEMPMUTE', 'KICK', 'WARN'] as const;
export type PunishmentType = (typeof TYPES)[number];
export const SCOPES = ['NETWORK', 'GROUP', 'SERVICE'] as const;
export type Scope = (typeof SCOPES)[number];

/** How a type reads in the page's words (the API's word stays beside it in the list). */
export const TYPE_LABELS: Readonly<Record<PunishmentType, string>> = {
  BAN: 'Ban',
  TEMPBAN: 'Temporary ban',
  IPBAN: 'IP ban',
  MUTE: 'Mute',
  TEMPMUTE: 'Temporary mute',
  KICK: 'Kick',
  WARN: 'Warning',
};

/** A type inside a sentence: "ban", "IP ban", "temporary mute". */
export function typeWord(type: string): string {
  return TYPE_LABELS[type as PunishmentType]?.toLowerCase().replace('ip ban', 'IP ban') ?? type;
}

/** "a ban", "an IP ban", "a temporary mute". */
export function aType(type: string): string {
  const word = typeWord(type);
  return `${/^[aeiouI]/.test(word) ? 'an' : 'a'} ${word}`;
}

/** Types that need a duration that ends; types with nothing to lift (stored done, any duration ignored). */
export const TEMPORARY: ReadonlySet<string> = new Set(['TEMPBAN', 'TEMPMUTE']);
export const ONE_OFF: ReadonlySet<string> = new Set(['KICK', 'WARN']);
export const LOGIN_BLOCKING: ReadonlySet<string> = new Set(['BAN', 'TEMPBAN', 'IPBAN']);

/** The punishment as GET /api/punishments and /player/{uuid} answer it. */
export interface Punishment {
  id: number;
  type: string;
  targetUuid: string;
  targetName: string;
  targetIp: string | null;
  reason: string;
  issuer: string;
  issuerName: string;
  issuedAt: string;
  expiresAt: string | null;
  /** In force now (not revoked, not superseded, not past its end). */
  active: boolean;
  revokedBy: string | null;
  revokedAt: string | null;
  revokeReason: string | null;
  scope: string;
  scopeTarget: string | null;
}

export interface PunishmentList {
  punishments: Punishment[];
  /** Every record matching the filter, all pages together. */
  total: number;
}

export const MESSAGE_KEYS = ['ban', 'tempban', 'ipban', 'mute', 'tempmute', 'kick', 'warn', 'broadcast_issued', 'broadcast_revoked'] as const;
export type MessageKey = (typeof MESSAGE_KEYS)[number];
export type MessageTemplates = Record<MessageKey, string>;

/** The nodes the module's routes check (a dashboard session must hold them; an API token passes). */
export const NODE = {
  view: 'svc.dashboard.punishments.view',
  history: 'svc.dashboard.punishments.history',
  revoke: 'svc.dashboard.punishments.revoke',
  admin: 'svc.dashboard.admin',
  issue: (type: string) => `svc.dashboard.punishments.${type.toLowerCase()}`,
} as const;

export const BASE = '/api/punishments';

/** Query keys: every list and record is read again on the module's events. */
export const LIST_KEY = ['punishments', 'list'] as const;
export const RECORD_KEY = ['punishments', 'player'] as const;
export const MESSAGES_KEY = ['punishments', 'messages'] as const;

const UUID_RE = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;

/** A uuid as the API stores it (lower case, dashed), or null when the text is none. */
export function normalizeUuid(text: string): string | null {
  const t = text.trim();
  if (!UUID_RE.test(t)) return null;
  const hex = t.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A player's name as the API takes it: letters, digits and _ . * + - (1 to 32). */
export const PLAYER_NAME_RE = /^[A-Za-z0-9_.*+-]{1,32}$/;

/** Where a record holds, in words. */
export function scopeText(p: Pick<Punishment, 'scope' | 'scopeTarget'>): string {
  if (p.scope === 'GROUP') return `group ${p.scopeTarget ?? ''}`;
  if (p.scope === 'SERVICE') return `service ${p.scopeTarget ?? ''}`;
  return 'network';
}
