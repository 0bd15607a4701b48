import { UsageError, type Command, type CommandContext } from '../../core/commands/command';
import { CommandFailure } from '../../core/commands/command';
import { formatRemaining } from './duration';
import { CHAT_BLOCKING, LOGIN_BLOCKING, type Punishment, type Scope } from './model';
import type { PunishmentsRuntime } from './runtime';
import { parseType, type Caller } from './service';

const USAGE = 'punish <ban|tempban|ipban|mute|tempmute|kick|warn|unban|unmute|history|list> …';
const SCOPE_FLAGS = '[--group <g>|-g <g>|--service <s>|-s <s>]';
const LIST_ROWS = 50;

const SUBCOMMANDS = [
  { name: 'ban', description: 'Ban a player (network-wide, or in one group or service)', usage: `punish ban <player> ${SCOPE_FLAGS} <reason>`, args: ['player', 'text'] },
  { name: 'tempban', description: 'Ban a player for a while (30m, 1d12h, 2w, 2mo)', usage: `punish tempban <player> <duration> ${SCOPE_FLAGS} <reason>`, args: ['player', 'text', 'text'] },
  { name: 'ipban', description: 'Ban a player and the address they play from', usage: 'punish ipban <player> <ip> <reason>', args: ['player', 'text', 'text'] },
  { name: 'mute', description: 'Mute a player', usage: `punish mute <player> ${SCOPE_FLAGS} <reason>`, args: ['player', 'text'] },
  { name: 'tempmute', description: 'Mute a player for a while', usage: `punish tempmute <player> <duration> ${SCOPE_FLAGS} <reason>`, args: ['player', 'text', 'text'] },
  { name: 'kick', description: 'Kick an online player off the network (recorded)', usage: 'punish kick <player> <reason>', args: ['player', 'text'] },
  { name: 'warn', description: 'Warn a player (recorded; shown in game by the proxy plugin)', usage: 'punish warn <player> <reason>', args: ['player', 'text'] },
  { name: 'unban', description: 'Lift the bans in force at that scope (network without a flag)', usage: `punish unban <player> ${SCOPE_FLAGS}`, args: ['player'] },
  { name: 'unmute', description: 'Lift the mutes in force at that scope (network without a flag)', usage: `punish unmute <player> ${SCOPE_FLAGS}`, args: ['player'] },
  { name: 'history', description: 'A player’s punishments, newest first', usage: 'punish history <player>', args: ['player'] },
  { name: 'list', description: `The punishments in force, newest first (${LIST_ROWS} rows)`, usage: 'punish list [type]', args: [['BAN', 'TEMPBAN', 'IPBAN', 'MUTE', 'TEMPMUTE']] },
] as const;

/** The staff member behind a command: the player in game (the bridge says who), else the console or the API token. */
function callerOf(ctx: CommandContext): Caller {
  if (ctx.player) return { id: ctx.player.uuid, name: ctx.player.name, actor: ctx.actor };
  if (ctx.actor === 'console') return { id: 'console', name: 'Console', actor: ctx.actor };
  return { id: ctx.actor, name: 'API', actor: ctx.actor };
}

interface Scoped {
  scope: Scope;
  scopeTarget: string | null;
  rest: string[];
}

/** Takes the scope flags out of the arguments; with both, `--service` wins (it is the narrower). */
function scopeFlags(args: string[], usage: string): Scoped {
  let group: string | undefined;
  let service: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const flag = arg.toLowerCase();
    if (flag === '--group' || flag === '-g' || flag === '--service' || flag === '-s') {
      const value = args[++i];
      if (value === undefined) throw new UsageError(usage, `${arg} needs a name after it`);
      if (flag === '--group' || flag === '-g') group = value;
      else service = value;
      continue;
    }
    rest.push(arg);
  }
  if (service !== undefined) return { scope: 'SERVICE', scopeTarget: service, rest };
  if (group !== undefined) return { scope: 'GROUP', scopeTarget: group, rest };
  return { scope: 'NETWORK', scopeTarget: null, rest };
}

const scopeText = (p: Pick<Punishment, 'scope' | 'scopeTarget'>) => (p.scope === 'NETWORK' ? 'network' : `${p.scope.toLowerCase()} ${p.scopeTarget}`);

function describe(p: Punishment, now: number): string {
  const end = p.expiresAt === null ? '' : p.expiresAt > now ? `, ${formatRemaining(p.expiresAt - now)} left` : ', ended';
  const state = p.revokedAt !== null ? `revoked by ${p.revokedBy}` : p.active && (p.expiresAt === null || p.expiresAt > now) ? 'in force' : p.expiresAt !== null ? 'expired' : 'recorded';
  return `#${p.id} ${p.type} ${p.targetName} (${scopeText(p)}${end}) by ${p.issuerName} ${new Date(p.issuedAt).toISOString()}: ${p.reason || 'no reason given'} [${state}]`;
}

/**
 * `punish`: the console's (and, through the proxy bridge, in-game staff's) way to punish.
 * The player is a name or a uuid, resolved as the issue route resolves it.
 */
export function punishCommand(runtime: PunishmentsRuntime): Command {
  const { service } = runtime;

  async function issue(ctx: CommandContext, sub: string, rest: string[]): Promise<void> {
    const usage = SUBCOMMANDS.find((s) => s.name === sub)!.usage;
    const type = parseType(sub);
    const [player, ...after] = rest;
    if (player === undefined) throw new UsageError(usage, 'name the player');
    let duration: string | undefined;
    let targetIp: string | undefined;
    let words = after;
    if (type === 'TEMPBAN' || type === 'TEMPMUTE') [duration, ...words] = after;
    if (type === 'IPBAN') [targetIp, ...words] = after;
    if ((type === 'TEMPBAN' || type === 'TEMPMUTE') && duration === undefined) throw new UsageError(usage, 'give the duration, like 30m, 1d12h or 2w');
    if (type === 'IPBAN' && targetIp === undefined) throw new UsageError(usage, 'give the address to ban');
    const scoped = type === 'KICK' || type === 'WARN' || type === 'IPBAN' ? { scope: 'NETWORK' as const, scopeTarget: null, rest: words } : scopeFlags(words, usage);
    const created = await service.issue(
      {
        type,
        targetName: player,
        reason: scoped.rest.join(' '),
        scope: scoped.scope,
        ...(scoped.scopeTarget !== null ? { scopeTarget: scoped.scopeTarget } : {}),
        ...(duration !== undefined ? { duration } : {}),
        ...(targetIp !== undefined ? { targetIp } : {}),
      },
      callerOf(ctx),
    );
    ctx.out.success(describe(created, service.time()));
  }

  async function lift(ctx: CommandContext, sub: 'unban' | 'unmute', rest: string[]): Promise<void> {
    const usage = SUBCOMMANDS.find((s) => s.name === sub)!.usage;
    const scoped = scopeFlags(rest, usage);
    const [player, ...extra] = scoped.rest;
    if (player === undefined || extra.length > 0) throw new UsageError(usage, player === undefined ? 'name the player' : `unexpected "${extra.join(' ')}"`);
    const target = await runtime.names.resolve(undefined, player);
    const kinds = sub === 'unban' ? LOGIN_BLOCKING : CHAT_BLOCKING;
    const lifted = service
      .activeOf(target.uuid)
      .filter((p) => kinds.has(p.type) && p.scope === scoped.scope && (p.scopeTarget ?? '').toLowerCase() === (scoped.scopeTarget ?? '').toLowerCase());
    const where = scopeText(scoped);
    if (lifted.length === 0) throw new CommandFailure(`${target.name} has no ${sub === 'unban' ? 'ban' : 'mute'} in force at ${where} scope`);
    for (const p of lifted) service.revoke(p.id, callerOf(ctx), `${sub} by command`);
    ctx.out.success(`${sub === 'unban' ? 'unbanned' : 'unmuted'} ${target.name} (${where}): lifted ${lifted.map((p) => `#${p.id} ${p.type}`).join(', ')}`);
  }

  async function history(ctx: CommandContext, rest: string[]): Promise<void> {
    if (rest.length !== 1) throw new UsageError('punish history <player>', 'name the player');
    const target = await runtime.names.resolve(undefined, rest[0]!);
    const { rows, total } = service.history(target.uuid, LIST_ROWS);
    ctx.out.header(`${total} punishment(s) of ${target.name}${total > rows.length ? ` (newest ${rows.length} shown)` : ''}`);
    const now = service.time();
    for (const p of rows) ctx.out.item(describe(p, now));
  }

  function list(ctx: CommandContext, rest: string[]): void {
    if (rest.length > 1) throw new UsageError('punish list [type]');
    const type = rest[0] === undefined ? undefined : parseType(rest[0]);
    const { rows, total } = service.list({ active: true, ...(type ? { type } : {}) }, LIST_ROWS, 0);
    ctx.out.header(`${total} punishment(s) in force${type ? ` of type ${type}` : ''}${total > rows.length ? ` (newest ${rows.length} shown)` : ''}`);
    const now = service.time();
    for (const p of rows) ctx.out.item(describe(p, now));
  }

  return {
    name: 'punish',
    description: 'Ban, mute, kick and warn players; lift bans and mutes; history and the list in force',
    usage: USAGE,
    permission: 'svc.command.punish',
    level: 'service',
    subcommands: SUBCOMMANDS,
    run(ctx) {
      const [sub, ...rest] = ctx.args;
      const name = sub?.toLowerCase();
      switch (name) {
        case 'ban':
        case 'tempban':
        case 'ipban':
        case 'mute':
        case 'tempmute':
        case 'kick':
        case 'warn':
          return issue(ctx, name, rest);
        case 'unban':
        case 'unmute':
          return lift(ctx, name, rest);
        case 'history':
          return history(ctx, rest);
        case 'list':
          return list(ctx, rest);
        default:
          throw new UsageError(USAGE, sub === undefined ? undefined : `unknown subcommand "${sub}"`);
      }
    },
  };
}
