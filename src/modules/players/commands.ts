import { expectArgs } from '../../core/commands/args';
import { CommandFailure, UsageError, type Command, type CommandOutput } from '../../core/commands/command';
import { dispatchSubcommands } from '../../core/commands/subcommands';
import { PLAYER_NAME_PATTERN } from '../../core/players/uuid';
import type { PlayerViews } from './views';

const NAME = new RegExp(PLAYER_NAME_PATTERN);
/** Sessions `players history` prints. */
const HISTORY_LINES = 10;
const USAGE = 'players [list [service] | info <name> | history <name> | stats]';

/** Whole seconds as "2h 5m 3s". */
export function formatDuration(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return h > 0 ? `${h}h ${m}m ${s}s` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}

/**
 * `players`: the roster, one player's record and sessions, and the totals. It takes over core's
 * `players` (which pings the backends) while the module is installed.
 */
export function playersCommand(views: PlayerViews): Command {
  const nameArg = (rest: string[], usage: string) => {
    const [name] = expectArgs({ usage }, rest, 1);
    if (!NAME.test(name!)) throw new UsageError(usage, `"${name}" is not a player name`);
    return name!;
  };
  const find = (name: string) => {
    const info = views.infoByName(name);
    if (!info) throw new CommandFailure(`no player named ${name} has been seen`);
    return info;
  };

  const list = (service: string | undefined, out: CommandOutput) => {
    const online = views.online().filter((p) => service === undefined || p.service.toLowerCase() === service.toLowerCase());
    online.sort((a, b) => a.name.localeCompare(b.name));
    out.header(`${online.length} player(s) online${service ? ` on ${service}` : ''}`);
    for (const p of online) out.item(`${p.name}  on ${p.service} (${p.group}) since ${p.connectedAt}`);
  };

  const command: Command = {
    name: 'players',
    description: 'Who is online, a player’s record and sessions, and the totals (players module)',
    usage: USAGE,
    permission: 'svc.command.players',
    level: 'service',
    replacesCore: true,
    subcommands: [
      { name: 'list', description: 'Online players, or those of one service', usage: 'players list [service]', args: ['service'] },
      { name: 'info', description: 'First and last seen, playtime, where they are', usage: 'players info <name>', args: ['player'] },
      { name: 'history', description: `A player’s last ${HISTORY_LINES} sessions`, usage: 'players history <name>', args: ['player'] },
      { name: 'stats', description: 'Players online, ever seen, and per service', usage: 'players stats' },
    ],
    run: dispatchSubcommands(USAGE, {
      list({ out }, rest) {
        const [service] = expectArgs(command, rest, 0, 1);
        return list(service, out);
      },
      info({ out }, rest) {
        const info = find(nameArg(rest, 'players info <name>'));
        out.header(`${info.name} (${info.uuid})`);
        out.item(info.online ? `online on ${info.currentService}` : 'offline');
        out.item(`first seen ${info.firstSeen}`);
        out.item(`last seen ${info.lastSeen}`);
        out.item(`playtime ${formatDuration(info.totalPlaytimeSeconds)}`);
      },
      history({ out }, rest) {
        const info = find(nameArg(rest, 'players history <name>'));
        const sessions = views.history(info.uuid, HISTORY_LINES);
        out.header(`last ${sessions.length} session(s) of ${info.name}`);
        for (const s of sessions) out.item(`${s.connectedAt} → ${s.disconnectedAt ?? 'now'}  ${s.service} (${s.group})`);
      },
      stats({ out }, rest) {
        expectArgs(command, rest, 0);
        const stats = views.stats();
        out.header(`${stats.online} online, ${stats.totalUnique} ever seen`);
        for (const [service, count] of Object.entries(stats.perService).sort(([a], [b]) => a.localeCompare(b))) out.item(`${service}: ${count}`);
      },
    }, { whenNone: 'list' }),
  };
  return command;
}
