import { info, ok, warn, type DoctorSection, type Finding } from '../../core/doctor/model';
import { closedByRestart, type ServiceView } from './reconcile';
import { ALIVE, TICK_MS, type PlayersSettings } from './runtime';
import type { PlayerSessions } from './sessions';
import type { PlayerStore } from './store';

/** What the section reads of the module (a PlayersRuntime). */
export interface PlayersDoctorModule {
  readonly sessions: Pick<PlayerSessions, 'online' | 'size'>;
  readonly store: Pick<PlayerStore, 'uniquePlayers' | 'state'>;
  readonly settings: PlayersSettings;
}

/** What the section reads of core (the kernel): the services, and core's own roster. */
export interface PlayersDoctorCore {
  readonly services: { all(): readonly ServiceView[] };
  readonly players: { readonly roster: { readonly size: number } };
}

/** The tick notes the controller alive every TICK_MS; this many missed ticks mean it stopped running. */
const MISSED_TICKS = 4;

/**
 * The session tables against what the controller sees: the periodic check still runs (it
 * closes sessions a backend's own count contradicts and prunes old history), no session is open
 * on a service that cannot hold players, and core's roster (what send, kick and completions
 * read) agrees with the open sessions.
 */
export function playersDoctorSection(module: PlayersDoctorModule, core: PlayersDoctorCore, now: () => number = Date.now): DoctorSection {
  return {
    name: 'Players',
    run: () => {
      const findings: Finding[] = [];
      const online = module.sessions.online();

      const alive = module.store.state(ALIVE);
      const silentMs = alive === undefined ? 0 : now() - alive;
      if (silentMs > MISSED_TICKS * TICK_MS) {
        findings.push(
          warn(
            `the players check last ran ${Math.round(silentMs / 1000)} s ago (it runs every ${TICK_MS / 1000} s): sessions a backend reports empty stay open and old history is not pruned`,
            'the controller log says why ("players tick failed")',
          ),
        );
      }

      const stale = closedByRestart(online, core.services.all());
      if (stale.length > 0) {
        const where = [...new Set(stale.map((s) => s.service))];
        findings.push(
          warn(
            `${stale.length} session(s) open on services that hold no players now (${where.slice(0, 5).join(', ')}${where.length > 5 ? ', …' : ''})`,
            'they close when the proxy bridge reports those players leaving, or at the next start; if they stay, check that the bridge plugin on the proxy reaches the controller',
          ),
        );
      }

      const roster = core.players.roster.size;
      if (roster !== module.sessions.size) {
        findings.push(
          warn(`core's roster has ${roster} player(s) online, the open sessions ${module.sessions.size}`, 'they agree again as the bridge reports players; a restart rebuilds the roster from the sessions'),
        );
      }

      const services = new Set(online.map((s) => s.service)).size;
      findings.push(ok(`${online.length} player(s) online on ${services} service(s); ${module.store.uniquePlayers()} player(s) seen`));
      const days = module.settings.historyRetentionDays;
      findings.push(
        days > 0
          ? info(`closed sessions are kept ${days} day(s) (playtime totals for good)`)
          : info('every closed session is kept (history_retention_days = 0): the session table only grows', 'set history_retention_days in config/modules/players/players.toml to prune it'),
      );
      return findings;
    },
  };
}
