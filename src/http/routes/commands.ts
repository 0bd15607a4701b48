import { Type } from '@sinclair/typebox';
import { t } from '../t';
import type { Kernel } from '../../kernel';
import { OUTPUT_KINDS, type ArgHint, type Command, type OutputLine } from '../../core/commands/command';
import { PLAYER_NAME_PATTERN, UUID_PATTERN } from '../../core/players/uuid';
import { ApiError } from '../../errors';
import { holdsAdmin, type Principal } from '../../core/auth';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';
import { requireWellFormedText } from '../well-formed';

/**
 * Completion kinds by hint, upper-case as the Velocity bridge reads them. The bridge itself
 * completes PLAYER and GROUP (FREE_TEXT is its word for free input) and skips kinds it does not
 * know; CHOICE carries its words in `values`.
 */
const COMPLETION_TYPES = {
  player: 'PLAYER',
  group: 'GROUP',
  service: 'SERVICE',
  command: 'COMMAND',
  text: 'FREE_TEXT',
  number: 'NUMBER',
} as const satisfies Record<Exclude<ArgHint, readonly string[]>, string>;
const CHOICE = 'CHOICE';

const CompletionSchema = t.Object({
  position: t.Integer({ minimum: 0, description: 'index of the argument, counted from 0 after the command name (or after the subcommand path)' }),
  type: t.Union([...Object.values(COMPLETION_TYPES), CHOICE].map((k) => t.Literal(k))),
  values: t.Optional(t.Array(t.String(), { description: 'svc: the words a CHOICE accepts' })),
});
const CommandSchema = t.Object({
  name: t.String(),
  aliases: t.Array(t.String(), { description: 'svc: other names the command answers to' }),
  description: t.String(),
  usage: t.String(),
  permission: t.String({ description: 'permission node, e.g. svc.command.start' }),
  level: t.Union([t.Literal('service'), t.Literal('admin')], { description: 'svc: the API level a caller needs to run it' }),
  completions: t.Array(CompletionSchema, { description: 'svc: what each argument after the command name accepts' }),
  subcommands: t.Array(
    t.Object({
      path: t.String({ description: 'the words after the command name, space-separated, e.g. "whitelist"' }),
      description: t.String(),
      usage: t.String(),
      completions: t.Array(CompletionSchema),
    }),
  ),
});
const LinesSchema = t.Array(t.Object({ type: t.Union(OUTPUT_KINDS.map((k) => t.Literal(k))), text: t.String() }));
const NameParams = t.Object({ name: t.String({ minLength: 1, maxLength: 64 }) });
const Word = Type.String({ maxLength: 4096, pattern: '^[^\\r\\n]*$' });
const ExecuteBody = Type.Object({
  args: Type.Optional(Type.Array(Word, { maxItems: 256, description: 'the words after the command name' })),
  caller: Type.Optional(
    Type.Object(
      { uuid: Type.String({ pattern: UUID_PATTERN }), name: Type.String({ pattern: PLAYER_NAME_PATTERN }) },
      { description: 'the player who typed the command in game (the Velocity bridge sends it); accepted only from a proxy’s own credential, the shared service token or an admin token' },
    ),
  ),
});

const completionsOf = (hints: readonly ArgHint[] | undefined) =>
  (hints ?? []).map((hint, position) => (typeof hint === 'string' ? { position, type: COMPLETION_TYPES[hint] } : { position, type: CHOICE, values: [...hint] }));

function commandView(c: Command) {
  return {
    name: c.name,
    aliases: [...(c.aliases ?? [])],
    description: c.description,
    usage: c.usage,
    permission: c.permission,
    level: c.level,
    completions: completionsOf(c.args),
    subcommands: (c.subcommands ?? []).map((s) => ({ path: s.name, description: s.description, usage: s.usage, completions: completionsOf(s.args) })),
  };
}

const lineView = (line: OutputLine) => ({ type: line.kind, text: line.text });

/**
 * Who may name a `caller` (speak for a player): the proxy's own credential, the spec's shared
 * service token, and the operator. Never a backend's credential nor a scoped JWT.
 */
export function maySpeakForPlayers(principal: Principal | null): boolean {
  if (!principal) return false;
  if (principal.kind === 'tenant') return principal.tenant?.role === 'proxy';
  return principal.kind === 'master' || principal.kind === 'service' || holdsAdmin(principal);
}

/**
 * Whether this caller may run a command of this level. Admin commands stand for admin routes:
 * the operator runs them; a proxy runs them only for a `caller` who holds the command's node
 * (the in-game `/perms` of a player allowed to use it), checked here, not trusted from the proxy.
 */
export function mayRun(principal: Principal | null, command: Pick<Command, 'level' | 'permission'>, callerHolds: (node: string) => boolean = () => false): boolean {
  if (command.level === 'service' || holdsAdmin(principal)) return true;
  return principal?.kind === 'tenant' && principal.tenant?.role === 'proxy' && callerHolds(command.permission);
}

/** The console commands over HTTP: list, run one, complete a line. */
export function commandRoutes(kernel: Kernel): AnyRoute[] {
  const { commands } = kernel;
  const remote = () => commands.all().filter((c) => c.permission !== '');
  return [
    defineRoute({
      method: 'GET',
      path: '/api/commands',
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'any' },
      tag: 'commands',
      summary: 'Every console command that can run remotely: metadata, subcommands, completion hints',
      response: { 200: t.Object({ commands: t.Array(CommandSchema), total: t.Integer() }) },
      handler: () => {
        const list = remote().map(commandView);
        return { commands: list, total: list.length };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/commands/:name/execute',
      auth: 'service',
      // Commands act for a `caller` and reach every module: sessions use the console socket,
      // which needs svc.dashboard.admin.
      machineOnly: true,
      tenants: { proxy: 'any' },
      tag: 'commands',
      summary: 'Run a console command; answers its typed output lines (422 COMMAND_EXECUTION_FAILED with the lines when it fails)',
      params: NameParams,
      body: ExecuteBody,
      response: {
        200: t.Object({ success: t.Literal(true), lines: LinesSchema }),
        400: ErrorBodySchema,
        403: ErrorBodySchema,
        404: ErrorBodySchema,
        422: t.Object({ success: t.Literal(false), message: t.String(), error: t.String(), lines: LinesSchema }),
      },
      // `caller` makes a command act for that player (`dashboard login` mints *their* code), so
      // only the proxy's credential may name one: backends hold the derived token and must not
      // speak for players, and dashboard sessions cannot reach this route at all.
      handler: async ({ params, body, principal, actor, ip, set }) => {
        if (body.caller && !maySpeakForPlayers(principal)) throw new ApiError('FORBIDDEN', '"caller" is accepted only from a proxy’s own credential, the shared service token or an admin token; leave it out');
        const args = body.args ?? [];
        requireWellFormedText(args, 'args');
        const command = commands.find(params.name);
        if (!command) throw new ApiError('COMMAND_NOT_FOUND', `no command "${params.name}"; GET /api/commands lists them`);
        if (command.permission === '') throw new ApiError('COMMAND_NOT_REMOTE', `"${command.name}" works only on an interactive console (the controller terminal or svc cli)`);
        const caller = body.caller;
        const callerHolds = (node: string) => caller !== undefined && kernel.modules.lookup('perms')?.has(caller.uuid, node) === true;
        if (!mayRun(principal, command, callerHolds)) {
          throw new ApiError('FORBIDDEN', `"${command.name}" needs an admin token${principal?.kind === 'tenant' ? `, or a "caller" who holds ${command.permission}` : ''}`);
        }
        const lines: { type: OutputLine['kind']; text: string }[] = [];
        const player = body.caller ? { uuid: body.caller.uuid, name: body.caller.name } : undefined;
        const result = await commands.run(command, { args, actor, caller: `http:${actor}@${ip}`, player, admin: holdsAdmin(principal) }, (line) => lines.push(lineView(line)));
        if (result.success) return { success: true as const, lines };
        set.status = 422;
        return { success: false as const, message: result.message ?? `${command.name} failed`, error: 'COMMAND_EXECUTION_FAILED', lines };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/console/complete',
      auth: 'admin',
      machineOnly: true,
      tag: 'commands',
      summary: 'Completion candidates for the word under the cursor of a console line',
      body: Type.Object({ buffer: Type.String({ maxLength: 4096 }), cursor: Type.Integer({ minimum: 0, maximum: 4096 }) }),
      response: { 200: t.Object({ candidates: t.Array(t.String()) }), 400: ErrorBodySchema },
      handler: ({ body }) => {
        requireWellFormedText(body);
        return { candidates: commands.complete(body.buffer, Math.min(body.cursor, body.buffer.length)) };
      },
    }),
  ];
}
