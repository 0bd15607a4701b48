import { join } from 'node:path';
import type { Kernel } from '../../../kernel';
import { ApiError } from '../../../errors';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { describeSchema, showValue } from '../../../describe-schema';
import { bodyValues, GROUP_FIELDS, GroupBodySchema, groupDefaults, templateStack, type GroupBody, type GroupField } from '../../groups/model';
import { groupChanges } from '../../groups/changes';
import { SOFTWARE_NAMES } from '../../software/kinds';
import { changedHostFields, requireAdminForHostFields } from '../../tenancy/host-fields';
import type { Actor } from '../../../events/catalogue';
import { UsageError, type Command } from '../command';
import { didYouMean } from '../suggest';

const CREATE_USAGE = 'group create <name> <software> <version> [--type DYNAMIC|STATIC|LOBBY] [--memory 1G] [--min N] [--max N] [--<field> <value>]…';

/** Short flags for the fields a new group most often sets. */
const FLAG_ALIASES: Record<string, GroupField> = { min: 'minInstances', max: 'maxInstances', players: 'maxPlayers', java: 'javaPath', jar: 'jarName', command: 'startCommand' };
/** List fields given as one word of whitespace-separated parts (a command line); the others take commas. */
const SPACED_LISTS: ReadonlySet<GroupField> = new Set(['startCommand', 'jvmArgs']);

/**
 * `group create`: a group from the console, with what POST /api/groups checks (the body schema,
 * the cross-field rules, a name no group or dedicated service has) and the same GROUP_CREATED.
 * The console is the operator's, so the fields that choose what runs on the host are allowed
 * here; over POST /api/commands the command needs an admin token like them.
 */
export function groupCommand(kernel: Kernel): Command {
  const command: Command = {
    name: 'group',
    description: 'Create a group, checked as POST /api/groups checks it',
    usage: CREATE_USAGE,
    permission: 'svc.command.group',
    level: 'admin',
    subcommands: [{ name: 'create', description: 'A new group: name, software, Minecraft version; every other field has a default', usage: CREATE_USAGE, args: ['text', SOFTWARE_NAMES, 'text'] }],
    run({ args, out, actor, admin }) {
      const [sub, ...rest] = args;
      if (sub === undefined) throw new UsageError(CREATE_USAGE, 'missing arguments');
      if (sub.toLowerCase() !== 'create') throw new UsageError(CREATE_USAGE, `no subcommand "${sub}"${didYouMean(sub, ['create'])}`);
      const body = parseCreate(rest);
      const problem = firstProblem(body);
      if (problem) throw new UsageError(CREATE_USAGE, problem);
      const group = body as GroupBody;
      requireAdminForHostFields(admin ?? true, changedHostFields(groupDefaults(), bodyValues(group)), `group ${group.name}`);
      const created = createGroup(kernel, group, actor);
      out.success(`group ${created.name} created: ${created.software} ${created.version}, ${created.type}, ${created.memory}, ${created.minInstances}–${created.maxInstances} instance(s)`);
      out.item(`file: ${join(kernel.paths.config, 'groups', `${created.name}.toml`)}`);
      out.item(`template: ${templateStack(created)
        .map((t) => `templates/${t}/`)
        .join(' + ')} (plugins, configs, worlds: copied into every instance)`);
      out.info(created.minInstances > 0 ? `${created.minInstances} instance(s) start on their own within a scaling tick; \`start ${created.name}\` starts one now` : `\`start ${created.name}\` starts an instance`);
    },
  };
  return command;
}

/** The store's checks across fields name API fields (`body "minInstances"`): on the console they are flags. */
function createGroup(kernel: Kernel, group: GroupBody, actor: Actor) {
  try {
    return groupChanges(kernel).create(group, actor);
  } catch (error) {
    if (!(error instanceof ApiError) || error.errorCode !== 'VALIDATION_FAILED') throw error;
    const worded = error.message.replace(/(?:body )?"([A-Za-z]+)"/g, (whole, field: string) => (FIELD_NAMES.includes(field as GroupField) ? `--${field}` : whole));
    throw new UsageError(CREATE_USAGE, worded);
  }
}

/** Words → a create body; values typed by their field's default (numbers, booleans, lists). */
function parseCreate(words: readonly string[]): Record<string, unknown> {
  const positional: string[] = [];
  const body: Record<string, unknown> = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('--') || word === '--') {
      positional.push(word);
      continue;
    }
    const [rawKey = '', inline] = splitOnce(word.slice(2), '=');
    const field = fieldOf(rawKey);
    if (!field) throw new UsageError(CREATE_USAGE, `no field --${rawKey}${didYouMean(rawKey, flagWords())}`);
    if (field === 'name' || field === 'software' || field === 'version') throw new UsageError(CREATE_USAGE, `give ${field} as a word, not --${rawKey}`);
    const isBoolean = typeof GROUP_FIELDS[field].default === 'boolean';
    let value = inline;
    if (value === undefined) {
      const next = words[i + 1];
      if (isBoolean && (next === undefined || next.startsWith('--'))) value = 'true';
      else if (next === undefined) throw new UsageError(CREATE_USAGE, `--${rawKey} needs a value`);
      else {
        value = next;
        i++;
      }
    }
    body[field] = typed(field, value);
  }
  if (positional.length < 3) throw new UsageError(CREATE_USAGE, positional.length === 0 ? 'missing arguments' : `missing ${['the name', 'the software', 'the version'][positional.length]}`);
  if (positional.length > 3) throw new UsageError(CREATE_USAGE, `unexpected "${positional[3]}"`);
  const [name, software, version] = positional as [string, string, string];
  return { name, software: software.toUpperCase(), version, ...body };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

const FIELD_NAMES = Object.keys(GROUP_FIELDS) as GroupField[];

function flagWords(): string[] {
  return [...FIELD_NAMES, ...Object.keys(FLAG_ALIASES)];
}

/** `minInstances`, `mininstances`, `min-instances`, `min_instances`, `scaling.min_instances` or `min`. */
function fieldOf(key: string): GroupField | undefined {
  const lower = key.toLowerCase();
  if (FLAG_ALIASES[lower]) return FLAG_ALIASES[lower];
  const squashed = lower.replace(/[-_]/g, '');
  return FIELD_NAMES.find((field) => field.toLowerCase() === squashed || GROUP_FIELDS[field].path.join('.') === lower || GROUP_FIELDS[field].path.at(-1)!.replace(/_/g, '') === squashed);
}

function typed(field: GroupField, value: string): unknown {
  const fallback = GROUP_FIELDS[field].default;
  if (typeof fallback === 'number') return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  if (typeof fallback === 'boolean') {
    if (/^(true|yes|on)$/i.test(value)) return true;
    if (/^(false|no|off)$/i.test(value)) return false;
    return value;
  }
  if (Array.isArray(fallback)) {
    const parts = SPACED_LISTS.has(field) ? value.split(/\s+/) : value.split(',');
    return parts.map((part) => part.trim()).filter(Boolean);
  }
  if (field === 'type' || field === 'placementFallback') return field === 'type' ? value.toUpperCase() : value.toLowerCase();
  return value;
}

let bodyCheck: TypeCheck<typeof GroupBodySchema> | undefined;

/**
 * The body schema's first complaint, worded for the console as POST /api/groups words it for
 * a body: `--minInstances must be an integer between 0 and 1000, got "x"`.
 */
function firstProblem(body: Record<string, unknown>): string | null {
  bodyCheck ??= TypeCompiler.Compile(GroupBodySchema);
  if (bodyCheck.Check(body)) return null;
  const first = bodyCheck.Errors(body).First();
  if (!first) return 'the group is not valid';
  const field = first.path.replace(/^\//, '').replace(/\//g, '.');
  const word = field === 'name' || field === 'software' || field === 'version' ? `the ${field}` : `--${field}`;
  return `${word} must be ${describeSchema(first.schema)}, got ${showValue(first.value)}`;
}


