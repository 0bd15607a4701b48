import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import type { Kernel } from '../../kernel';
import { OUTPUT_KINDS, type ArgHint, type Command } from '../../core/commands/command';
import { ApiError } from '../../errors';
import type { Principal } from '../auth';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';
import { requireWellFormedText } from '../well-formed';

const HintSchema = t.Object({
  kind: t.Union(['service', 'group', 'player', 'command', 'text', 'number', 'choice'].map((k) => t.Literal(k))),
  values: t.Optional(t.Array(t.String(), { description: 'the words a `choice` accepts' })),
});
const CommandSchema = t.Object({
  name: t.String(),
  aliases: t.Array(t.String()),
  description: t.String(),
  usage: t.String(),
  permission: t.String({ description: 'permission node, e.g. svc.command.start' }),
  level: t.Union([t.Literal('service'), t.Literal('admin')], { description: 'the API level a caller needs to run it' }),
  completions: t.Array(HintSchema, { description: 'what each argument position accepts' }),
  subcommands: t.Array(t.Object({ name: t.String(), description: t.String(), usage: t.String(), completions: t.Array(HintSchema) })),
});
const OutputSchema = t.Array(t.Object({ kind: t.Union(OUTPUT_KINDS.map((k) => t.Literal(k))), text: t.String() }));
const NameParams = t.Object({ name: t.String({ minLength: 1, maxLength: 64 }) });
const Word = Type.String({ maxLength: 4096, pattern: '^[^\\r\\n]*$' });

const hintView = (hint: ArgHint) => (typeof hint === 'string' ? { kind: hint } : { kind: 'choice', values: [...hint] });

function commandView(c: Command) {
  return {
    name: c.name,
    aliases: [...(c.aliases ?? [])],
    description: c.description,
    usage: c.usage,
    permission: c.permission,
    level: c.level,
    completions: (c.args ?? []).map(hintView),
    subcommands: (c.subcommands ?? []).map((s) => ({ name: s.name, description: s.description, usage: s.usage, completions: (s.args ?? []).map(hintView) })),
  };
}

/** Whether this caller may run a command of this level (admin commands stand for admin routes). */
export const mayRun = (principal: Pick<Principal, 'scopes'> | null, command: Pick<Command, 'level'>): boolean =>
  command.level === 'service' || Boolean(principal?.scopes.has('admin'));

/** The console commands over HTTP: list, run one, complete a line. */
export function commandRoutes(kernel: Kernel): AnyRoute[] {
  const { commands } = kernel;
  const remote = () => commands.all().filter((c) => c.permission !== '');
  return [
    defineRoute({
      method: 'GET',
      path: '/api/commands',
      auth: 'service',
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
      tag: 'commands',
      summary: 'Run a console command; answers its typed output lines (422 COMMAND_EXECUTION_FAILED with the lines when it fails)',
      params: NameParams,
      body: Type.Object({ args: Type.Optional(Type.Array(Word, { maxItems: 256, description: 'the words after the command name' })) }),
      response: {
        200: t.Object({ success: t.Literal(true), command: t.String(), output: OutputSchema }),
        422: t.Object({ success: t.Literal(false), message: t.String(), error: t.String(), command: t.String(), output: OutputSchema }),
      },
      handler: async ({ params, body, principal, actor, ip, set }) => {
        const args = body.args ?? [];
        requireWellFormedText(args);
        const command = commands.find(params.name);
        if (!command) throw new ApiError('COMMAND_NOT_FOUND', `no command "${params.name}"; GET /api/commands lists them`);
        if (command.permission === '') throw new ApiError('COMMAND_NOT_REMOTE', `"${command.name}" works only on an interactive console (the controller terminal or svc cli)`);
        if (!mayRun(principal, command)) throw new ApiError('FORBIDDEN', `"${command.name}" needs an admin token`);
        const output: { kind: (typeof OUTPUT_KINDS)[number]; text: string }[] = [];
        const result = await commands.run(command, { args, actor, caller: `http:${actor}@${ip}` }, (line) => output.push(line));
        if (result.success) return { success: true as const, command: command.name, output };
        set.status = 422;
        return { success: false as const, message: result.message ?? `${command.name} failed`, error: 'COMMAND_EXECUTION_FAILED', command: command.name, output };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/console/complete',
      auth: 'admin',
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
