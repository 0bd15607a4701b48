import { Type, type Static } from '@sinclair/typebox';
import { t } from '../../http/t';
import { UUID_PATTERN } from '../../core/players/uuid';
import { closedObject } from '../../http/schemas';

export const PUNISHMENT_TYPES = ['BAN', 'TEMPBAN', 'IPBAN', 'MUTE', 'TEMPMUTE', 'KICK', 'WARN'] as const;
export type PunishmentType = (typeof PUNISHMENT_TYPES)[number];
export const SCOPES = ['NETWORK', 'GROUP', 'SERVICE'] as const;
export type Scope = (typeof SCOPES)[number];

/** Types that keep a player out (checked at login and server switch). */
export const LOGIN_BLOCKING: ReadonlySet<PunishmentType> = new Set(['BAN', 'TEMPBAN', 'IPBAN']);
/** Types that keep a player from chatting. */
export const CHAT_BLOCKING: ReadonlySet<PunishmentType> = new Set(['MUTE', 'TEMPMUTE']);
/** Types with nothing to lift afterwards: stored inactive, any duration ignored. */
export const ONE_OFF: ReadonlySet<PunishmentType> = new Set(['KICK', 'WARN']);
/** Types that need a temporary duration. */
export const TEMPORARY: ReadonlySet<PunishmentType> = new Set(['TEMPBAN', 'TEMPMUTE']);

/**
 * The family a new punishment supersedes within (same player, same scope): an account ban
 * replaces an account ban whether permanent or not, a mute a mute, an IP ban an IP ban.
 */
export function kindOf(type: PunishmentType): 'ban' | 'ipban' | 'mute' | 'once' {
  if (type === 'BAN' || type === 'TEMPBAN') return 'ban';
  if (type === 'IPBAN') return 'ipban';
  if (type === 'MUTE' || type === 'TEMPMUTE') return 'mute';
  return 'once';
}

/** A stored punishment; times are epoch ms. */
export interface Punishment {
  id: number;
  type: PunishmentType;
  targetUuid: string;
  targetName: string;
  targetIp: string | null;
  reason: string;
  issuer: string;
  issuerName: string;
  issuedAt: number;
  expiresAt: number | null;
  /** As stored: cleared by revoke, supersede and the expiry loop (a record may be past its end before the loop runs). */
  active: boolean;
  revokedBy: string | null;
  revokedAt: number | null;
  revokeReason: string | null;
  scope: Scope;
  scopeTarget: string | null;
}

const NullableString = t.Union([t.String(), t.Null()]);

/** R: the record as the dashboard's punishments page and player sheet read it. */
export const PunishmentSchema = t.Object({
  id: t.Integer(),
  type: t.String({ description: PUNISHMENT_TYPES.join(' | ') }),
  targetUuid: t.String(),
  targetName: t.String(),
  targetIp: NullableString,
  reason: t.String(),
  issuer: t.String({ description: 'who issued it: a player uuid (dashboard, in game), `console`, or what an API token named' }),
  issuerName: t.String(),
  issuedAt: t.String({ description: 'ISO-8601 UTC' }),
  expiresAt: t.Union([t.String(), t.Null()], { description: 'ISO-8601 UTC; null when permanent (and for KICK and WARN)' }),
  active: t.Boolean({ description: 'in force now: not revoked, not superseded, not past its end' }),
  revokedBy: NullableString,
  revokedAt: NullableString,
  revokeReason: NullableString,
  scope: t.String({ description: SCOPES.join(' | ') }),
  scopeTarget: NullableString,
});
export type PunishmentView = Static<typeof PunishmentSchema>;

export const PunishmentListSchema = t.Object({
  punishments: t.Array(PunishmentSchema),
  total: t.Integer({ description: 'records matching the filter, all pages together' }),
});

/** C: what the proxy (login, server switch) and backend (chat) plugins read. */
export const CheckAnswerSchema = t.Object({
  punished: t.Boolean(),
  id: t.Union([t.Integer(), t.Null()]),
  type: NullableString,
  reason: NullableString,
  issuerName: NullableString,
  issuedAt: NullableString,
  expiresAt: NullableString,
  remainingSeconds: t.Union([t.Integer(), t.Null()], { description: 'null when permanent or not punished' }),
  scope: NullableString,
  scopeTarget: NullableString,
  kickMessage: t.Union([t.String(), t.Null()], { description: 'the message template rendered, legacy § colour codes' }),
});
export type CheckAnswer = Static<typeof CheckAnswerSchema>;

const Text = (maxLength: number, description: string) => Type.String({ maxLength, pattern: '^[^\\r\\n]*$', description });
const OptionalNullable = (maxLength: number, description: string) => Type.Optional(Type.Union([Text(maxLength, description), Type.Null()]));

/** I: the issue body (spec "Punishment issue body"); `type` and `scope` in any case. */
export const IssueBodySchema = closedObject({
  type: Type.String({ maxLength: 16, description: `${PUNISHMENT_TYPES.join(', ')} (any case)` }),
  targetName: Text(64, 'the player’s name, or their uuid'),
  targetUuid: OptionalNullable(36, 'the player’s uuid; when blank the name is resolved (players module, then the name lookup service)'),
  targetIp: OptionalNullable(64, 'the IP an IPBAN blocks (required for IPBAN)'),
  duration: OptionalNullable(32, 'e.g. 30m, 1d12h, 2w, 2mo, 1y; perm or 0 for permanent; required for TEMPBAN and TEMPMUTE'),
  reason: Type.Optional(Text(1024, 'why; shown to the player')),
  issuer: Type.Optional(Text(128, 'only the master and service tokens may name the issuer (a proxy acting for staff)')),
  issuerName: Type.Optional(Text(64, 'only the master and service tokens may name the issuer')),
  scope: Type.Optional(Type.String({ maxLength: 16, description: `${SCOPES.join(', ')} (default NETWORK)` })),
  scopeTarget: OptionalNullable(128, 'the group or service a GROUP or SERVICE punishment applies in'),
});
export type IssueBody = Static<typeof IssueBodySchema>;

export const RevokeBodySchema = closedObject({
  revokedBy: Type.Optional(Text(128, 'only the master and service tokens may name who revoked')),
  reason: Type.Optional(Text(1024, 'why it was lifted')),
});

export const UuidParams = t.Object({ uuid: t.String({ pattern: UUID_PATTERN, description: 'player uuid, dashed or not' }) });
export const IdParams = t.Object({ id: t.Integer({ minimum: 1, description: 'punishment id' }) });

export const LIST_LIMIT = { min: 1, max: 500, default: 50 } as const;
export const HISTORY_LIMIT = { min: 1, max: 500, default: 100 } as const;
