import { UsageError, type CommandContext, type Subcommand } from './command';

/** One subcommand's work: the arguments after its name. */
export type SubcommandHandler = (ctx: CommandContext, args: string[]) => void | Promise<void>;

/**
 * The run() of a command made of subcommands: the first argument names one, in any case, and
 * the rest go to its handler. No argument, or a name without a handler, is a usage error with
 * the command's usage (naming the unknown subcommand). Only the handlers' own keys count, so
 * `constructor` or `__proto__` is an unknown subcommand like any other.
 */
export function dispatchSubcommands(usage: string, handlers: Readonly<Record<string, SubcommandHandler>>): (ctx: CommandContext) => void | Promise<void> {
  return (ctx) => {
    const [sub, ...rest] = ctx.args;
    const key = sub?.toLowerCase();
    const handler = key !== undefined && Object.hasOwn(handlers, key) ? handlers[key] : undefined;
    if (!handler) throw new UsageError(usage, sub === undefined ? undefined : `unknown subcommand "${sub}"`);
    return handler(ctx, rest);
  };
}

/** The usage line of the subcommand `name` in `subcommands`; a name not listed is the code's mistake and throws. */
export function subcommandUsage(subcommands: readonly Subcommand[], name: string): string {
  const found = subcommands.find((s) => s.name === name);
  if (!found) throw new Error(`no subcommand "${name}" is listed`);
  return found.usage;
}
