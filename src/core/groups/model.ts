import { Type, type Static, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { SOFTWARE_NAMES } from '../software/kinds';
import { MEMORY_PATTERN } from '../software/memory';

/**
 * A group: a template plus how its instances are started, scaled and looked after.
 *
 * One field table drives everything: the flat API form (`/api/groups`), the nested TOML form
 * on disk (`config/groups/<name>.toml`), the nested `resources`/`scaling`/`lifecycle` objects the
 * reference answers beside the flat fields, the defaults a hand-edited file may leave out, and
 * the order keys are written in (so an API → disk → API round trip is byte-stable).
 */

export const GROUP_NAME = '^[a-zA-Z0-9_-]{1,64}$';
/** Template folder names: no separators, no dot-dot, nothing hidden. */
export const TEMPLATE_NAME = '^[a-zA-Z0-9_-][a-zA-Z0-9_.-]{0,63}$';
/** A file name in a service's folder (the server jar): no separators, nothing hidden. */
export const FILE_NAME = '^[a-zA-Z0-9_][a-zA-Z0-9_.+-]{0,127}$';

export const GROUP_TYPES = ['DYNAMIC', 'STATIC', 'LOBBY'] as const;
export const PLACEMENT_FALLBACKS = ['wait', 'local', 'fail'] as const;

const literals = <V extends string>(values: readonly V[], options: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
const Int = (min: number, max: number, description: string) => Type.Integer({ minimum: min, maximum: max, description });
const StrList = <S extends TSchema>(item: S, description: string) => Type.Array(item, { maxItems: 64, description });

/** The nested objects the reference's group answer carries (and the dashboard reads). */
export const NESTED_SECTIONS = ['resources', 'scaling', 'lifecycle'] as const;
export type NestedSection = (typeof NESTED_SECTIONS)[number];

interface Field<S extends TSchema = TSchema, N extends NestedSection | null = NestedSection | null> {
  /** Where the value lives under [group] in the TOML file. */
  path: readonly string[];
  schema: S;
  default: Static<S>;
  /** The nested view object that also carries it (its TOML table), or null. */
  nested: N;
}

type Head<P extends string> = P extends `${infer H}.${string}` ? H : never;

/** A field; `nested` marks one the reference also answers inside the object named by its TOML table. */
const f = <S extends TSchema, P extends string, N extends boolean = false>(
  path: P,
  schema: S,
  value: Static<S>,
  nested?: N,
): Field<S, N extends true ? Head<P> & NestedSection : null> => {
  const segments = path.split('.');
  const section = nested ? (segments[0] as NestedSection) : null;
  if (section !== null && (segments.length !== 2 || !NESTED_SECTIONS.includes(section))) throw new Error(`group field ${path}: only a field of a nested section can be nested`);
  return { path: segments, schema, default: value, nested: section as N extends true ? Head<P> & NestedSection : null };
};
const NESTED = true;

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
  memory: f('resources.memory', Type.String({ pattern: MEMORY_PATTERN, description: 'heap, e.g. 1G or 512M' }), '1G', NESTED),
  maxPlayers: f('resources.max_players', Int(0, 100_000, 'players per instance the server admits'), 50, NESTED),
  minInstances: f('scaling.min_instances', Int(0, 1000, 'instances kept running'), 1, NESTED),
  maxInstances: f('scaling.max_instances', Int(0, 1000, 'most instances at once'), 4, NESTED),
  playersPerInstance: f('scaling.players_per_instance', Int(1, 100_000, 'target players per instance'), 40, NESTED),
  scaleThreshold: f('scaling.scale_threshold', Type.Number({ minimum: 0, maximum: 1, description: 'fill ratio that triggers a scale-up' }), 0.8, NESTED),
  idleTimeout: f('scaling.idle_timeout', Int(0, 86_400 * 7, 's an empty instance may idle before scale-down; 0 = never'), 0, NESTED),
  warmPoolSize: f('scaling.warm_pool_size', Int(0, 100, 'prepared instances kept ready to start'), 0),
  stopOnEmpty: f('lifecycle.stop_on_empty', Type.Boolean({ description: 'stop an instance when its last player leaves' }), false, NESTED),
  restartOnCrash: f('lifecycle.restart_on_crash', Type.Boolean(), true, NESTED),
  maxRestarts: f('lifecycle.max_restarts', Int(0, 1000, 'restarts after crashes before giving up'), 5, NESTED),
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

/** The fields a nested view object carries, in field-table order. */
export type NestedFields<T extends NestedSection> = { [K in GroupField]: (typeof GROUP_FIELDS)[K]['nested'] extends T ? K : never }[GroupField];
export const NESTED_FIELDS = Object.fromEntries(
  NESTED_SECTIONS.map((section) => [section, (Object.keys(GROUP_FIELDS) as GroupField[]).filter((key) => GROUP_FIELDS[key].nested === section)]),
) as { [T in NestedSection]: NestedFields<T>[] };

/** A stored group, every field present (defaults filled in). */
export const GroupSchema = Type.Object(schemas);
export type Group = Static<typeof GroupSchema>;

/** Fields a create body must carry; everything else has a default. */
const REQUIRED: readonly GroupField[] = ['name', 'software', 'version'];
type Required = 'name' | 'software' | 'version';

/**
 * `memory` in a request body (groups and dedicated services). "" in a body, field by field: the
 * optional string fields whose default is "" (`template`, `modloaderVersion`, `jarName`,
 * `readyPattern`, `javaPath`, `placementNode`) take "" as a value like any other, and "" is their
 * default, so "" means unset. `memory` has a non-empty default, and the dashboard sends "" when
 * its form never received the value: "" there means "not given" (the current value on PUT, the
 * default on POST), never a 400.
 */
export const MemoryBodySchema = Type.Union([Type.Literal(''), schemas.memory], { description: 'heap, e.g. 1G or 512M; "" = not given' });
const bodySchemas = { ...schemas, memory: MemoryBodySchema };
type BodySchemas = typeof bodySchemas;

type NestedBodies = { [T in NestedSection]: TOptional<TObject<{ [K in NestedFields<T>]: TOptional<BodySchemas[K]> }>> };
const nestedBodies = Object.fromEntries(
  NESTED_SECTIONS.map((section) => [
    section,
    Type.Optional(
      Type.Object(Object.fromEntries(NESTED_FIELDS[section].map((key) => [key, Type.Optional(bodySchemas[key])])), {
        description: `the reference's nested form of the ${section} fields; a flat field given too wins`,
      }),
    ),
  ]),
) as NestedBodies;

type CreateProperties = { [K in GroupField]: K extends Required ? BodySchemas[K] : TOptional<BodySchemas[K]> } & NestedBodies;
type PatchProperties = { [K in GroupField]: TOptional<BodySchemas[K]> } & NestedBodies;

/** The create body: the flat API form, name/software/version required. */
export const GroupBodySchema = Type.Object({
  ...(Object.fromEntries(Object.entries(bodySchemas).map(([k, s]) => [k, REQUIRED.includes(k as GroupField) ? s : Type.Optional(s)])) as Omit<CreateProperties, NestedSection>),
  ...nestedBodies,
} as CreateProperties);
export type GroupBody = Static<typeof GroupBodySchema>;

/** The PUT body: a partial update, every field optional; what it does not carry keeps its value. */
export const GroupPatchSchema = Type.Object({
  ...(Object.fromEntries(Object.entries(bodySchemas).map(([k, s]) => [k, Type.Optional(s)])) as Omit<PatchProperties, NestedSection>),
  ...nestedBodies,
} as PatchProperties);
export type GroupPatch = Static<typeof GroupPatchSchema>;

/**
 * The fields a body sets, flat: the nested objects' values first, the flat keys over them (flat
 * wins), `memory: ""` left out (not given), anything outside the field table dropped.
 */
export function bodyValues(body: GroupPatch): Partial<Group> {
  const given = (key: string, value: unknown) => value !== undefined && !(key === 'memory' && value === '');
  const out: Record<string, unknown> = {};
  for (const section of NESTED_SECTIONS) {
    const nested: Record<string, unknown> = body[section] ?? {};
    for (const key of NESTED_FIELDS[section]) if (given(key, nested[key])) out[key] = nested[key];
  }
  const flat: Record<string, unknown> = body;
  for (const key of Object.keys(GROUP_FIELDS)) if (given(key, flat[key])) out[key] = flat[key];
  return out as Partial<Group>;
}

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
