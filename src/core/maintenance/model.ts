import { Type, type Static } from '@sinclair/typebox';
import { section, TEXT_LIMITS } from '../proxy/model';

/** Whitelist entries: a player name or a uuid; enough for any staff list, bounded for the bridge's sake. */
export const WHITELIST_LIMIT = 10_000;
export const WhitelistEntrySchema = Type.String({ minLength: 1, maxLength: 36, pattern: '^[A-Za-z0-9_.*+-]{1,36}$', description: 'a player name or a uuid' });

const reason = Type.String({ maxLength: TEXT_LIMITS.short, description: 'why; shown to operators' });

const globalFields = {
  enabled: Type.Boolean({ description: 'the whole network is in maintenance' }),
  reason,
  motdLine1: Type.String({ maxLength: TEXT_LIMITS.line, description: 'first server-list line during maintenance' }),
  motdLine2: Type.String({ maxLength: TEXT_LIMITS.line, description: 'second server-list line during maintenance' }),
  protocolText: Type.String({ maxLength: TEXT_LIMITS.short, description: 'shown in place of the version during maintenance' }),
  kickMessage: Type.String({ maxLength: TEXT_LIMITS.block, description: 'what a player who is not whitelisted sees' }),
  whitelist: Type.Array(WhitelistEntrySchema, { maxItems: WHITELIST_LIMIT, description: 'names (as typed; matched ignoring case) and uuids (dashed lower-case) that may join during maintenance' }),
};
export const GlobalMaintenanceSchema = Type.Object(globalFields);
export type GlobalMaintenance = Static<typeof GlobalMaintenanceSchema>;

const groupFields = {
  enabled: Type.Boolean({ description: 'the group is in maintenance' }),
  reason,
  kickMessage: Type.String({ maxLength: TEXT_LIMITS.block, description: 'what a player sent to the group sees' }),
};
export const GroupMaintenanceSchema = Type.Object(groupFields);
export type GroupMaintenance = Static<typeof GroupMaintenanceSchema>;

export const GLOBAL_DEFAULTS: GlobalMaintenance = {
  enabled: false,
  reason: '',
  motdLine1: '<red><bold>Maintenance</bold></red>',
  motdLine2: '<gray>We are working on the network. Back soon.</gray>',
  protocolText: 'Maintenance',
  kickMessage: '<red><bold>Maintenance</bold></red>\n<gray>The network is down for maintenance.\nPlease come back later.</gray>',
  whitelist: [],
};
export const GROUP_DEFAULTS: GroupMaintenance = { enabled: false, reason: '', kickMessage: '<red>This game mode is down for maintenance.</red>' };

/** `config/maintenance.toml`. */
export const MaintenanceFileSchema = Type.Object({
  global: section(globalFields, GLOBAL_DEFAULTS),
  groups: Type.Record(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }), section(groupFields, GROUP_DEFAULTS), { default: {} }),
});
export type MaintenanceFile = Static<typeof MaintenanceFileSchema>;

/** The maintenance texts PUT /api/maintenance/global changes. */
export const GlobalTextsUpdateSchema = Type.Partial(Type.Pick(GlobalMaintenanceSchema, ['motdLine1', 'motdLine2', 'protocolText', 'kickMessage']));

export const ToggleSchema = Type.Object({ enabled: Type.Boolean(), reason: Type.Optional(reason) });
