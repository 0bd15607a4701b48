import { Type, type Static } from '@sinclair/typebox';
import { t } from '../../http/t';
import { closedObject } from '../../http/schemas';

export const PACK_SOURCES = ['URL', 'LOCAL'] as const;
export type PackSource = (typeof PACK_SOURCES)[number];
export const ASSIGNMENT_SCOPES = ['GLOBAL', 'GROUP', 'SERVICE'] as const;
export type AssignmentScope = (typeof ASSIGNMENT_SCOPES)[number];
/** Stack order: the wider scope first, so the narrower one's packs are applied over it. */
export const SCOPE_WEIGHT: Record<AssignmentScope, number> = { GLOBAL: 0, GROUP: 1, SERVICE: 2 };

/** Stored field sizes (spec "Resource pack record"). */
export const LIMITS = { name: 64, url: 1024, prompt: 256, uploadedBy: 128, target: 128 } as const;
export const SHA1_PATTERN = '^[0-9a-fA-F]{40}$';

/** A stored pack; times in epoch ms. */
export interface Pack {
  id: number;
  packUuid: string;
  name: string;
  source: PackSource;
  /** Absolute for URL packs; `/api/resourcepacks/files/<pack_uuid>.zip` for LOCAL ones. */
  url: string;
  sha1Hash: string;
  promptMessage: string;
  force: boolean;
  fileSize: number;
  uploadedAt: number;
  uploadedBy: string;
}

export interface Assignment {
  id: number;
  packId: number;
  scope: AssignmentScope;
  /** '' for GLOBAL. */
  target: string;
  priority: number;
}

/** The path a LOCAL pack is served under (relative; made absolute in stacks). */
export const localPackPath = (packUuid: string) => `/api/resourcepacks/files/${packUuid}.zip`;

/** P: a pack as the dashboard's resource pack page reads it. */
export const PackSchema = t.Object({
  id: t.Integer(),
  packUuid: t.String(),
  name: t.String(),
  source: t.String({ description: 'URL or LOCAL' }),
  url: t.String({ description: 'absolute for URL packs; /api/resourcepacks/files/<packUuid>.zip for LOCAL ones' }),
  sha1Hash: t.String({ description: '40 lower-case hex characters' }),
  promptMessage: t.String(),
  force: t.Boolean({ description: 'the client is kicked when it declines the pack' }),
  fileSize: t.Integer({ description: 'bytes; 0 for URL packs' }),
  uploadedAt: t.String({ description: 'ISO-8601 UTC' }),
  uploadedBy: t.String({ description: 'who registered it: the caller (api:admin, dashboard:<name>, console)' }),
});
export type PackView = Static<typeof PackSchema>;

export const PackListSchema = t.Object({ packs: t.Array(PackSchema), total: t.Integer() });

export const AssignmentSchema = t.Object({
  id: t.Integer(),
  packId: t.Integer(),
  scope: t.String({ description: 'GLOBAL, GROUP or SERVICE' }),
  target: t.String({ description: 'the group or service; empty for GLOBAL' }),
  priority: t.Integer({ description: 'lower is earlier in the stack, within its scope' }),
});

/** A stack item as the backend plugin applies it. */
export const ResolvedPackSchema = t.Object({
  packUuid: t.String(),
  name: t.String(),
  url: t.String({ description: 'absolute' }),
  sha1Hash: t.String(),
  promptMessage: t.String(),
  force: t.Boolean(),
  priority: t.Integer(),
});
export type ResolvedPack = Static<typeof ResolvedPackSchema>;
export const StackSchema = t.Object({ packs: t.Array(ResolvedPackSchema, { description: 'in apply order: later packs go over earlier ones' }) });

const OneLine = (maxLength: number, description: string, minLength = 0) => Type.String({ minLength, maxLength, pattern: '^[^\\r\\n]*$', description });

export const CreatePackBodySchema = closedObject({
  name: OneLine(LIMITS.name, 'shown in the dashboard', 1),
  url: Type.String({ maxLength: LIMITS.url, description: 'absolute http(s) URL the clients download from' }),
  sha1Hash: Type.String({ pattern: SHA1_PATTERN, description: 'SHA-1 of the file at url: exactly 40 hex characters' }),
  promptMessage: Type.Optional(OneLine(LIMITS.prompt, 'shown in the client’s prompt')),
  force: Type.Optional(Type.Boolean({ description: 'kick a player who declines (default false)' })),
});
export type CreatePackBody = Static<typeof CreatePackBodySchema>;

export const UploadQuerySchema = t.Object({
  name: t.String({ minLength: 1, maxLength: LIMITS.name, description: 'shown in the dashboard' }),
  force: t.Optional(t.Boolean({ description: 'kick a player who declines (default false)' })),
  prompt: t.Optional(t.String({ maxLength: LIMITS.prompt, description: 'shown in the client’s prompt' })),
});

export const AssignBodySchema = closedObject({
  scope: Type.String({ maxLength: 16, description: 'GLOBAL, GROUP or SERVICE (any case)' }),
  target: Type.Optional(OneLine(LIMITS.target, 'the group or service; required for GROUP and SERVICE, ignored for GLOBAL')),
  priority: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'lower is earlier in the stack, within its scope (default 0)' })),
});
export type AssignBody = Static<typeof AssignBodySchema>;

export const StatusBodySchema = closedObject({
  playerUuid: Type.String({ maxLength: 36, description: 'the player who answered the prompt' }),
  packUuid: Type.String({ maxLength: 36, description: 'the pack (the zero uuid when the client did not say)' }),
  status: Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z_]+$', description: 'ACCEPTED, DECLINED, LOADED / SUCCESSFULLY_LOADED, FAILED_DOWNLOAD, …' }),
});

export const IdParams = t.Object({ id: t.Integer({ minimum: 1 }) });
