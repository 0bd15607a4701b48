import type { Kernel } from '../../../kernel';
import { networkStatus } from '../../network-status';
import { pingServer } from '../../net/server-list-ping';
import { listOnlinePlayers, type Ping } from '../../players/online-players';
import { PLAYER_NAME_PATTERN } from '../../players/uuid';
import type { NetworkActions } from '../../proxy/network-actions';
import { quarantineRefusal } from '../../services/quarantine';
import { serviceView } from '../../services/view';
import { expectArgs, parseFlags } from '../args';
import { CommandFailure, UsageError, type Command } from '../command';

const PLAYER_NAME = new RegExp(PLAYER_NAME_PATTERN);

/** The network: status, list, groups, players, send, broadcast. */
export function networkCommands(kernel: Kernel, actions: NetworkActions, ping: Ping = pingServer): Command[] {
  const { services, groups } = kernel;

  const status: Command = {
    name: 'status',
    description: 'The network at a glance: services, players, groups',
    usage: 'status',
    permission: 'svc.command.status',
    level: 'service',
    run({ args, out }) {
      expectArgs(status, args, 0);
      const s = networkStatus(kernel);
      out.header(`${s.networkName}: ${s.online ? 'online' : 'offline'}`);
      out.info(`uptime ${s.uptimeHuman} · ${s.totalServices} service(s) · ${s.totalPlayers} player(s)`);
      if (s.groups.length === 0) out.info('no groups yet: create one with `group create <name> <software> <version>`, POST /api/groups or a file in config/groups/');
      for (const g of s.groups) {
        out.item(`${g.name}: ${g.instances}/${g.maxInstances} instance(s) · ${g.players}/${g.maxPlayers} players · ${g.software} ${g.version}${g.quarantined ? ' · QUARANTINED' : ''}`);
      }
      for (const q of kernel.manager.quarantines()) out.error(quarantineRefusal(q));
    },
  };

  const list: Command = {
    name: 'list',
    aliases: ['ls', 'services'],
    description: 'Every service, or those of one group',
    usage: 'list [group]',
    permission: 'svc.command.list',
    level: 'service',
    args: ['group'],
    run({ args, out }) {
      const [group] = expectArgs(list, args, 0, 1);
      if (group !== undefined && !groups.get(group)) throw new CommandFailure(`group "${group}" does not exist; \`groups\` lists them`);
      const views = services
        .all()
        .filter((s) => group === undefined || s.group === group)
        .map((s) => serviceView(s))
        .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
      out.header(`${views.length} service(s)${group === undefined ? '' : ` of ${group}`}`);
      for (const v of views) {
        out.item(`${v.name}  ${v.state}${v.customState ? `/${v.customState}` : ''}  port ${v.port}  ${v.playerCount} player(s)  ${v.memoryUsedMb}/${v.memoryMaxMb} MB`);
      }
    },
  };

  const groupList: Command = {
    name: 'groups',
    description: 'Every group with its instances and software',
    usage: 'groups',
    permission: 'svc.command.groups',
    level: 'service',
    run({ args, out }) {
      expectArgs(groupList, args, 0);
      const all = groups.list();
      out.header(`${all.length} group(s)`);
      for (const g of all) {
        const quarantined = kernel.manager.isQuarantined(g.name) ? '  QUARANTINED' : '';
        out.item(`${g.name}  ${g.type} ${g.software} ${g.version}  ${services.activeInstances(g.name)} running (min ${g.minInstances}, max ${g.maxInstances})  ${g.memory}${quarantined}`);
      }
      for (const q of kernel.manager.quarantines()) if (q.kind === 'group') out.error(quarantineRefusal(q));
      for (const broken of groups.brokenFiles()) out.error(`not loaded: ${broken.message}`);
    },
  };

  const players: Command = {
    name: 'players',
    description: 'Who is online: every READY backend asked, merged with what the proxies report',
    usage: 'players',
    permission: 'svc.command.players',
    level: 'service',
    async run({ args, out }) {
      expectArgs(players, args, 0);
      const backends = services.all().filter((s) => s.state === 'READY' && !s.isProxy);
      const listing = await listOnlinePlayers(backends, kernel.players.roster, ping, {
        observe: (service, online) => kernel.players.observe(service, online),
        groupOf: (service) => services.get(service)?.group,
      });
      out.header(`${listing.online} player(s) online`);
      for (const p of listing.players) out.item(`${p.name}  on ${p.service}${p.group ? ` (${p.group})` : ''}`);
      if (listing.online > listing.players.length) out.info(`${listing.online - listing.players.length} more not named (server status lists show a sample)`);
      for (const s of listing.services.filter((x) => !x.reachable)) out.error(`${s.service} did not answer: ${s.error ?? 'no reply'}`);
    },
  };

  const send: Command = {
    name: 'send',
    description: 'Move a player to a service through the proxies',
    usage: 'send <player> <service>',
    permission: 'svc.command.send',
    level: 'service',
    args: ['player', 'service'],
    run({ args, out }) {
      const [player, target] = expectArgs(send, args, 2);
      if (!PLAYER_NAME.test(player!)) throw new UsageError(send.usage, `"${player}" is not a player name`);
      const proxies = actions.send(player!, target!);
      out.success(`${player} is being sent to ${target} (through ${proxies.join(', ')})`);
    },
  };

  const broadcast: Command = {
    name: 'broadcast',
    aliases: ['bc'],
    description: 'A message to every READY service, or those of one group',
    usage: 'broadcast [--group <group>] <message…>',
    permission: 'svc.command.broadcast',
    level: 'service',
    args: ['text'],
    run({ args, out }) {
      const { positional, flags } = parseFlags(broadcast, args, ['group']);
      const message = expectArgs(broadcast, positional, 1, 1024).join(' ');
      const group = flags.get('group');
      const { reached, targets } = actions.broadcast(message, typeof group === 'string' ? group : undefined);
      out.success(`broadcast written to ${reached.length}/${targets.length} READY service(s)`);
      const missed = targets.filter((t) => !reached.includes(t));
      if (missed.length > 0) out.error(`not reached: ${missed.join(', ')}`);
    },
  };

  return [status, list, groupList, players, send, broadcast];
}
