import type { Kernel } from '../../../kernel';
import { howToLift } from '../../services/quarantine';
import { expectArgs } from '../args';
import { CommandFailure, type Command, type CommandOutput } from '../command';
import { dispatchSubcommands } from '../subcommands';

const USAGE = 'quarantine [list | lift <group|dedicated>]';

/**
 * `quarantine`: the groups (and dedicated services) the crash-loop breaker stopped, and lifting
 * one, as DELETE /api/groups/{name}/quarantine does it (admin, like that route).
 */
export function quarantineCommand(kernel: Kernel): Command {
  const { manager } = kernel;

  const list = (out: CommandOutput) => {
    const all = manager.quarantines();
    out.header(all.length === 0 ? 'nothing is quarantined' : `${all.length} quarantined`);
    for (const q of all) {
      const last = q.lastService ? `; last crash: ${q.lastService}${q.lastExitCode === null ? '' : ` exit ${q.lastExitCode}`}${q.diagnosis ? ` (${q.diagnosis})` : ''}` : '';
      out.item(`${q.kind} ${q.name}  since ${q.since}  ${q.reason}${last}`);
    }
    if (all.length > 0) out.info(`read the last crash's output with \`logs <service> --stdout\`, fix the cause, then ${howToLift({ name: '<name>', kind: 'group' })}`);
    const problem = manager.quarantineProblem();
    if (problem) out.error(problem);
  };

  const command: Command = {
    name: 'quarantine',
    description: 'Groups the crash-loop breaker stopped, and lifting a quarantine so they start again',
    usage: USAGE,
    permission: 'svc.command.quarantine',
    level: 'admin',
    subcommands: [
      { name: 'list', description: 'What is quarantined, since when and why', usage: 'quarantine list' },
      { name: 'lift', description: 'Lift a quarantine: the group starts again (refill, scaling, warm pool)', usage: 'quarantine lift <group|dedicated>', args: ['group'] },
    ],
    run: dispatchSubcommands(USAGE, {
      list({ out }, rest) {
        expectArgs(command, rest, 0);
        return list(out);
      },
      lift({ out, actor }, rest) {
        const [name] = expectArgs(command, rest, 1);
        const known = kernel.groups.get(name!) ? 'group' : kernel.dedicated.get(name!) ? 'dedicated service' : null;
        const held = manager.quarantineOf(name!);
        if (!known && !held) throw new CommandFailure(`"${name}" is neither a group nor a dedicated service; \`quarantine list\` shows what is quarantined`);
        if (!held) return out.info(`${known} ${name} is not quarantined`);
        manager.liftQuarantine(held.name, actor);
        const next = held.kind === 'group' ? 'the minInstances refill, scaling and the warm pool start it again' : `POST /api/dedicated/${held.name}/start starts it`;
        return out.success(`the quarantine of ${held.kind} ${held.name} (since ${held.since}: ${held.reason}) is lifted; ${next}`);
      },
    }, { whenNone: 'list' }),
  };
  return command;
}
