import { t } from '../../http/t';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PLAYER_NAME_PATTERN, UUID_PATTERN } from '../../core/players/uuid';
import { closedObject } from '../../http/schemas';
import { AUDIT_LIMIT } from './audit';
import { BULK_MAX_GROUPS, BULK_MAX_PLAYERS } from './bulk-service';
import { META_KEY_PATTERN, META_VALUE_MAX, NUMBER_LIMIT, TEXT_MAX } from './groups-service';
import { GROUP_NAME_PATTERN, NODE_MAX } from './nodes';
import { SCOPE_NAME_MAX } from './scope';
import { TRACK_MAX_GROUPS, TRACK_MIN_GROUPS } from './tracks-service';

/**
 * The JSON of `/api/permissions` (REFERENCE-MODULES §2): the shapes the dashboard, the proxy
 * bridge and the backend perms plugin read, and the bodies they send. Bodies refuse unknown
 * keys (a misspelt `expiresAt` must not silently make a grant permanent). Node, scope and meta
 * rules the schemas cannot say (empty segments, wildcard placement, times in the future) are
 * checked by the services, whose messages name the field.
 */

export const PLAYERS_LIMIT = { min: 1, max: 500, default: 50 } as const;
export const SEARCH_MAX = 64;
/** A permission asked about by check and debug: anything a plugin may ask, slashes included. */
export const ASKED_NODE_MAX = NODE_MAX;
const FILTER_MAX = 128;
const MAX_PARENTS = 64;
const MAX_NODES = 10_000;
const MAX_META_KEYS = 1_000;

// ---- path and query (http/t.ts's `t`: URL strings decode into numbers) ------------------

const groupName = (description: string) => t.String({ pattern: GROUP_NAME_PATTERN, description });
const uuid = t.String({ pattern: UUID_PATTERN, description: 'player UUID, dashed or not, any case' });
const metaKey = t.String({ pattern: META_KEY_PATTERN, description: 'meta key' });

export const GroupParams = t.Object({ name: groupName('permission group name, any case') });
export const GroupMetaParams = t.Object({ name: groupName('permission group name, any case'), key: metaKey });
export const PlayerParams = t.Object({ uuid });
export const PlayerMetaParams = t.Object({ uuid, key: metaKey });
export const TrackParams = t.Object({ name: groupName('track name, any case') });
export const TrackStepParams = t.Object({ name: groupName('track name, any case'), uuid });
/**
 * The permission is the rest of the path (the framework's `*`), read by the handler: the
 * framework cannot build its cleaner for a `*` key, so the object stays open. The OpenAPI
 * document lists it as `{path}`.
 */
export const AskParams = t.Object({ uuid }, { additionalProperties: true });

/** `?server=&world=`: where the player is; empty or absent means "not on a server/world". */
const place = (what: string) => t.Optional(t.String({ pattern: `^[A-Za-z0-9_.:-]{0,${SCOPE_NAME_MAX}}$`, description: `the ${what} the player is on; scoped rows of other ${what}s do not apply` }));
export const WhereQuery = t.Object({ server: place('server'), world: place('world') });

export const PlayersQuery = t.Object({
  q: t.Optional(t.String({ maxLength: SEARCH_MAX, description: 'part of a name, any case' })),
  limit: t.Optional(t.Integer({ description: `clamped to ${PLAYERS_LIMIT.min}..${PLAYERS_LIMIT.max}, default ${PLAYERS_LIMIT.default}` })),
});

export const AuditQuery = t.Object({
  limit: t.Optional(t.Integer({ description: `clamped to ${AUDIT_LIMIT.min}..${AUDIT_LIMIT.max}, default ${AUDIT_LIMIT.default}` })),
  offset: t.Optional(t.Integer({ description: 'entries to skip, newest first (negative counts as 0)' })),
  action: t.Optional(t.String({ maxLength: FILTER_MAX, description: 'only this action, e.g. group.addperm' })),
  target: t.Optional(t.String({ maxLength: FILTER_MAX, description: 'only this target (a group, player or track name)' })),
  actor: t.Optional(t.String({ maxLength: FILTER_MAX, description: 'only this actor, e.g. api:admin' })),
});

// ---- bodies (exact JSON types) --------------------------------------------------------------

const node = Type.String({ minLength: 1, maxLength: NODE_MAX, description: 'permission node: letters, digits and _ . # * -; a leading - negates; a wildcard only as the whole last segment (a.b.*, *)' });
const bodyGroup = Type.String({ pattern: GROUP_NAME_PATTERN, description: 'permission group name, any case' });
const nullable = <S extends TSchema>(schema: S) => Type.Optional(Type.Union([schema, Type.Null()]));
const scopeName = (what: string) => nullable(Type.String({ maxLength: SCOPE_NAME_MAX, description: `only on this ${what} (letters, digits and _ . : -); absent, empty or null: every ${what}` }));
const expiresAt = nullable(Type.String({ maxLength: 64, description: 'ISO-8601 time in the future (2026-12-31T23:59:00Z) after which the row is deleted; absent or null: permanent' }));
const where = { server: scopeName('server'), world: scopeName('world') };
const scope = { ...where, expiresAt };

export const CreateGroupBody = closedObject({
  name: Type.String({ pattern: GROUP_NAME_PATTERN, description: '1–64 of letters, digits, _ and -' }),
  default: Type.Optional(Type.Boolean({ description: 'make it the default group (every player has it); default false' })),
});

const text = (description: string) => Type.Optional(Type.String({ maxLength: TEXT_MAX, description: `${description}; at most ${TEXT_MAX} characters, one line` }));
const whole = (description: string) => Type.Optional(Type.Integer({ minimum: -NUMBER_LIMIT, maximum: NUMBER_LIMIT, description }));

/** GroupPatch of groups-service.ts: absent fields stay as they are. */
export const GroupPatchBody = closedObject({
  default: Type.Optional(Type.Boolean({ description: 'true makes this the default group (the previous one stops being it); false is refused on the default group' })),
  prefix: text('chat prefix'),
  suffix: text('chat suffix'),
  priority: whole('decides whose prefix and suffix a player in several groups shows (highest)'),
  weight: whole('decides a grant against a negation from another group (highest; ties: the negation)'),
  permissions: Type.Optional(Type.Array(node, { maxItems: MAX_NODES, description: 'the whole list: held nodes keep their scopes, new ones are added unscoped, missing ones are removed' })),
  parents: Type.Optional(Type.Array(bodyGroup, { maxItems: MAX_PARENTS, description: 'parent groups, replacing the current ones; a cycle is refused' })),
  meta: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: META_VALUE_MAX }), { maxProperties: MAX_META_KEYS, description: `replaces the whole meta map; keys match ${META_KEY_PATTERN}` })),
});
export type GroupPatchInput = Static<typeof GroupPatchBody>;

export const AddPermissionBody = closedObject({ permission: node, ...scope });
export const RemovePermissionBody = closedObject(
  { permission: node, ...where },
  'with server or world: only that scoped row; without: the node with every scope',
);

export const MetaBody = closedObject({
  key: Type.String({ pattern: META_KEY_PATTERN, description: 'meta key' }),
  value: Type.String({ maxLength: META_VALUE_MAX, description: `at most ${META_VALUE_MAX} characters` }),
});

const playerName = Type.String({ pattern: PLAYER_NAME_PATTERN, description: 'player name' });
export const RegisterBody = closedObject({ name: playerName });
export const AddMembershipBody = closedObject({
  group: bodyGroup,
  name: Type.Optional(Type.Union([playerName, Type.Null()], { description: 'the name to store when the player is not known yet (default "unknown")' })),
  ...scope,
});
export const RemoveMembershipBody = closedObject(
  { group: bodyGroup, ...where },
  'with server or world: only that scoped membership; without: every membership of the group',
);

export const CreateTrackBody = closedObject({
  name: Type.String({ pattern: GROUP_NAME_PATTERN, description: 'track name: 1–64 of letters, digits, _ and -' }),
  groups: Type.Array(bodyGroup, { minItems: TRACK_MIN_GROUPS, maxItems: TRACK_MAX_GROUPS, description: `existing groups, lowest rank first (at least ${TRACK_MIN_GROUPS})` }),
});

export const BulkPermissionBody = closedObject({
  groups: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: BULK_MAX_GROUPS, description: 'group names; an unknown one is listed in errors, the others are done' }),
  permission: node,
  ...scope,
});
export const BulkMembershipBody = closedObject({
  players: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: BULK_MAX_PLAYERS, description: 'player UUIDs; a malformed one is listed in errors, the others are done' }),
  group: bodyGroup,
  ...scope,
});

// ---- answers --------------------------------------------------------------------------------

const ScopeFields = {
  server: Type.Optional(Type.String()),
  world: Type.Optional(Type.String()),
  expiresAt: Type.Optional(Type.String({ description: 'ISO-8601' })),
};
const Meta = Type.Record(Type.String(), Type.String());

/** G: what the dashboard's group editor reads. */
export const GroupSchema = Type.Object({
  name: Type.String(),
  default: Type.Boolean(),
  prefix: Type.String(),
  suffix: Type.String(),
  priority: Type.Integer(),
  weight: Type.Integer(),
  permissions: Type.Array(Type.String(), { description: 'every node the group holds, scoped or not, once each' }),
  scopedPermissions: Type.Array(Type.Object({ permission: Type.String(), ...ScopeFields }), { description: 'the scoped rows behind permissions' }),
  parents: Type.Array(Type.String()),
  meta: Meta,
});
export const GroupListSchema = Type.Object({ groups: Type.Array(GroupSchema), total: Type.Integer() });
export const GroupUpdatedSchema = Type.Object({ success: Type.Literal(true), message: Type.String(), group: GroupSchema });
export const MetaSchema = Type.Object({ meta: Meta });

/** P: what the proxy bridge and the backend plugin apply on join. */
export const PlayerSchema = Type.Object({
  uuid: Type.String(),
  name: Type.String({ description: '"unknown" for a player the module has not seen' }),
  groups: Type.Array(Type.String()),
  memberships: Type.Array(Type.Object({ group: Type.String(), ...ScopeFields }), { description: 'the memberships behind groups, with their scopes' }),
  effectivePermissions: Type.Array(Type.String(), { description: 'sorted; -node for a negation that wins' }),
  prefix: Type.String(),
  suffix: Type.String(),
  displayGroup: Type.String(),
  priority: Type.Integer(),
  meta: Meta,
});
export const PlayerListItemSchema = Type.Object({
  uuid: Type.String(),
  name: Type.String(),
  groups: Type.Array(Type.String()),
  displayGroup: Type.String(),
  prefix: Type.String(),
});

export const CheckSchema = Type.Object({ uuid: Type.String(), permission: Type.String(), allowed: Type.Boolean() });
export const ChainStepSchema = Type.Object({
  source: Type.String({ description: 'the group holding the row' }),
  permission: Type.String({ description: 'the stored node, with its - when it negates' }),
  type: Type.Union(['exact', 'wildcard', 'negated', 'inherited', 'context-filtered'].map((v) => Type.Literal(v))),
  granted: Type.Boolean({ description: 'whether this row on its own grants here' }),
  weight: Type.Integer(),
  decisive: Type.Boolean({ description: 'the row that decided the answer' }),
  inheritedFrom: Type.Optional(Type.String({ description: 'for a parent’s row: the group it was inherited through' })),
  ...ScopeFields,
});
export const DebugSchema = Type.Object({
  uuid: Type.String(),
  permission: Type.String(),
  result: Type.Boolean({ description: 'the same answer check gives' }),
  reason: Type.String(),
  chain: Type.Array(ChainStepSchema),
});

export const TrackSchema = Type.Object({ name: Type.String(), groups: Type.Array(Type.String(), { description: 'lowest rank first' }) });
export const TrackListSchema = Type.Object({ tracks: Type.Array(TrackSchema), total: Type.Integer() });
export const StepSchema = Type.Object({
  success: Type.Boolean({ description: 'false at the top (promote) or bottom (demote) of the track' }),
  previousGroup: Type.Union([Type.String(), Type.Null()]),
  newGroup: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
});

export const BulkResultSchema = Type.Object({
  success: Type.Boolean({ description: 'true when every item was done' }),
  processed: Type.Integer(),
  failed: Type.Integer(),
  errors: Type.Array(Type.String(), { description: '"item: why"' }),
});

export const AuditPageSchema = Type.Object({
  entries: Type.Array(Type.Object({ timestamp: Type.String({ description: 'ISO-8601' }), actor: Type.String(), action: Type.String(), target: Type.String(), details: Type.String() })),
  total: Type.Integer({ description: 'entries the filter matches, not the page size' }),
});
