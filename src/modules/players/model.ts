import { t } from '../../http/t';
import { UUID_PATTERN } from '../../core/players/uuid';

/** The shapes the existing dashboard and plugins read (REFERENCE-MODULES §1); times are ISO-8601 UTC. */

export const UuidParams = t.Object({ uuid: t.String({ pattern: UUID_PATTERN, description: 'player uuid, dashed or 32 hex digits' }) });

export const OnlinePlayerSchema = t.Object({
  uuid: t.String(),
  name: t.String(),
  service: t.String(),
  group: t.String(),
  connectedAt: t.String({ description: 'when the current session opened' }),
  proxy: t.Union([t.String(), t.Null()], { description: 'the proxy carrying the player, when its own credential reported the connect' }),
});

export const SessionSchema = t.Object({
  service: t.String(),
  group: t.String(),
  connectedAt: t.String(),
  disconnectedAt: t.Union([t.String(), t.Null()], { description: 'null while the session lasts' }),
});

export const PlayerInfoSchema = t.Object({
  uuid: t.String(),
  name: t.String({ description: 'the name last seen' }),
  firstSeen: t.String(),
  lastSeen: t.String(),
  totalPlaytimeSeconds: t.Integer({ description: 'closed sessions plus the one running now' }),
  online: t.Boolean(),
  currentService: t.Union([t.String(), t.Null()]),
});

/** `/all` answers every value as a string: the dashboard declares these fields as strings. */
export const KnownPlayerSchema = t.Object({
  uuid: t.String(),
  name: t.String(),
  firstSeen: t.String(),
  lastSeen: t.String(),
  totalPlaytimeSeconds: t.String({ description: 'whole seconds, as a string' }),
  online: t.Union([t.Literal('true'), t.Literal('false')]),
});

export const StatsSchema = t.Object({
  online: t.Integer(),
  totalUnique: t.Integer({ description: 'players ever seen' }),
  perService: t.Record(t.String(), t.Integer(), { description: 'online players by service' }),
});

export const HISTORY_LIMIT = { min: 1, max: 100, default: 20 };
export const ALL_LIMIT = { min: 1, max: 500, default: 50 };
