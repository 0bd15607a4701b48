import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';

/**
 * What the proxy bridge shows: tab list, server-list MOTD and chat format. Texts are
 * MiniMessage with the bridge's placeholders ({online}, {max}, {player}, {server}, {group},
 * {prefix}, {suffix}, {message}). Limits keep a typo from shipping a megabyte to every proxy.
 */
export const TEXT_LIMITS = { block: 4096, line: 1024, short: 256 } as const;

const tablistFields = {
  header: Type.String({ maxLength: TEXT_LIMITS.block, description: 'text above the player list' }),
  footer: Type.String({ maxLength: TEXT_LIMITS.block, description: 'text below the player list' }),
  playerFormat: Type.String({ maxLength: TEXT_LIMITS.short, description: 'how each player is listed' }),
  updateInterval: Type.Integer({ minimum: 1, maximum: 3600, description: 'seconds between tab list refreshes' }),
};
const motdFields = {
  line1: Type.String({ maxLength: TEXT_LIMITS.line, description: 'first server-list line' }),
  line2: Type.String({ maxLength: TEXT_LIMITS.line, description: 'second server-list line' }),
  maxPlayers: Type.Integer({ minimum: -1, maximum: 1_000_000, description: 'slots shown in the server list; -1 shows the real maximum' }),
  playerCountOffset: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'added to the online count shown' }),
};
const chatFields = {
  format: Type.String({ maxLength: TEXT_LIMITS.line, description: 'network chat line' }),
  enabled: Type.Boolean({ description: 'whether the proxy formats chat at all' }),
};

export const TablistSchema = Type.Object(tablistFields);
export const MotdSchema = Type.Object(motdFields);
export const ChatSchema = Type.Object(chatFields);
export type Tablist = Static<typeof TablistSchema>;
export type Motd = Static<typeof MotdSchema>;
export type Chat = Static<typeof ChatSchema>;

/** PUT bodies: any subset of the fields (unknown keys are dropped; a body left empty is NO_FIELDS_TO_UPDATE). */
export const TablistUpdateSchema = Type.Partial(TablistSchema);
export const MotdUpdateSchema = Type.Partial(MotdSchema);
export const ChatUpdateSchema = Type.Partial(ChatSchema);

export const TABLIST_DEFAULTS: Tablist = {
  header: '\n<gradient:#5eead4:#38bdf8><bold>svc network</bold></gradient>\n',
  footer: '\n<gray>{online}/{max} online · you are on <white>{server}</white></gray>\n',
  playerFormat: '{prefix}{player}{suffix}',
  updateInterval: 5,
};
export const MOTD_DEFAULTS: Motd = {
  line1: '<gradient:#5eead4:#38bdf8><bold>svc network</bold></gradient>',
  line2: '<gray>{online} players online</gray>',
  maxPlayers: -1,
  playerCountOffset: 0,
};
export const CHAT_DEFAULTS: Chat = { format: '{prefix}{player}{suffix} <dark_gray>» <gray>{message}', enabled: true };

/** A section of a settings file: the fields with their defaults, the section itself defaulting to empty. */
export function section<P extends TProperties>(fields: P, defaults: Static<TObject<P>>): TObject<P> {
  const withDefaults: TProperties = {};
  for (const [key, field] of Object.entries(fields)) withDefaults[key] = { ...field, default: (defaults as Record<string, unknown>)[key] };
  return Type.Object(withDefaults as P, { default: {} });
}

/** `config/proxy.toml`. */
export const ProxyFileSchema = Type.Object({
  tablist: section(tablistFields, TABLIST_DEFAULTS),
  motd: section(motdFields, MOTD_DEFAULTS),
  chat: section(chatFields, CHAT_DEFAULTS),
});

/** A per-player tab list name: one line of MiniMessage. */
export const PlayerTabFormatSchema = Type.String({ minLength: 1, maxLength: TEXT_LIMITS.short, pattern: '^[^\\r\\n]*$' });
