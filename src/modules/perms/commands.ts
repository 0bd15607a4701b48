import { expectArgs } from '../../core/commands/args';
import type { Command, CommandContext, CommandOutput } from '../../core/commands/command';
import { dispatchSubcommands } from '../../core/commands/subcommands';
import { AUDIT_LIMIT, auditPage } from './audit';
import type { Author } from './author';
import { GROUP_ACTIONS, GROUP_USAGE, groupAction } from './commands/group-actions';
import { wholeNumber } from './commands/options';
import { TRACK_ACTIONS, TRACK_USAGE, trackAction } from './commands/track-actions';
import { USER_ACTIONS, USER_USAGE, userAction } from './commands/user-actions';
import type { PermsRuntime } from './runtime';

export { splitOptions, expiryOf, findPlayer } from './commands/options';

const USAGE = 'perms <group | user | track | audit> …';
const AUDIT_USAGE = `perms audit [limit ${AUDIT_LIMIT.min}-${AUDIT_LIMIT.max}]`;

/** The newest entries of the module audit; a limit out of range is clamped, as the API's is. */
function showAudit(runtime: PermsRuntime, words: string[], out: CommandOutput): void {
  const [word] = expectArgs({ usage: AUDIT_USAGE }, words, 0, 1);
  const asked = word === undefined ? AUDIT_LIMIT.default : wholeNumber(AUDIT_USAGE, word);
  const limit = Math.min(AUDIT_LIMIT.max, Math.max(AUDIT_LIMIT.min, asked));
  const { entries, total } = auditPage(runtime.store, {}, limit, 0);
  out.header(`${entries.length} of ${total} audit entries, newest first`);
  for (const e of entries) out.item(`${e.timestamp}  ${e.actor}  ${e.action} ${e.target}${e.details ? `  ${e.details}` : ''}`);
}

/**
 * Callers that are the operator when the context does not say (`admin` absent): the
 * controller's own terminal (`console`) and the console stream (`console-stream:<id>`), which
 * only an admin opens. Any other caller without `admin: true` is not an admin (fail closed).
 */
const OPERATOR_CONSOLES = ['console', 'console-stream'] as const;

/**
 * `perms`: groups, players, tracks and the audit of the permissions module. Every change goes
 * through the module's services with the caller as actor, so the checks, the events and the
 * audit are exactly those of /api/permissions; a service's ApiError reaches the console as is.
 * That includes the refusal of a grant of admin (escalation.ts) to a caller without admin: a
 * proxy running it for an in-game player is not the operator.
 * Unlike the reference, grants and memberships take `server=`, `world=` and `expires=`.
 */
export function permsCommand(runtime: PermsRuntime): Command {
  const authorOf = ({ actor, caller, admin }: CommandContext): Author => ({ actor, admin: admin ?? OPERATOR_CONSOLES.some((prefix) => caller === prefix || caller.startsWith(`${prefix}:`)) });
  const dispatch = dispatchSubcommands(USAGE, {
    group: (ctx, rest) => groupAction(runtime, rest, ctx.out, authorOf(ctx)),
    user: (ctx, rest) => userAction(runtime, rest, ctx.out, authorOf(ctx)),
    track: (ctx, rest) => trackAction(runtime, rest, ctx.out, authorOf(ctx)),
    audit: ({ out }, rest) => showAudit(runtime, rest, out),
  });
  const command: Command = {
    name: 'perms',
    description: 'Permission groups, players’ groups and meta, tracks and the audit (permissions module)',
    usage: USAGE,
    permission: 'svc.command.perms',
    level: 'admin',
    subcommands: [
      { name: 'group', description: 'List, show, create, delete and edit permission groups', usage: GROUP_USAGE, args: [GROUP_ACTIONS, 'text', 'text', 'text'] },
      { name: 'user', description: 'A player’s groups, permissions, meta and track steps', usage: USER_USAGE, args: [USER_ACTIONS, 'player', 'text', 'text'] },
      { name: 'track', description: 'Ladders of groups for promote and demote', usage: TRACK_USAGE, args: [TRACK_ACTIONS, 'text', 'text'] },
      { name: 'audit', description: 'The newest permission changes, who made them and when', usage: AUDIT_USAGE, args: ['number'] },
    ],
    run(ctx) {
      // No subcommand is an overview of them all, which is no subcommand of its own (`perms help` stays unknown).
      if (ctx.args.length === 0) {
        ctx.out.header(command.description);
        for (const s of command.subcommands!) ctx.out.item(s.usage);
        return;
      }
      return dispatch(ctx);
    },
  };
  return command;
}
