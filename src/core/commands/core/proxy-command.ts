import type { Kernel } from '../../../kernel';
import { expectArgs } from '../args';
import { CommandFailure, UsageError, type Command } from '../command';

/**
 * `proxy update`: looks for the latest stable proxy build now and applies it to every proxy
 * group and dedicated proxy that is behind (the operator asked, so `[proxy] auto_update` does
 * not matter here), printing per proxy what it did. Fails (after printing) when any update or
 * the upstream failed, so a script sees it.
 */
export function proxyCommand(kernel: Kernel): Command {
  const command: Command = {
    name: 'proxy',
    description: 'Proxy software: look for the latest stable build and apply it',
    usage: 'proxy update',
    permission: 'svc.command.proxy',
    // It replaces jars and writes group versions, as an admin's group edit would.
    level: 'admin',
    subcommands: [{ name: 'update', description: 'Look for the latest stable proxy build now and apply it to every proxy that is behind', usage: 'proxy update' }],
    async run({ args, out, actor }) {
      const [sub, ...rest] = args;
      if (sub?.toLowerCase() !== 'update') throw new UsageError(command.usage, sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`);
      expectArgs(command, rest, 0);
      const updates = kernel.proxyUpdates;
      if (!updates) throw new CommandFailure('proxy updates are not running');
      const results = await updates.checkNow({ apply: true, actor });
      if (results.length === 0) return out.info('no proxy group or dedicated proxy whose software svc can update');
      out.header(`proxy software: ${results.length} checked`);
      for (const result of results) {
        if (result.outcome === 'applied') out.success(result.message);
        else if (result.outcome === 'failed') out.error(result.message);
        else out.item(result.message);
      }
      const failed = results.filter((r) => r.outcome === 'failed').length;
      if (failed > 0) throw new CommandFailure(`${failed} of ${results.length} proxies could not be checked or updated`);
    },
  };
  return command;
}
