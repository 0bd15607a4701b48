import { ApiError } from '../../errors';
import type { Logger } from '../../log';
import type { ArgHint, Command, CommandContext, CommandOutput, OutputKind, OutputLine } from './command';
import { CommandFailure } from './command';
import { splitForCompletion, tokenize } from './tokenize';
import { didYouMean } from './suggest';

/** Live names completion draws from. */
export interface CompletionSource {
  services(): string[];
  groups(): string[];
  players(): string[];
}

export interface CommandResult {
  success: boolean;
  /** Why it failed, for the operator; absent on success. */
  message?: string;
}

/** Most candidates one completion returns; a longer list helps nobody at a prompt. */
export const MAX_CANDIDATES = 100;

const NAME = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * Every console command by name and alias. Core registers its commands at start, modules
 * theirs through the module interface; a name or alias may belong to one command only.
 */
export class CommandRegistry {
  private readonly commands = new Map<string, Command>();
  private readonly byAlias = new Map<string, Command>();

  constructor(
    private readonly source: CompletionSource,
    private readonly log?: Logger,
  ) {}

  register(command: Command): void {
    const replaced = command.replacesCore ? this.commands.get(command.name) : undefined;
    if (command.replacesCore && !replaced) throw new Error(`command "${command.name}" replaces a core command that does not exist`);
    if (replaced) {
      this.commands.delete(replaced.name);
      for (const alias of replaced.aliases ?? []) this.byAlias.delete(alias);
    }
    for (const word of [command.name, ...(command.aliases ?? [])]) {
      if (!NAME.test(word)) throw new Error(`command name "${word}" must match ${NAME}`);
      if (this.commands.has(word) || this.byAlias.has(word)) throw new Error(`command "${word}" is registered twice`);
    }
    this.commands.set(command.name, command);
    for (const alias of command.aliases ?? []) this.byAlias.set(alias, command);
  }

  /** A command by its name or one of its aliases, case-insensitive. */
  find(word: string): Command | undefined {
    const key = word.toLowerCase();
    return this.commands.get(key) ?? this.byAlias.get(key);
  }

  /**
   * What a console line asks for: its command and the words after it, nothing for a blank
   * line, or why it names no command. Every console reads lines through here.
   */
  resolveLine(input: string): { command: Command; args: string[] } | { empty: true } | { error: string } {
    const [name, ...args] = tokenize(input);
    if (name === undefined) return { empty: true };
    const command = this.find(name);
    if (command) return { command, args };
    const words = [...this.commands.values()].flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    const hint = didYouMean(name, words);
    return { error: `unknown command "${name}"${hint}${hint ? ' (' : '; '}\`help\` lists the commands${hint ? ')' : ''}` };
  }

  /** Every command, sorted by name. */
  all(): Command[] {
    return [...this.commands.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Runs a command, handing each line to `emit` as it is printed. Never throws: a failure
   * becomes a last `error` line and `success: false`. Lines printed after the command
   * returned are dropped, so a caller's stream is closed exactly once.
   */
  async run(command: Command, ctx: Omit<CommandContext, 'out'>, emit: (line: OutputLine) => void): Promise<CommandResult> {
    let open = true;
    const line = (kind: OutputKind) => (text: string) => {
      if (open) emit({ kind, text });
    };
    const out: CommandOutput = { header: line('header'), info: line('info'), success: line('success'), error: line('error'), item: line('item'), text: line('text') };
    try {
      await command.run({ ...ctx, out });
      return { success: true };
    } catch (error) {
      const message = describeFailure(error);
      if (!(error instanceof CommandFailure) && !(error instanceof ApiError)) {
        this.log?.error({ err: error, command: command.name, actor: ctx.actor }, 'command failed unexpectedly');
      }
      out.error(message);
      return { success: false, message };
    } finally {
      open = false;
    }
  }

  /**
   * Candidates for the word under the cursor: command names first, then subcommands, then
   * what the argument's hint names. `visible` hides commands the caller may not run.
   */
  complete(buffer: string, cursor: number, visible: (command: Command) => boolean = () => true): string[] {
    const { done, partial } = splitForCompletion(buffer, cursor);
    const prefix = partial.toLowerCase();
    const pick = (words: Iterable<string>) => [...new Set(words)].filter((w) => w.toLowerCase().startsWith(prefix)).sort().slice(0, MAX_CANDIDATES);
    if (done.length === 0) {
      return pick(this.all().filter(visible).flatMap((c) => [c.name, ...(c.aliases ?? [])]));
    }
    const command = this.find(done[0]!);
    if (!command || !visible(command)) return [];
    let hints = command.args ?? [];
    let position = done.length - 1;
    if (command.subcommands?.length) {
      if (done.length === 1) return pick(command.subcommands.map((s) => s.name));
      const sub = command.subcommands.find((s) => s.name === done[1]!.toLowerCase());
      if (!sub) return [];
      hints = sub.args ?? [];
      position = done.length - 2;
    }
    const hint = hints[position];
    return hint === undefined ? [] : pick(this.resolve(hint, visible));
  }

  private resolve(hint: ArgHint, visible: (command: Command) => boolean): string[] {
    if (typeof hint !== 'string') return [...hint];
    switch (hint) {
      case 'service':
        return this.source.services();
      case 'group':
        return this.source.groups();
      case 'player':
        return this.source.players();
      case 'command':
        return this.all().filter(visible).map((c) => c.name);
      default:
        return [];
    }
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof CommandFailure || error instanceof ApiError) return error.message;
  return 'the command failed unexpectedly; the controller log has the details';
}
