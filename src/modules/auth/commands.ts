import { ApiError } from '../../errors';
import { CommandFailure, UsageError, type Command, type CommandContext } from '../../core/commands/command';
import { normalizeUuid } from '../../core/players/uuid';
import type { AuthRuntime } from './runtime';
import { canonical } from './routes/common';
import { revokeAndAnnounce } from './routes/sessions';

const USAGE = 'dashboard <login [link] | sessions [player] | logout-all [player]>';

/**
 * `dashboard`: in game (the proxy bridge runs it for the player who typed it), a login code or
 * magic link for the dashboard, the player's sessions, and logging them all out. On the
 * controller console, `sessions` and `logout-all` take the player whose sessions to show or end.
 */
export function dashboardCommand(runtime: AuthRuntime): Command {
  return {
    name: 'dashboard',
    description: 'Dashboard login from the game: a code or a magic link; your sessions; log out everywhere',
    usage: USAGE,
    permission: 'svc.command.dashboard',
    level: 'service',
    subcommands: [
      { name: 'login', description: 'A one-time login code (or `login link`: a magic link) for the dashboard', usage: 'dashboard login [link]', args: [['link']] },
      { name: 'sessions', description: 'Active dashboard sessions (yours in game; a player’s on the console)', usage: 'dashboard sessions [player]', args: ['player'] },
      { name: 'logout-all', description: 'Log out every dashboard session (yours in game; a player’s on the console)', usage: 'dashboard logout-all [player]', args: ['player'] },
    ],
    run(ctx) {
      const [sub, ...rest] = ctx.args;
      switch (sub?.toLowerCase()) {
        case 'login':
          return login(runtime, ctx, rest);
        case 'sessions':
          return sessions(runtime, ctx, rest);
        case 'logout-all':
          return logoutAll(runtime, ctx, rest);
        default:
          throw new UsageError(USAGE, sub === undefined ? undefined : `unknown subcommand "${sub}"`);
      }
    },
  };
}

function inGame(ctx: CommandContext, what: string): { uuid: string; name: string } {
  if (ctx.player) return { uuid: canonical(ctx.player.uuid), name: ctx.player.name };
  throw new CommandFailure(`${what} works in game only: type /svc dashboard ${what} on the network`);
}

function login(runtime: AuthRuntime, ctx: CommandContext, rest: string[]): void {
  const player = inGame(ctx, rest[0]?.toLowerCase() === 'link' ? 'login link' : 'login');
  if (rest.length > 1 || (rest.length === 1 && rest[0]!.toLowerCase() !== 'link')) throw new UsageError('dashboard login [link]');
  runtime.requirePerms();
  runtime.requireOnline(player.uuid);
  if (rest.length === 1) {
    const issued = runtime.challenges.issueMagicLink(player);
    ctx.out.success(`Your dashboard login link (valid ${issued.ttlSeconds} s, once):`);
    ctx.out.text(`${runtime.publicUrl}/login?link=${encodeURIComponent(issued.secret)}`);
    return;
  }
  const issued = runtime.challenges.issueCode(player);
  ctx.out.success(`Your dashboard login code: ${issued.secret}`);
  ctx.out.info(`Enter it at ${runtime.publicUrl}/login within ${issued.ttlSeconds} s; it works once.`);
}

/** In game: the player themself. On the console: the named player (online, or with sessions). */
function subjectOf(runtime: AuthRuntime, ctx: CommandContext, rest: string[], usage: string): { uuid: string; name: string } {
  if (ctx.player) {
    if (rest.length > 0) throw new UsageError(usage, 'in game this shows only your own sessions');
    return inGame(ctx, 'sessions');
  }
  if (rest.length !== 1) throw new UsageError(usage, 'name the player');
  const wanted = rest[0]!;
  const asUuid = normalizeUuid(wanted);
  const known = runtime.sessions.allActive().find((s) => (asUuid ? s.uuid === asUuid : s.name.toLowerCase() === wanted.toLowerCase()));
  if (known) return { uuid: known.uuid, name: known.name };
  const online = asUuid ? undefined : runtime.kernel.modules.lookup('players')?.onlineByName(wanted);
  if (online) return { uuid: online.uuid, name: online.name };
  if (asUuid) return { uuid: asUuid, name: asUuid };
  throw new ApiError('VALIDATION_FAILED', `no dashboard session and no online player named "${wanted}"`);
}

function sessions(runtime: AuthRuntime, ctx: CommandContext, rest: string[]): void {
  const subject = subjectOf(runtime, ctx, rest, 'dashboard sessions [player]');
  const list = runtime.sessions.activeOf(subject.uuid);
  ctx.out.header(`${list.length} active dashboard session(s) of ${subject.name}`);
  for (const s of list) {
    ctx.out.item(`${s.id}  ${s.row.login_method}  since ${new Date(s.row.created_at).toISOString()}  last used ${new Date(s.lastUsedAt).toISOString()}  from ${s.row.ip ?? 'unknown'}`);
  }
}

function logoutAll(runtime: AuthRuntime, ctx: CommandContext, rest: string[]): void {
  const subject = subjectOf(runtime, ctx, rest, 'dashboard logout-all [player]');
  const count = revokeAndAnnounce(runtime, runtime.kernel.bus, runtime.sessions.activeOf(subject.uuid), 'all', ctx.actor);
  ctx.out.success(count === 0 ? `${subject.name} has no active dashboard session` : `logged out ${count} dashboard session(s) of ${subject.name}`);
}
