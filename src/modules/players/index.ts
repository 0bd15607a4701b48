import { asStatic } from '../../config/unit/sections';
import { t } from '../../http/t';
import { defineModule } from '../module';
import { PLAYERS_USES } from './uses';
import { PLAYERS_MANIFEST } from './manifest';
import { PerController } from '../per-controller';
import { playersCommand } from './commands';
import { playersDoctorSection } from './doctor';
import { playersModuleRoutes } from './routes';
import { PlayersRuntime } from './runtime';
import players0001 from './migrations/0001_players.sql' with { type: 'text' };

const runtimes = new PerController<PlayersRuntime>('players');

const ConfigSchema = t.Object({
  players: t.Object({
    history_retention_days: t.Integer({
      minimum: 0,
      default: 180,
      description: 'days a closed session is kept for /api/players/history (playtime totals are kept for good); 0 keeps every session',
    }),
  }),
});

/**
 * Player sessions and the canonical online roster, fed by the proxy bridge's events: who is
 * online where, each player's history and playtime, and search over every player seen.
 */
export const playersModule = defineModule({
  ...PLAYERS_MANIFEST,
  uses: PLAYERS_USES,
  configSchema: ConfigSchema,
  migrations: [{ version: 1, name: 'players', sql: players0001 }],
  init(ctx) {
    const days = asStatic(ConfigSchema, ctx.config).players.history_retention_days;
    const runtime = new PlayersRuntime(ctx.kernel, ctx.log, { historyRetentionDays: days });
    runtimes.set(ctx, runtime);
    // Core's GET /api/players answers from this roster instead of pinging the backends.
    ctx.kernel.modules.provide('players', runtime.sessions);
  },
  ready: (ctx) => runtimes.of(ctx).ready(),
  routes: (ctx) => playersModuleRoutes(runtimes.of(ctx).views),
  commands: (ctx) => [playersCommand(runtimes.of(ctx).views)],
  doctorChecks: (ctx) => [playersDoctorSection(runtimes.of(ctx), ctx.kernel)],
  stop(ctx) {
    runtimes.take(ctx)?.stop();
  },
});
