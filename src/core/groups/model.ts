import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import { SOFTWARE_NAMES } from '../software/kinds';
import { MEMORY_PATTERN } from '../software/memory';

/**
 * A group: a template plus how its instances are started, scaled and looked after.
 *
 * One field table drives everything: the flat API form (`/api/groups`), the nested TOML form
 * on disk (`config/groups/<name>.toml`), the defaults a hand-edited file may leave out, and the
 * order keys are written in (so an API → disk → API round trip is byte-stable).
 */

export const GROUP_NAME = '^[a-zA-Z0-9_-]{1,64}$';
/** Template folder names: no separators, no dot-dot, nothing hidden. */
export const TEMPLATE_NAME = '^[a-zA-Z0-9_-][a-zA-Z0-9_.-]{0,63}$';
const FILE_NAME = '^[a-zA-Z0-9_][a-zA-Z0-9_.+-]{0,127}$';

export const GROUP_TYPES = ['DYNAMIC', 'STATIC', 'LOBBY'] as const;
export const PLACEMENT_FALLBACKS = ['wait', 'local', 'fail'] as const;

const literals = <V extends string>(values: readonly V[], options: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
const Int = (min: number, max: number, description: string) => Type.Integer({ minimum: min, maximum: max, description });
const StrList = <S extends TSchema>(item: S, description: string) => Type.Array(item, { maxItems: 64, description });

interface Field<S extends TSchema = TSchema> {
  /** Where the value lives under [group] in the TOML file. */
  path: readonly string[];
  schema: S;
  default: Static<S>;
}

const f = <S extends TSchema>(path: string, schema: S, value: Static<S>): Field<S> => ({ path: path.split('.'), schema, default: value });

/** Every group field: flat API name → nested TOML path, schema, default. Order = file order. */
export const GROUP_FIELDS = {
  name: f('name', Type.String({ pattern: GROUP_NAME, description: 'unique, immutable' }), ''),
  type: f('type', literals(GROUP_TYPES, { description: 'DYNAMIC (temporary work dirs), STATIC (kept), LOBBY (dynamic, where players land)' }), 'DYNAMIC'),
  template: f('template', Type.Union([Type.Literal(''), Type.String({ pattern: TEMPLATE_NAME })], { description: 'template folder; empty = the group name' }), ''),
  templates: f('templates', StrList(Type.String({ pattern: TEMPLATE_NAME }), 'stacked templates, later ones overwrite earlier; replaces template when set'), []),
  software: f('software', literals(SOFTWARE_NAMES, { description: 'see GET /api/software' }), 'PAPER'),
  version: f('version', Type.String({ pattern: '^\\d+\\.\\d+(\\.\\d+)?(-.*)?$', maxLength: 32 }), ''),
  modloaderVersion: f('modloader_version', Type.String({ maxLength: 64 }), ''),
  jarName: f('jar_name', Type.Union([Type.Literal(''), Type.String({ pattern: FILE_NAME })], { description: 'server jar file name; empty = the software default' }), ''),
  readyPattern: f('ready_pattern', Type.String({ maxLength: 256, description: 'regular expression on stdout lines; empty = the software default' }), ''),
  javaPath: f('java_path', Type.String({ maxLength: 1024, description: 'java binary; empty = [java] of svc.toml' }), ''),
  startCommand: f('start_command', StrList(Type.String({ minLength: 1, maxLength: 4096 }), 'replaces the built command; placeholders {port} {memory} {name} {group}'), []),
  memory: f('resources.memory', Type.String({ pattern: MEMORY_PATTERN, description: 'heap, e.g. 1G or 512M' }), '1G'),
  maxPlayers: f('resources.max_players', Int(0, 100_000, 'players per instance the server admits'), 50),
  minInstances: f('scaling.min_instances', Int(0, 1000, 'instances kept running'), 1),
  maxInstances: f('scaling.max_instances', Int(0, 1000, 'most instances at once'), 4),
  playersPerInstance: f('scaling.players_per_instance', Int(1, 100_000, 'target players per instance'), 40),
  scaleThreshold: f('scaling.scale_threshold', Type.Number({ minimum: 0, maximum: 1, description: 'fill ratio that triggers a scale-up' }), 0.8),
  idleTimeout: f('scaling.idle_timeout', Int(0, 86_400 * 7, 's an empty instance may idle before scale-down; 0 = never'), 0),
  warmPoolSize: f('scaling.warm_pool_size', Int(0, 100, 'prepared instances kept ready to start'), 0),
  stopOnEmpty: f('lifecycle.stop_on_empty', Type.Boolean({ description: 'stop an instance when its last player leaves' }), false),
  restartOnCrash: f('lifecycle.restart_on_crash', Type.Boolean(), true),
  maxRestarts: f('lifecycle.max_restarts', Int(0, 1000, 'restarts after crashes before giving up'), 5),
  drainTimeout: f('lifecycle.drain_timeout', Int(0, 3600, 's to wait for players to leave before stopping'), 30),
  deployOnStop: f('lifecycle.deploy_on_stop', Type.Boolean({ description: 'copy changed files back into the template on stop' }), false),
  deployExcludes: f('lifecycle.deploy_excludes', StrList(Type.String({ minLength: 1, maxLength: 256 }), 'paths or globs never deployed back'), ['logs', 'crash-reports', 'cache', 'libraries', '*.tmp']),
  jvmArgs: f('jvm.args', StrList(Type.String({ maxLength: 4096 }), 'JVM arguments; replace the optimized defaults'), []),
  jvmOptimize: f('jvm.optimize', Type.Boolean({ description: 'use the well-known G1 flags when jvmArgs is empty' }), true),
  placementNode: f('placement.node', Type.String({ maxLength: 64, description: 'preferred cluster node; empty = any' }), ''),
  placementFallback: f('placement.fallback', literals(PLACEMENT_FALLBACKS, { description: 'when the node is unavailable' }), 'wait'),
  syncEnabled: f('sync.enabled', Type.Boolean({ description: 'keep a canonical copy of the work dir (state sync)' }), false),
  syncExcludes: f('sync.excludes', StrList(Type.String({ minLength: 1, maxLength: 256 }), 'paths never synced'), []),
} as const satisfies Record<string, Field>;

export type GroupField = keyof typeof GROUP_FIELDS;

type FieldSchemas = { [K in GroupField]: (typeof GROUP_FIELDS)[K]['schema'] };
const schemas = Object.fromEntries(Object.entries(GROUP_FIELDS).map(([k, v]) => [k, v.schema])) as FieldSchemas;

/** A stored group, every field present (defaults filled in). */
export const GroupSchema = Type.Object(schemas);
export type Group = Static<typeof GroupSchema>;

/** Fields a create/replace body must carry; everything else has a default. */
const REQUIRED: readonly GroupField[] = ['name', 'software', 'version'];

type BodyProperties = { [K in GroupField]: K extends 'name' | 'software' | 'version' ? FieldSchemas[K] : TOptional<FieldSchemas[K]> };

/** The create/replace body: the flat API form, name/software/version required. */
export const GroupBodySchema = Type.Object(
  Object.fromEntries(Object.entries(schemas).map(([k, s]) => [k, REQUIRED.includes(k as GroupField) ? s : Type.Optional(s)])) as BodyProperties,
);
export type GroupBody = Static<typeof GroupBodySchema>;

/** List and detail responses add what the controller knows beside the definition. */
export const GroupViewSchema = Type.Composite([
  GroupSchema,
  Type.Object({ activeInstances: Type.Integer({ minimum: 0 }), modIds: Type.Array(Type.String()) }),
]);
export type GroupView = Static<typeof GroupViewSchema>;

export function groupDefaults(): Omit<Group, 'name' | 'software' | 'version'> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(GROUP_FIELDS)) out[key] = structuredClone(field.default);
  return out as Omit<Group, 'name' | 'software' | 'version'>;
}

/** Fills what defaults to another field: an empty template is the group's name. */
export function normalizeGroup(group: Group): Group {
  return group.template === '' ? { ...group, template: group.name } : group;
}

/**
 * Rules across fields, beyond each field's own schema. Returns the first problem, naming the
 * field, or null.
 */
export function crossFieldProblem(group: Group): string | null {
  if (group.minInstances > group.maxInstances) {
    return `"minInstances" (${group.minInstances}) must be at most "maxInstances" (${group.maxInstances})`;
  }
  if (group.readyPattern !== '') {
    try {
      new RegExp(group.readyPattern);
    } catch (error) {
      return `"readyPattern" is not a valid regular expression: ${(error as Error).message}`;
    }
  }
  if (group.software === 'CUSTOM' && group.jarName === '' && group.startCommand.length === 0) {
    return '"jarName" is required for CUSTOM software unless "startCommand" is set';
  }
  return null;
}

/** Templates a group's files come from, in stacking order. */
export function templateStack(group: Group): string[] {
  if (group.templates.length > 0) return [...group.templates];
  return [group.template || group.name];
}
