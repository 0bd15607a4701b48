import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import { SERVICE_STATES } from '../services/lifecycle';
import { crossFieldProblem, GROUP_FIELDS, groupDefaults, MemoryBodySchema, type Group } from '../groups/model';

/**
 * A dedicated service: one server on a fixed port in its own directory
 * (`<paths.dedicated>/<name>`), kept across starts, never built from templates.
 *
 * One field table drives the flat API form (`/api/dedicated`), the TOML form on disk
 * (`config/dedicated/<name>.toml`, every key under `[dedicated]`), the defaults a hand-edited
 * file may leave out, and the order keys are written in (API → disk → API is byte-stable).
 * The fields it shares with groups use the group schemas, so both validate alike.
 */

interface Field<S extends TSchema = TSchema> {
  /** The key under [dedicated] in the TOML file. */
  key: string;
  schema: S;
  default: Static<S>;
}

const f = <S extends TSchema>(key: string, schema: S, value: Static<S>): Field<S> => ({ key, schema, default: value });
const G = GROUP_FIELDS;

/** Every dedicated field: flat API name → TOML key, schema, default. Order = file order. */
export const DEDICATED_FIELDS = {
  name: f('name', Type.String({ pattern: G.name.schema.pattern, description: 'unique, immutable; also the service name and the directory name' }), ''),
  // No real default: the port is required in the body and in the file.
  port: f('port', Type.Integer({ minimum: 1, maximum: 65_535, description: 'fixed port the server listens on; the start fails while another process holds it' }), 0),
  software: f('software', G.software.schema, 'PAPER'),
  version: f('version', G.version.schema, ''),
  jarName: f('jar_name', G.jarName.schema, ''),
  readyPattern: f('ready_pattern', G.readyPattern.schema, ''),
  javaPath: f('java_path', G.javaPath.schema, ''),
  startCommand: f('start_command', G.startCommand.schema, []),
  proxyEnabled: f('proxy_enabled', Type.Boolean({ description: "listed in the proxies' server list; off = players join it directly" }), true),
  memory: f('memory', G.memory.schema, '2G'),
  restartOnCrash: f('restart_on_crash', G.restartOnCrash.schema, true),
  maxRestarts: f('max_restarts', G.maxRestarts.schema, 5),
  jvmArgs: f('jvm_args', G.jvmArgs.schema, []),
  jvmOptimize: f('jvm_optimize', G.jvmOptimize.schema, true),
} as const satisfies Record<string, Field>;

export type DedicatedField = keyof typeof DEDICATED_FIELDS;

type FieldSchemas = { [K in DedicatedField]: (typeof DEDICATED_FIELDS)[K]['schema'] };
const schemas = Object.fromEntries(Object.entries(DEDICATED_FIELDS).map(([k, v]) => [k, v.schema])) as FieldSchemas;

/** A stored dedicated config, every field present (defaults filled in). */
export const DedicatedSchema = Type.Object(schemas);
export type Dedicated = Static<typeof DedicatedSchema>;

/** Fields a create body must carry (and a file must have); the rest have defaults. */
export const DEDICATED_REQUIRED = ['name', 'port', 'software', 'version'] as const satisfies readonly DedicatedField[];
type Required = (typeof DEDICATED_REQUIRED)[number];

/*
 * "" in a body: `jarName`, `readyPattern` and `javaPath` default to "", so "" (what the
 * dashboard's edit dialog always sends) means unset; `memory: ""` means "not given" (the
 * current value on PUT, the default on POST), never a 400.
 */
const bodySchemas = { ...schemas, memory: MemoryBodySchema };
type BodySchemas = typeof bodySchemas;
type CreateProperties = { [K in DedicatedField]: K extends Required ? BodySchemas[K] : TOptional<BodySchemas[K]> };
type PatchProperties = { [K in DedicatedField]: TOptional<BodySchemas[K]> };

/** The create body: the flat API form, name/port/software/version required. */
export const DedicatedBodySchema = Type.Object(
  Object.fromEntries(Object.entries(bodySchemas).map(([k, s]) => [k, (DEDICATED_REQUIRED as readonly string[]).includes(k) ? s : Type.Optional(s)])) as CreateProperties,
);
export type DedicatedBody = Static<typeof DedicatedBodySchema>;

/** The PUT body: a partial update, every field optional; what it does not carry keeps its value. */
export const DedicatedPatchSchema = Type.Object(Object.fromEntries(Object.entries(bodySchemas).map(([k, s]) => [k, Type.Optional(s)])) as PatchProperties);
export type DedicatedPatch = Static<typeof DedicatedPatchSchema>;

/** The fields a body sets: anything outside the field table dropped, `memory: ""` left out. */
export function dedicatedBodyValues(body: DedicatedPatch): Partial<Dedicated> {
  const flat: Record<string, unknown> = body;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DEDICATED_FIELDS)) if (flat[key] !== undefined) out[key] = flat[key];
  if (out.memory === '') delete out.memory;
  return out as Partial<Dedicated>;
}

/**
 * List and detail responses: the config plus where it lives and how its service is doing.
 * "Not running" is null, as the reference answers and the dashboard reads it ("OFFLINE", "—").
 */
export const DedicatedViewSchema = Type.Composite([
  DedicatedSchema,
  Type.Object({
    directory: Type.String({ description: 'absolute path of the server directory' }),
    state: Type.Union([...SERVICE_STATES.filter((s) => s !== 'STOPPED').map((s) => Type.Literal(s)), Type.Null()], {
      description: 'the service state while it has a record (CRASHED included); null when it is not running',
    }),
    pid: Type.Union([Type.Integer(), Type.Null()]),
    playerCount: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null when it is not running' }),
    uptime: Type.Union([Type.String(), Type.Null()], { description: 'running time as "<h>h <m>m <s>s"; null when it is not running' }),
    uptimeSeconds: Type.Integer({ minimum: 0, description: 'seconds since the process started; 0 when it is not running' }),
  }),
]);
export type DedicatedView = Static<typeof DedicatedViewSchema>;

export function dedicatedDefaults(): Omit<Dedicated, Required> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(DEDICATED_FIELDS)) if (!(DEDICATED_REQUIRED as readonly string[]).includes(key)) out[key] = structuredClone(field.default);
  return out as Omit<Dedicated, Required>;
}

/**
 * The config seen as the one-instance static group the service manager runs (software,
 * memory, JVM, ready pattern, restart policy); what a dedicated config does not say comes
 * from the group defaults.
 */
export function dedicatedPolicy(config: Dedicated): Group {
  return {
    ...groupDefaults(),
    name: config.name,
    type: 'STATIC',
    template: config.name,
    software: config.software,
    version: config.version,
    jarName: config.jarName,
    readyPattern: config.readyPattern,
    javaPath: config.javaPath,
    startCommand: [...config.startCommand],
    memory: config.memory,
    restartOnCrash: config.restartOnCrash,
    maxRestarts: config.maxRestarts,
    jvmArgs: [...config.jvmArgs],
    jvmOptimize: config.jvmOptimize,
    minInstances: 0,
    maxInstances: 1,
    drainTimeout: 30,
    deployOnStop: false,
  };
}

/** Rules across fields (the group ones: a valid ready pattern, CUSTOM needs a jar or a command); null when fine. */
export function dedicatedProblem(config: Dedicated): string | null {
  return crossFieldProblem(dedicatedPolicy(config));
}
