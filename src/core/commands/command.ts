import type { Actor } from '../../events/catalogue';

/** The kinds of line a command prints; every console renders them its own way. */
export const OUTPUT_KINDS = ['header', 'info', 'success', 'error', 'item', 'text'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

export interface OutputLine {
  kind: OutputKind;
  text: string;
}

/** Where a command prints. Lines reach the caller in the order they are emitted. */
export interface CommandOutput {
  header(text: string): void;
  info(text: string): void;
  success(text: string): void;
  error(text: string): void;
  item(text: string): void;
  text(text: string): void;
}

/**
 * What an argument position accepts, for completion: a kind resolved against the live network
 * (`service`, `group`, `player`, `command`), free input (`text`, `number`), or fixed words.
 */
export type ArgHint = 'service' | 'group' | 'player' | 'command' | 'text' | 'number' | readonly string[];

/** The auth level a remote caller needs to run a command; it mirrors the REST route it stands for. */
export type CommandLevel = 'service' | 'admin';

export interface CommandContext {
  args: string[];
  out: CommandOutput;
  actor: Actor;
  /**
   * Who is asking, stable across calls of one console: the local console, one multiplex
   * session, or one HTTP caller. Confirmations (`shutdown confirm`) are kept per caller.
   */
  caller: string;
  /**
   * The player who typed the command in game, as the proxy bridge reports it. Only the proxy's
   * credential (the master token) may say so; absent everywhere else.
   */
  player?: { uuid: string; name: string };
  /**
   * Whether the caller holds admin (`holdsAdmin`: the master token, an admin JWT, an admin
   * dashboard session), as POST /api/commands/:name/execute knows it from its credential.
   * Absent on the interactive consoles (the controller's terminal, and the console stream,
   * which only an admin opens). A command that hands out what only the operator may (the perms
   * module's grants of admin-equivalent nodes) asks this, never the command's level.
   */
  admin?: boolean;
}

export interface Subcommand {
  name: string;
  description: string;
  usage: string;
  /** Hints for the arguments after the subcommand name. */
  args?: readonly ArgHint[];
}

/**
 * A console command. The same object serves the local console, `/api/commands` and the
 * multiplex socket. A command fails by throwing (a CommandFailure, an ApiError, or a usage
 * error); lines it printed before that still reach the caller.
 */
export interface Command {
  name: string;
  aliases?: readonly string[];
  description: string;
  usage: string;
  /** `svc.command.<name>`; empty means the command only makes sense on a local console. */
  permission: string;
  level: CommandLevel;
  subcommands?: readonly Subcommand[];
  /** Hints by argument position (after the command name, or after a subcommand's name). */
  args?: readonly ArgHint[];
  /**
   * A module's command that takes over the core command of the same name, which is its
   * fallback while the module is not installed (the players module's `players`).
   */
  replacesCore?: true;
  run(ctx: CommandContext): void | Promise<void>;
}

/** A command that could not do what was asked; the message is for the operator. */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/** Thrown when the arguments do not fit the command; rendered with the usage line. */
export class UsageError extends CommandFailure {
  constructor(usage: string, detail?: string) {
    super(detail ? `${detail}; usage: ${usage}` : `usage: ${usage}`);
    this.name = 'UsageError';
  }
}
