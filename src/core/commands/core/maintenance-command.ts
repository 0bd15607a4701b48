import type { Kernel } from '../../../kernel';
import { TEXT_LIMITS } from '../../proxy/model';
import { expectArgs } from '../args';
import { CommandFailure, UsageError, type Command, type CommandOutput } from '../command';
import { dispatchSubcommands } from '../subcommands';

const WHITELIST_ENTRY = /^[A-Za-z0-9_.*+-]{1,36}$/;
const ON_OFF = ['on', 'off'] as const;
const USAGE = 'maintenance [status | on [reason…] | off | group <group> <on|off> [reason…] | whitelist <add|remove|list> [player]]';

/** `maintenance`: the global flag, per-group flags and the whitelist, as /api/maintenance/* does them. */
export function maintenanceCommand(kernel: Kernel): Command {
  const { maintenance } = kernel;
  const reasonOf = (words: string[]) => {
    const reason = words.join(' ');
    if (reason.length > TEXT_LIMITS.short) throw new CommandFailure(`the reason is ${reason.length} characters; at most ${TEXT_LIMITS.short}`);
    return reason;
  };
  const show = (out: CommandOutput) => {
    const { global, groups } = maintenance.status();
    out.header(`maintenance: ${global.enabled ? `ON${global.reason ? ` (${global.reason})` : ''}` : 'off'}`);
    for (const [name, g] of Object.entries(groups)) if (g.enabled) out.item(`group ${name}: ON${g.reason ? ` (${g.reason})` : ''}`);
    out.info(`whitelist: ${global.whitelist.length === 0 ? 'empty' : global.whitelist.join(', ')}`);
  };

  const command: Command = {
    name: 'maintenance',
    aliases: ['maint'],
    description: 'Maintenance of the network or one group, and who may join during it',
    usage: USAGE,
    permission: 'svc.command.maintenance',
    level: 'service',
    subcommands: [
      { name: 'status', description: 'Which flags are on and the whitelist', usage: 'maintenance status' },
      { name: 'on', description: 'Maintenance for the whole network', usage: 'maintenance on [reason…]', args: ['text'] },
      { name: 'off', description: 'End network maintenance', usage: 'maintenance off' },
      { name: 'group', description: 'Maintenance for one group', usage: 'maintenance group <group> <on|off> [reason…]', args: ['group', ON_OFF, 'text'] },
      { name: 'whitelist', description: 'Who may join during maintenance', usage: 'maintenance whitelist <add|remove|list> [player]', args: [['add', 'remove', 'list'], 'player'] },
    ],
    run: dispatchSubcommands(USAGE, {
      status({ out }, rest) {
        expectArgs(command, rest, 0);
        return show(out);
      },
      on({ out, actor }, rest) {
        // `maintenance on` again without a reason keeps the reason it has.
        const current = maintenance.status().global;
        const reason = rest.length === 0 && current.enabled ? current.reason : reasonOf(rest);
        const changed = maintenance.setGlobal(true, reason, actor);
        return out.success(changed ? 'network maintenance is ON: only whitelisted players can join' : 'network maintenance was already on');
      },
      off({ out, actor }, rest) {
        expectArgs(command, rest, 0);
        return out.success(maintenance.setGlobal(false, '', actor) ? 'network maintenance is off' : 'network maintenance was already off');
      },
      group({ out, actor }, rest) {
        const [group, toggle, ...reason] = rest;
        if (!group || !toggle || !ON_OFF.includes(toggle.toLowerCase() as 'on' | 'off')) throw new UsageError('maintenance group <group> <on|off> [reason…]');
        const enabled = toggle.toLowerCase() === 'on';
        const changed = maintenance.setGroup(group, enabled, reasonOf(reason), actor);
        return out.success(`maintenance of group ${group} ${changed ? 'is now' : 'was already'} ${enabled ? 'ON' : 'off'}`);
      },
      whitelist: ({ out }, rest) => whitelist(rest, out),
    }, { whenNone: 'status' }),
  };

  const whitelist = (words: string[], out: CommandOutput) => {
    const usage = 'maintenance whitelist <add|remove|list> [player]';
    const [action, entry, extra] = words;
    if (action?.toLowerCase() === 'list' && entry === undefined) {
      const list = maintenance.status().global.whitelist;
      out.header(`${list.length} whitelisted`);
      for (const e of list) out.item(e);
      return;
    }
    if ((action?.toLowerCase() !== 'add' && action?.toLowerCase() !== 'remove') || entry === undefined || extra !== undefined) throw new UsageError(usage);
    if (!WHITELIST_ENTRY.test(entry)) throw new UsageError(usage, `"${entry}" is not a player name or uuid`);
    if (action.toLowerCase() === 'add') out.success(maintenance.whitelistAdd(entry) ? `${entry} may join during maintenance` : `${entry} was already whitelisted`);
    else out.success(maintenance.whitelistRemove(entry) ? `${entry} removed from the maintenance whitelist` : `${entry} was not whitelisted`);
  };

  return command;
}
