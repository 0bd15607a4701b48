import { UsageError, type CommandContext, type Subcommand } from './command';

/** One subcommand's work: the arguments after its name. */
export type SubcommandHandler = (ctx: CommandContext, args: string[]) => void | Promise<void>;

/** How {@link dispatchSubcommands} treats a command line without a subcommand. */
export interface DispatchOptions {
  /** The subcommand run (its handler given no arguments) when none is named; without it, none is a usage error. */
  whenNone?: string;
}

/**
 * The run() of a command made of subcommands: the first argument names one, in any case, and
 * the rest go to its handler. No argument runs the `whenNone` subcommand with no arguments when
 * one is given, else it is a usage error with the command's usage; a name without a handler is
 * a usage error with the usage that names the unknown subcommand. Only the handlers' own keys
 * count, so `constructor` or `__proto__` is an unknown subcommand like any other. A `whenNone`
 * without a handler is the code's mistake and throws here, not when the command runs.
 */
export function dispatchSubcommands(usage: string, handlers: Readonly<Record<string, SubcommandHandler>>, options: DispatchOptions = {}): (ctx: CommandContext) => void | Promise<void> {
  const { whenNone } = options;
  if (whenNone !== undefined && !Object.hasOwn(handlers, whenNone)) throw new Error(`the default subcommand "${whenNone}" has no handler`);
  return (ctx) => {
    const [sub, ...rest] = ctx.args;
    const key = sub === undefined ? whenNone : sub.toLowerCase();
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
