/**
 * Generated fuzz test over GET /api/openapi.json: for every operation, inputs that violate
 * its schema (bodies, path parameters, query parameters, content types, sizes) are sent with
 * the master token, or, to the operations of a dashboard session's own (`x-svc-auth: session`,
 * which refuse API tokens), with an admin's dashboard session. A second pass sends a share of
 * the cases again with the service token (what every backend and proxy plugin holds): the
 * operations it may call are judged as above, and every other one (admin, cluster, session)
 * must refuse it every time, never answering 2xx. Every answer must be < 500,
 * and every non-2xx must carry the error body. Inputs the document itself calls invalid must
 * also be refused with a 4xx, and bodies over the route's limit with 413 PAYLOAD_TOO_LARGE.
 *
 * Reproducible: the seed (fixed by default) is printed; rerun with FUZZ_SEED=<seed>, or
 * FUZZ_SEED=random to explore. Each operation draws from
 * its own stream (seed × method × path), so adding a route does not reshuffle the others.
 * Nothing here names a route: routes added later are fuzzed without edits.
 */
import { connect } from 'node:net';
import { afterAll, expect, test } from 'bun:test';
import { openApiPath } from '../../src/http/openapi';
import { DEFAULT_BODY_LIMIT } from '../../src/http/route';
import { SessionService } from '../../src/modules/auth/sessions';
import { expectErrorBody, startController, type TestController } from '../support/controller';
import { bringOnline, loginCode, testPlayer, type Player } from '../support/dashboard-login';

// ---------------------------------------------------------------------------------------------
// Knobs

/** Requests in flight at once. */
const CONCURRENCY = 16;
/** Random (seeded) cases per operation, on top of the enumerated ones. */
const RANDOM_CASES_PER_OPERATION = 200;
/** Total cases the file must have sent. */
const MIN_TOTAL_CASES = 2000;
/** Random cases per operation in the service-token pass (plus its query cases and a valid request). */
const SERVICE_TOKEN_RANDOM_CASES = 20;
/** Operations the service token may call; every other level refuses it. */
const SERVICE_TOKEN_LEVELS = new Set(['service', 'public']);
/** Over-limit bodies are only built for limits up to this size. */
const MAX_OVERSIZE_BODY = 16 * 1024 * 1024;
/** Failures printed in full per operation. */
const REPORTED_FAILURES = 25;
/**
 * A case that took longer than this in the concurrent run is sent again on its own; if it is
 * still this slow alone, that one request stalls the controller (every case here normally
 * answers in a few milliseconds). Cases queued behind it re-check in milliseconds; the
 * re-checks of one operation stop after SLOW_RECHECK_BUDGET_MS.
 */
const SLOW_CASE_MS = 3000;
const SLOW_RECHECK_BUDGET_MS = 15_000;
/** Nesting of the deep array and object sent once per operation (bodies of 24 and 72 KB). */
const DEEP_DEPTH = 12_000;

// A fixed default keeps CI reproducible; FUZZ_SEED=random explores new cases locally.
const DEFAULT_SEED = 20261121;
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? crypto.getRandomValues(new Uint32Array(1))[0]!
    : process.env.FUZZ_SEED
      ? Number(process.env.FUZZ_SEED) >>> 0
      : DEFAULT_SEED;
console.log(`fuzz seed: ${SEED} (rerun with FUZZ_SEED=${SEED})`);

// ---------------------------------------------------------------------------------------------
// Seeded randomness

type Rng = () => number;

function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));
function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(rng() * items.length)]!;
}

// ---------------------------------------------------------------------------------------------
// The document

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

interface Operation {
  'x-svc-auth': string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, unknown>;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
}

interface Op {
  method: string;
  template: string;
  /** `x-svc-auth`: `session` operations are called with a dashboard session instead of the master token. */
  level: string;
  /** The `{placeholders}` of the template, each with the schema of its parameter. */
  slots: { name: string; schema: JsonSchema }[];
  queryParams: Parameter[];
  body: JsonSchema | undefined;
  bodyRequired: boolean;
  bodyLimit: number;
  /** 5xx statuses the document promises as answers (503 when no proxy is READY); 500 never is. */
  documented5xx: Set<number>;
}

const ctl: TestController = await startController();
afterAll(() => ctl.stop());
const port = ctl.controller.port;

const docResponse = await ctl.api('/api/openapi.json', { token: null });
if (docResponse.status !== 200) throw new Error(`GET /api/openapi.json answered ${docResponse.status}`);
const doc = (await docResponse.json()) as OpenApiDoc;

/**
 * Pairs each `{placeholder}` with its declared path parameter; a placeholder without one
 * (a wildcard's `{path}` is declared as `*`) takes the next unpaired parameter, or a string.
 */
function slotsOf(template: string, params: Parameter[]): Op['slots'] {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const unpaired = params.filter((p) => !names.includes(p.name));
  return names.map((name) => ({ name, schema: (params.find((p) => p.name === name) ?? unpaired.shift())?.schema ?? { type: 'string' } }));
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const ops: Op[] = [];
for (const [template, entries] of Object.entries(doc.paths ?? {})) {
  for (const [method, op] of Object.entries(entries)) {
    if (!HTTP_METHODS.has(method)) continue;
    const declared = ctl.controller.routes.find((r) => r.method === method.toUpperCase() && openApiPath(r.path) === template);
    const parameters = op.parameters ?? [];
    ops.push({
      method: method.toUpperCase(),
      template,
      level: op['x-svc-auth'],
      slots: slotsOf(template, parameters.filter((p) => p.in === 'path')),
      queryParams: parameters.filter((p) => p.in === 'query'),
      body: op.requestBody?.content?.['application/json']?.schema,
      bodyRequired: op.requestBody?.required ?? false,
      bodyLimit: declared?.bodyLimit ?? DEFAULT_BODY_LIMIT,
      documented5xx: new Set(Object.keys(op.responses ?? {}).map(Number).filter((status) => status > 500 && status < 600)),
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Dashboard sessions for the operations of a session's own

const ADMIN_GROUP = 'fuzzadmins';

/**
 * Admin dashboard sessions for the `session` operations, one player per case in flight: a case
 * borrows a player and uses that player's session alone, so a case that ends its session
 * (logout) or revokes "the player's other sessions" never touches another case's. A borrowed
 * session found ended (the player's previous case logged it out) is replaced by a new one
 * from the session service, as a login would: not through consume-challenge, whose cap on failed
 * attempts per address the fuzz of that route has spent by then (its 429 is the right answer).
 * The first session of each player is a real login (in-game code, consumed) before any case.
 */
class AdminSessions {
  private readonly idle: Player[] = [];
  private readonly tokens = new Map<string, string>();
  replaced = 0;

  constructor(private readonly sessions: SessionService) {}

  async logIn(players: number): Promise<void> {
    const created = await ctl.api('/api/permissions/groups', { method: 'POST', json: { name: ADMIN_GROUP } });
    if (created.status !== 201) throw new Error(`creating ${ADMIN_GROUP} answered ${created.status}: ${await created.text()}`);
    const added = await ctl.api(`/api/permissions/groups/${ADMIN_GROUP}/permissions`, { method: 'POST', json: { permission: 'svc.dashboard.admin' } });
    if (added.status !== 200) throw new Error(`granting the admin node answered ${added.status}: ${await added.text()}`);
    for (let i = 0; i < players; i++) {
      const player = testPlayer(0x5000 + i, `FuzzAdmin${i}`);
      const joined = await ctl.api(`/api/permissions/players/${player.uuid}/groups`, { method: 'POST', json: { group: ADMIN_GROUP } });
      if (joined.status !== 200) throw new Error(`adding ${player.name} to ${ADMIN_GROUP} answered ${joined.status}: ${await joined.text()}`);
      await bringOnline(ctl, player);
      const code = await loginCode(ctl, player);
      const consumed = await ctl.api('/api/auth/consume-challenge', { method: 'POST', token: null, json: { challenge: code } });
      const body = (await consumed.json()) as { token?: string | null; user?: { isAdmin: boolean } };
      if (consumed.status !== 200 || !body.token || body.user?.isAdmin !== true) throw new Error(`consume-challenge answered ${consumed.status}: ${JSON.stringify(body)}`);
      this.tokens.set(player.uuid, body.token);
      this.idle.push(player);
    }
  }

  /** Runs `work` with a live admin session no other case is using meanwhile. */
  async borrow<T>(work: (token: string) => Promise<T>): Promise<T> {
    const player = this.idle.pop();
    if (!player) throw new Error('more session cases in flight than admin players');
    try {
      return await work(this.liveToken(player));
    } finally {
      this.idle.push(player);
    }
  }

  /** Whether the session behind this token can no longer be used. */
  ended(token: string): boolean {
    const session = this.sessions.byToken(token);
    return !session || session.revokedAt !== null || session.expiresAt <= Date.now();
  }

  private liveToken(player: Player): string {
    const token = this.tokens.get(player.uuid)!;
    if (!this.ended(token)) return token;
    const fresh = this.sessions.issue({ uuid: player.uuid, name: player.name, method: 'code', totpUsed: false, ip: '127.0.0.1', userAgent: 'fuzz' }).token;
    this.tokens.set(player.uuid, fresh);
    this.replaced++;
    return fresh;
  }
}

const sessionService = ctl.controller.kernel.modules.lookup('sessions');
if (!(sessionService instanceof SessionService)) throw new Error('the auth module provides no SessionService');
const adminSessions = new AdminSessions(sessionService);
// One per case in flight; the slow-case re-checks send alone.
await adminSessions.logIn(CONCURRENCY);

// ---------------------------------------------------------------------------------------------
// Values with raw JSON tokens (1e309, -0 and friends cannot survive JSON.stringify)

class Raw {
  constructor(readonly text: string) {}
}
type Value = null | boolean | number | string | Raw | Value[] | { [key: string]: Value };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Raw);
}

function serialize(v: Value): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(serialize).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${serialize(x)}`).join(',')}}`;
  if (typeof v === 'number' && !Number.isFinite(v)) return 'null';
  return JSON.stringify(v);
}

function clone(v: Value): Value {
  if (v instanceof Raw || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clone);
  const out: { [key: string]: Value } = {};
  for (const [k, x] of Object.entries(v)) out[k] = clone(x);
  return out;
}

type PathKey = string | number;

/** Sets (or with `undefined`, deletes) the value at a path inside a clone of `root`. */
function withValue(root: Value, path: readonly PathKey[], value: Value | undefined): Value {
  if (path.length === 0) return value === undefined ? null : value;
  const copy = clone(root);
  let node: Value = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const next: Value | undefined = Array.isArray(node) ? node[Number(key)] : isRecord(node) ? (node as { [key: string]: Value })[String(key)] : undefined;
    if (next === undefined || next === null || typeof next !== 'object' || next instanceof Raw) return copy;
    node = next;
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(node)) {
    if (value === undefined) node.splice(Number(last), 1);
    else node[Number(last)] = value;
  } else if (isRecord(node)) {
    const record = node as { [key: string]: Value };
    if (value === undefined) delete record[String(last)];
    else record[String(last)] = value;
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------
// A small validator for the JSON Schema subset the document uses. Its answer decides whether
// a case must be refused; where it cannot be sure it says 'ambiguous' and the case only gets
// the baseline checks.

type Verdict = 'valid' | 'invalid' | 'ambiguous';

/** Every part must hold. */
function worst(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('invalid')) return 'invalid';
  return verdicts.includes('ambiguous') ? 'ambiguous' : 'valid';
}
/** One option is enough. */
function best(verdicts: Verdict[]): Verdict {
  if (verdicts.includes('valid')) return 'valid';
  return verdicts.includes('ambiguous') ? 'ambiguous' : 'invalid';
}

function deepEqual(a: unknown, b: unknown): boolean {
  return Bun.deepEquals(a, b, true);
}

function numberVerdict(n: number, s: JsonSchema, integer: boolean): Verdict {
  if (!Number.isFinite(n)) return 'invalid';
  if (integer && !Number.isInteger(n)) return 'invalid';
  if (s.minimum !== undefined && n < s.minimum) return 'invalid';
  if (s.maximum !== undefined && n > s.maximum) return 'invalid';
  if (s.exclusiveMinimum !== undefined && n <= s.exclusiveMinimum) return 'invalid';
  if (s.exclusiveMaximum !== undefined && n >= s.exclusiveMaximum) return 'invalid';
  if (s.multipleOf !== undefined && n % s.multipleOf !== 0) return 'invalid';
  return 'valid';
}

function typeVerdict(value: unknown, type: string, s: JsonSchema): Verdict {
  switch (type) {
    case 'null':
      return value === null ? 'valid' : 'invalid';
    case 'boolean':
      return typeof value === 'boolean' ? 'valid' : 'invalid';
    case 'integer':
    case 'number': {
      if (typeof value === 'number') return numberVerdict(value, s, type === 'integer');
      // The framework may coerce numeric strings: never insist on a refusal for those.
      if (typeof value === 'string' && value.trim() !== '' && numberVerdict(Number(value), s, type === 'integer') === 'valid') return 'ambiguous';
      return 'invalid';
    }
    case 'string': {
      if (typeof value !== 'string') return 'invalid';
      if (s.minLength !== undefined && value.length < s.minLength) return 'invalid';
      if (s.maxLength !== undefined && value.length > s.maxLength) return 'invalid';
      if (s.pattern !== undefined) {
        try {
          if (!new RegExp(s.pattern).test(value)) return 'invalid';
        } catch {
          return 'ambiguous';
        }
      }
      return s.format !== undefined ? 'ambiguous' : 'valid';
    }
    case 'array': {
      if (!Array.isArray(value)) return 'invalid';
      if (s.minItems !== undefined && value.length < s.minItems) return 'invalid';
      if (s.maxItems !== undefined && value.length > s.maxItems) return 'invalid';
      const verdicts: Verdict[] = [];
      if (s.uniqueItems) verdicts.push(new Set(value.map((x) => JSON.stringify(x))).size === value.length ? 'valid' : 'invalid');
      if (s.items) for (const item of value) verdicts.push(validate(item, s.items));
      return worst(verdicts);
    }
    case 'object': {
      if (!isRecord(value)) return 'invalid';
      const verdicts: Verdict[] = [];
      for (const key of s.required ?? []) if (value[key] === undefined || !Object.hasOwn(value, key)) return 'invalid';
      for (const [key, v] of Object.entries(value)) {
        const declared = s.properties?.[key];
        if (declared) {
          verdicts.push(validate(v, declared));
          continue;
        }
        const patterned = Object.entries(s.patternProperties ?? {}).filter(([p]) => new RegExp(p).test(key));
        if (patterned.length > 0) verdicts.push(...patterned.map(([, schema]) => validate(v, schema)));
        else if (s.additionalProperties === false) verdicts.push('invalid');
        else if (typeof s.additionalProperties === 'object') verdicts.push(validate(v, s.additionalProperties));
      }
      return worst(verdicts);
    }
    default:
      return 'ambiguous';
  }
}

function validate(value: unknown, s: JsonSchema): Verdict {
  const verdicts: Verdict[] = [];
  if (s.anyOf) verdicts.push(best(s.anyOf.map((o) => validate(value, o))));
  if (s.oneOf) verdicts.push(best(s.oneOf.map((o) => validate(value, o))));
  if ('const' in s) verdicts.push(deepEqual(value, s.const) ? 'valid' : 'invalid');
  if (s.enum) verdicts.push(s.enum.some((e) => deepEqual(value, e)) ? 'valid' : 'invalid');
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    verdicts.push(best(types.map((t) => typeVerdict(value, t, s))));
  }
  return worst(verdicts);
}

/** A value the schema accepts (as far as this generator can tell). */
function sample(s: JsonSchema, depth = 0): Value {
  if ('const' in s) return s.const as Value;
  if (s.enum && s.enum.length > 0) return s.enum[0] as Value;
  if (s.default !== undefined) return s.default as Value;
  const options = s.anyOf ?? s.oneOf;
  if (options && options.length > 0) return sample(options[0]!, depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return 'fuzz'.padEnd(Math.max(1, s.minLength ?? 1), 'z').slice(0, Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? 4, 4)));
    case 'integer':
    case 'number': {
      const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : undefined);
      const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : undefined);
      if (lo !== undefined) return Math.ceil(lo);
      if (hi !== undefined) return Math.min(1, Math.floor(hi));
      return 1;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return depth > 6 ? [] : Array.from({ length: s.minItems ?? 1 }, () => (s.items ? sample(s.items, depth + 1) : 'x'));
    case 'object': {
      const out: { [key: string]: Value } = {};
      if (depth > 6) return out;
      for (const [key, prop] of Object.entries(s.properties ?? {})) out[key] = sample(prop, depth + 1);
      return out;
    }
    default:
      return 'x';
  }
}

/** Every property path of a schema as far as the sample has it, with its schema. */
function propertyPaths(s: JsonSchema, value: Value, prefix: PathKey[] = [], out: { path: PathKey[]; schema: JsonSchema; required: boolean }[] = []) {
  if (prefix.length > 4) return out;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' && isRecord(value)) {
    const required = new Set(s.required ?? []);
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      out.push({ path: [...prefix, key], schema: prop, required: required.has(key) });
      const child = (value as { [key: string]: Value })[key];
      if (child !== undefined) propertyPaths(prop, child, [...prefix, key], out);
    }
  }
  if (type === 'array' && Array.isArray(value) && s.items && value.length > 0) {
    out.push({ path: [...prefix, 0], schema: s.items, required: false });
    propertyPaths(s.items, value[0]!, [...prefix, 0], out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Hostile ingredients

const ODD_UNICODE: readonly { name: string; text: string }[] = [
  { name: 'lone high surrogate', text: '\ud800' },
  { name: 'lone low surrogate', text: '\udc00' },
  { name: 'reversed surrogate pair', text: '\udc00\ud800' },
  { name: 'surrogate in text', text: 'ab\udbffcd' },
  { name: 'NUL', text: '\u0000' },
  { name: 'embedded NUL', text: 'a\u0000b' },
  { name: 'C0 controls', text: '\u0001\u0008\u001b\u001f' },
  { name: 'DEL', text: 'a\u007fb' },
  { name: 'C1 control', text: 'a\u0085b\u009f' },
  { name: 'CR LF', text: 'a\r\nb' },
  { name: 'tab and vertical tab', text: 'a\t\u000bb' },
  { name: 'RTL override', text: 'abc\u202edcba' },
  { name: 'RTL isolate', text: '\u2067x\u2069' },
  { name: 'zero-width joiner family', text: '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}' },
  { name: 'zero-width space and non-joiner', text: 'a\u200bb\u200cc' },
  { name: 'BOM in text', text: '\ufeffx' },
  { name: 'emoji', text: '\u{1F600}\u{1F4A9}' },
  { name: 'flag', text: '\u{1F1FA}\u{1F1F3}' },
  { name: 'combining marks', text: 'e\u0301\u0302\u0303\u0304' },
  { name: 'zalgo', text: 'Z\u0324\u0354\u0367\u0311a\u0356\u032d\u0308l\u036e\u0312g\u0338o\u033c' },
  { name: 'line and paragraph separators', text: 'a\u2028b\u2029c' },
  { name: 'noncharacters', text: '\ufffe\uffff' },
  { name: 'last code point', text: '\u{10FFFF}' },
  { name: 'replacement character', text: '\ufffd' },
  { name: 'fullwidth and compat', text: '\uff21\u2126\ufb01' },
  { name: 'quotes and backslashes', text: `"'\\\`` },
  { name: 'TOML breakers', text: '"""\n[x]\nk = 1\n\'\'\'' },
  { name: 'markup', text: '<script>alert(1)</script>' },
  { name: 'template and format', text: '${x}{{x}}%s%n%d' },
  { name: 'path traversal', text: '../../etc/passwd' },
  { name: 'SQL', text: "' OR 1=1 --" },
  { name: 'unicode escape text', text: '\\u0000\\ud800' },
];

/** Raw JSON number tokens and near-numbers. */
const NUMBER_TOKENS: readonly { name: string; json: string }[] = [
  { name: '1e309 (overflows to Infinity)', json: '1e309' },
  { name: '-1e309', json: '-1e309' },
  { name: '-0', json: '-0' },
  { name: '"NaN" as string', json: '"NaN"' },
  { name: '"Infinity" as string', json: '"Infinity"' },
  { name: '2^53 + 1', json: '9007199254740993' },
  { name: 'huge integer', json: '123456789012345678901234567890' },
  { name: 'huge negative integer', json: '-123456789012345678901234567890' },
  { name: '1e21', json: '1e21' },
  { name: 'tiny', json: '5e-324' },
  { name: 'fraction', json: '0.5' },
  { name: 'negative', json: '-1' },
  { name: 'zero', json: '0' },
  { name: '2^31', json: '2147483648' },
  { name: '2^32', json: '4294967296' },
  { name: '1.0', json: '1.0' },
  { name: 'numeric string', json: '"60"' },
  { name: 'hex string', json: '"0x10"' },
  { name: 'empty string', json: '""' },
];

const WRONG_TYPES: readonly { name: string; value: Value }[] = [
  { name: 'string', value: 'fuzz' },
  { name: 'integer', value: 12345 },
  { name: 'fraction', value: 1.5 },
  { name: 'true', value: true },
  { name: 'false', value: false },
  { name: 'null', value: null },
  { name: 'empty array', value: [] },
  { name: 'array', value: [1, 'a', null] },
  { name: 'empty object', value: {} },
  { name: 'object', value: { a: 1 } },
];

const deepArray = (depth: number) => new Raw('['.repeat(depth) + ']'.repeat(depth));
const deepObject = (depth: number) => new Raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

function randomString(rng: Rng): string {
  switch (int(rng, 0, 4)) {
    case 0:
      return pick(rng, ODD_UNICODE).text;
    case 1:
      return Array.from({ length: int(rng, 0, 300) }, () => String.fromCharCode(int(rng, 0x20, 0x7e))).join('');
    case 2:
      // Any UTF-16 code units, surrogates and controls included.
      return Array.from({ length: int(rng, 0, 40) }, () => String.fromCharCode(int(rng, 0, 0xffff))).join('');
    case 3:
      return pick(rng, ODD_UNICODE).text.repeat(int(rng, 1, 80));
    default:
      return 'x'.repeat(pick(rng, [0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 4096]));
  }
}

function randomNumber(rng: Rng): Value {
  switch (int(rng, 0, 2)) {
    case 0:
      return new Raw(pick(rng, NUMBER_TOKENS).json);
    case 1:
      return Math.round((rng() * 2 - 1) * 10 ** int(rng, 0, 20));
    default:
      return (rng() * 2 - 1) * 10 ** int(rng, -5, 30);
  }
}

function randomJson(rng: Rng, depth = 0): Value {
  const kind = depth > 3 ? int(rng, 0, 4) : int(rng, 0, 7);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng() < 0.5;
    case 2:
    case 3:
      return randomNumber(rng);
    case 4:
      return randomString(rng);
    case 5:
      return Array.from({ length: int(rng, 0, 5) }, () => randomJson(rng, depth + 1));
    case 6: {
      const out: { [key: string]: Value } = {};
      for (let i = int(rng, 0, 4); i > 0; i--) out[randomString(rng).slice(0, 20)] = randomJson(rng, depth + 1);
      return out;
    }
    default:
      return pick(rng, [deepArray(int(rng, 10, 2000)), deepObject(int(rng, 10, 2000))]);
  }
}

/** Percent-encodes every code unit but unreserved ASCII; lone surrogates become their WTF-8 bytes. */
function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (/[A-Za-z0-9\-._~]/.test(text[i]!)) {
      out += text[i];
      continue;
    }
    let cp = unit;
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    const bytes: number[] = [];
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** Already-encoded path-parameter values (the request target carries them byte for byte). */
const PATH_VALUES: readonly { name: string; encoded: string }[] = [
  { name: 'dot-dot', encoded: '..' },
  { name: 'dot', encoded: '.' },
  { name: 'encoded dot-dot', encoded: '%2e%2e' },
  { name: 'upper-case encoded dot-dot', encoded: '%2E%2E' },
  { name: 'mixed dot-dot', encoded: '.%2e' },
  { name: 'encoded slash', encoded: 'a%2Fb' },
  { name: 'encoded traversal', encoded: '..%2F..%2F..%2Fetc%2Fpasswd' },
  { name: 'double-encoded traversal', encoded: '%252e%252e%252f' },
  { name: 'encoded backslash', encoded: '..%5C..%5C' },
  { name: 'encoded NUL', encoded: 'x%00y' },
  { name: 'invalid percent escape', encoded: '%zz' },
  { name: 'truncated percent escape', encoded: 'x%' },
  { name: 'truncated UTF-8', encoded: '%E2%82' },
  { name: 'overlong UTF-8 slash', encoded: '%C0%AF' },
  { name: 'invalid UTF-8 byte', encoded: '%FF%FE' },
  { name: 'encoded lone surrogate (WTF-8)', encoded: '%ED%A0%80' },
  { name: 'encoded space and plus', encoded: 'a%20b+c' },
  { name: 'encoded question mark and hash', encoded: 'a%3Fb%23c' },
  { name: '4 KB long', encoded: 'a'.repeat(4096) },
  { name: '4 KB of encoded bytes', encoded: '%41'.repeat(1365) },
  { name: 'numeric-looking', encoded: '-1' },
  { name: 'huge number', encoded: '99999999999999999999999' },
  { name: 'proto', encoded: '__proto__' },
  { name: 'constructor', encoded: 'constructor' },
  ...ODD_UNICODE.map((u) => ({ name: `odd unicode: ${u.name}`, encoded: percentEncode(u.text) })),
];

/** Suffixes after a route's own path (so routes without parameters get path fuzz too). */
const PATH_SUFFIXES: readonly { name: string; suffix: string }[] = [
  { name: 'trailing slash', suffix: '/' },
  { name: 'double slash', suffix: '//' },
  { name: 'slash dot', suffix: '/.' },
  { name: 'slash dot-dot', suffix: '/..' },
  { name: 'slash encoded dot-dot', suffix: '/%2e%2e' },
  { name: 'encoded slash', suffix: '%2F' },
  { name: 'encoded traversal', suffix: '/%2e%2e%2f%2e%2e%2fetc%2fpasswd' },
  { name: 'semicolon parameter', suffix: ';jsessionid=x' },
  { name: 'encoded question mark', suffix: '%3Fx=1' },
  { name: 'encoded NUL', suffix: '%00' },
  { name: 'slash invalid escape', suffix: '/%zz' },
  { name: 'slash lone percent', suffix: '/%' },
  { name: 'extra segment', suffix: '/x' },
  { name: '4 KB segment', suffix: `/${'a'.repeat(4096)}` },
  ...PATH_VALUES.filter((p) => p.name.startsWith('odd unicode')).map((p) => ({ name: `segment ${p.name}`, suffix: `/${p.encoded}` })),
];

const PATH_PREFIXES: readonly { name: string; prefix: string }[] = [
  { name: 'leading double slash', prefix: '/' },
  { name: 'leading dot segment', prefix: '/.' },
  { name: 'leading dot-dot', prefix: '/..' },
  { name: 'leading encoded dot-dot', prefix: '/%2e%2e' },
  { name: 'leading unknown segment and dot-dot', prefix: '/x/..' },
];

// ---------------------------------------------------------------------------------------------
// Cases

type Expectation = { kind: 'any' } | { kind: 'reject' } | { kind: 'exact'; status: number; code: string };
const ANY: Expectation = { kind: 'any' };
const REJECT: Expectation = { kind: 'reject' };

interface FuzzCase {
  description: string;
  method: string;
  /** Request target: path and query, already encoded. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array | { streamBytes: number; chunk: Uint8Array };
  /** Send over a plain socket so the target reaches the server unnormalised. */
  raw?: boolean;
  expect: Expectation;
}

const encoder = new TextEncoder();
const JSON_TYPE = { 'content-type': 'application/json' };

/** What the server must do with these body bytes under a JSON content type. */
function classifyJson(bytes: Uint8Array, op: Op): Expectation {
  const schema = op.body;
  if (!schema) return ANY;
  // The bytes as any UTF-8 JSON reader sees them (BOM dropped, bad bytes replaced).
  const text = new TextDecoder().decode(bytes);
  if (text.length === 0) return op.bodyRequired ? REJECT : ANY;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return REJECT;
  }
  return validate(parsed, schema) === 'invalid' ? REJECT : ANY;
}

/** The template with valid values, except `encoded` (sent as is) in the slot named `slot`. */
function fillPath(op: Op, slot?: string, encoded?: string): string {
  let path = op.template;
  for (const s of op.slots) path = path.replace(`{${s.name}}`, s.name === slot && encoded !== undefined ? encoded : percentEncode(serializePlain(sample(s.schema))) || 'x');
  return path;
}

function basePath(op: Op): string {
  return fillPath(op);
}

function serializePlain(v: Value): string {
  return typeof v === 'string' ? v : serialize(v);
}

/** Required query parameters with valid values, except `skip`. */
function baseQuery(op: Op, skip?: string): [string, string][] {
  return op.queryParams.filter((p) => p.required && p.name !== skip).map((p) => [p.name, percentEncode(serializePlain(sample(p.schema ?? { type: 'string' })))]);
}

function target(path: string, query: [string, string][]): string {
  return query.length === 0 ? path : `${path}?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
}

function bodyCase(op: Op, description: string, text: string, headers: Record<string, string> = JSON_TYPE, expectation?: Expectation): FuzzCase {
  const bytes = encoder.encode(text);
  return { description, method: op.method, target: target(basePath(op), baseQuery(op)), headers, body: bytes, expect: expectation ?? classifyJson(bytes, op) };
}

function bodyCases(op: Op, rng: Rng): FuzzCase[] {
  const schema = op.body;
  const cases: FuzzCase[] = [];
  const canHaveBody = op.method !== 'GET';
  const over = op.bodyLimit + 1;
  if (canHaveBody && op.bodyLimit <= MAX_OVERSIZE_BODY) {
    const tooLarge: Expectation = { kind: 'exact', status: 413, code: 'PAYLOAD_TOO_LARGE' };
    const filler = `{"fuzz":"${'x'.repeat(over)}"}`;
    cases.push(bodyCase(op, `body over the ${op.bodyLimit}-byte limit (Content-Length)`, filler, JSON_TYPE, tooLarge));
    const chunk = encoder.encode('x'.repeat(64 * 1024));
    cases.push({
      description: `body over the ${op.bodyLimit}-byte limit (chunked, no Content-Length)`,
      method: op.method,
      target: target(basePath(op), baseQuery(op)),
      headers: JSON_TYPE,
      body: { streamBytes: over + chunk.length, chunk },
      expect: tooLarge,
    });
  }
  if (!canHaveBody) return cases;
  if (!schema) {
    // A body nobody asked for: it may be ignored or refused, never a crash.
    for (const [name, text] of [
      ['unexpected JSON body', '{"fuzz":1}'],
      ['unexpected malformed JSON', '{"fuzz":'],
      ['unexpected deep JSON', deepArray(50000).text],
    ] as const) cases.push(bodyCase(op, name, text, JSON_TYPE, ANY));
    cases.push(bodyCase(op, 'unexpected XML body', '<fuzz/>', { 'content-type': 'application/xml' }, ANY));
    return cases;
  }

  const base = sample(schema);
  const baseText = serialize(base);
  const withAt = (path: readonly PathKey[], value: Value | undefined) => serialize(withValue(base, path, value));

  // Per property: wrong types, missing, sizes, odd unicode, hostile numbers, nesting.
  for (const { path, schema: prop, required } of propertyPaths(schema, base)) {
    const name = path.join('.');
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
    for (const wrong of WRONG_TYPES) cases.push(bodyCase(op, `${name}: ${wrong.name}`, withAt(path, wrong.value)));
    if (typeof path[path.length - 1] === 'string') cases.push(bodyCase(op, `${name}: missing${required ? ' (required)' : ''}`, withAt(path, undefined)));
    cases.push(bodyCase(op, `${name}: array nested 1000 deep`, withAt(path, deepArray(1000))));
    cases.push(bodyCase(op, `${name}: object nested 1000 deep`, withAt(path, deepObject(1000))));
    if (type === 'string') {
      cases.push(bodyCase(op, `${name}: empty string`, withAt(path, '')));
      if (prop.maxLength !== undefined) cases.push(bodyCase(op, `${name}: maxLength+1 (${prop.maxLength + 1})`, withAt(path, 'x'.repeat(prop.maxLength + 1))));
      if (prop.minLength !== undefined && prop.minLength > 0) cases.push(bodyCase(op, `${name}: minLength-1`, withAt(path, 'x'.repeat(prop.minLength - 1))));
      cases.push(bodyCase(op, `${name}: 64 KiB string`, withAt(path, 'x'.repeat(64 * 1024))));
      if (op.bodyLimit <= MAX_OVERSIZE_BODY) {
        cases.push(
          bodyCase(op, `${name}: string beyond the ${op.bodyLimit}-byte body limit`, withAt(path, 'x'.repeat(over)), JSON_TYPE, {
            kind: 'exact',
            status: 413,
            code: 'PAYLOAD_TOO_LARGE',
          }),
        );
      }
      for (const u of ODD_UNICODE) {
        const fits = prop.maxLength === undefined || u.text.length <= prop.maxLength;
        if (fits) cases.push(bodyCase(op, `${name}: ${u.name}`, withAt(path, u.text)));
        if (prop.maxLength !== undefined) cases.push(bodyCase(op, `${name}: ${u.name} beyond maxLength`, withAt(path, u.text.repeat(Math.ceil((prop.maxLength + 1) / u.text.length)))));
        // A raw control character inside a JSON string is not JSON.
        if (/[\u0000-\u001f]/.test(u.text)) cases.push(bodyCase(op, `${name}: unescaped ${u.name}`, withAt(path, new Raw(`"${u.text.replace(/["\\]/g, '')}"`))));
      }
    }
    if (type === 'integer' || type === 'number') {
      for (const n of NUMBER_TOKENS) cases.push(bodyCase(op, `${name}: ${n.name}`, withAt(path, new Raw(n.json))));
      for (const [label, bound] of [
        ['minimum-1', prop.minimum !== undefined ? prop.minimum - 1 : undefined],
        ['maximum+1', prop.maximum !== undefined ? prop.maximum + 1 : undefined],
        ['minimum-0.5', prop.minimum !== undefined ? prop.minimum - 0.5 : undefined],
      ] as const) {
        if (bound !== undefined) cases.push(bodyCase(op, `${name}: ${label} (${bound})`, withAt(path, bound)));
      }
      cases.push(bodyCase(op, `${name}: NaN literal`, withAt(path, new Raw('NaN'))));
      cases.push(bodyCase(op, `${name}: leading zeros`, withAt(path, new Raw('007'))));
      cases.push(bodyCase(op, `${name}: plus sign`, withAt(path, new Raw('+1'))));
    }
    if (type === 'boolean') {
      for (const token of ['"true"', '"false"', '1', '0', '"yes"', 'True']) cases.push(bodyCase(op, `${name}: ${token}`, withAt(path, new Raw(token))));
    }
    if (type === 'array') {
      cases.push(bodyCase(op, `${name}: empty array`, withAt(path, [])));
      if (prop.maxItems !== undefined) cases.push(bodyCase(op, `${name}: maxItems+1`, withAt(path, Array.from({ length: prop.maxItems + 1 }, () => (prop.items ? sample(prop.items) : 'x')))));
      cases.push(bodyCase(op, `${name}: 10000 items`, withAt(path, Array.from({ length: 10000 }, (_, i) => (prop.items ? sample(prop.items) : i)))));
      cases.push(bodyCase(op, `${name}: object where an array belongs`, withAt(path, { 0: prop.items ? sample(prop.items) : 'x' })));
      cases.push(bodyCase(op, `${name}: items of every type`, withAt(path, WRONG_TYPES.map((w) => w.value))));
    }
    if (type === 'object') cases.push(bodyCase(op, `${name}: array where an object belongs`, withAt(path, [sample(prop)])));
  }

  // Very deep values, once per operation: they must be refused without a 500 and quickly
  // (see SLOW_CASE_MS); shallower ones go to every property above.
  const first = propertyPaths(schema, base)[0];
  if (first) {
    cases.push(bodyCase(op, `${first.path.join('.')}: array nested ${DEEP_DEPTH} deep`, withAt(first.path, deepArray(DEEP_DEPTH))));
    cases.push(bodyCase(op, `${first.path.join('.')}: object nested ${DEEP_DEPTH} deep`, withAt(first.path, deepObject(DEEP_DEPTH))));
  }

  // The root: other shapes, nesting, prototype keys, duplicates.
  const roots: [string, string][] = [
    ['root: empty array', '[]'],
    ['root: array of a valid body', `[${baseText}]`],
    ['root: null', 'null'],
    ['root: string', '"fuzz"'],
    ['root: number', '42'],
    ['root: true', 'true'],
    ['root: empty object', '{}'],
    ['root: array nested 1000 deep', deepArray(1000).text],
    ['root: array nested 100000 deep', deepArray(100000).text],
    ['root: object nested 1000 deep', deepObject(1000).text],
    ['root: __proto__ key', baseText.replace(/^\{/, '{"__proto__":{"admin":true,"polluted":1},')],
    ['root: constructor.prototype key', baseText.replace(/^\{/, '{"constructor":{"prototype":{"polluted":1}},')],
    ['root: unknown odd-unicode key', baseText.replace(/^\{/, `{${JSON.stringify('\u202e\u0000\ud800key')}:1,`)],
    ['root: 10000 unknown keys', `{${Array.from({ length: 10000 }, (_, i) => `"k${i}":${i}`).join(',')}${baseText.length > 2 ? `,${baseText.slice(1, -1)}` : ''}}`],
  ];
  const firstKey = isRecord(base) ? Object.keys(base)[0] : undefined;
  if (firstKey !== undefined) roots.push([`root: duplicate key ${firstKey} (last one wrong)`, baseText.replace(/\}$/, `,${JSON.stringify(firstKey)}:[[1]]}`)]);
  for (const [name, text] of roots) cases.push(bodyCase(op, name, text.replace(/^\{,/, '{').replace(/,\}$/, '}')));

  // Malformed JSON: always a 4xx.
  const malformed: [string, string | Uint8Array][] = [
    ['malformed: trailing comma', baseText.replace(/\}$/, ',}').replace('{,}', '{"a":1,}')],
    ['malformed: single quotes', baseText.replaceAll('"', "'")],
    ['malformed: unquoted keys', baseText.replace(/"([A-Za-z0-9_]+)":/g, '$1:')],
    ['malformed: comment', `/* fuzz */${baseText}`],
    ['malformed: two documents', baseText + baseText],
    ['malformed: NaN literal', '{"fuzz":NaN}'],
    ['malformed: bad escape', '{"fuzz":"\\x41"}'],
    ['malformed: short unicode escape', '{"fuzz":"\\u12"}'],
    ['malformed: whitespace only', ' \n\t '],
    ['malformed: two BOMs', `\ufeff\ufeff${baseText}`],
    ['malformed: bare word', 'undefined'],
    ['malformed: only a quote', '"'],
    ['malformed: NUL byte', '\u0000'],
    ['malformed: UTF-16LE body', new Uint8Array(Buffer.from(baseText, 'utf16le'))],
    ['malformed: UTF-32 BOM', new Uint8Array([0, 0, 0xfe, 0xff, ...encoder.encode(baseText)])],
  ];
  for (let i = 0; i < 6; i++) {
    const cut = int(rng, 1, Math.max(1, baseText.length - 1));
    malformed.push([`malformed: truncated at byte ${cut}`, baseText.slice(0, cut)]);
  }
  malformed.push(['malformed: truncated to one byte', baseText.slice(0, 1)]);
  for (const [name, payload] of malformed) {
    const bytes = typeof payload === 'string' ? encoder.encode(payload) : payload;
    cases.push({ description: name, method: op.method, target: target(basePath(op), baseQuery(op)), headers: JSON_TYPE, body: bytes, expect: classifyJson(bytes, op) });
  }
  cases.push(bodyCase(op, 'BOM before valid JSON', `\ufeff${baseText}`, JSON_TYPE, ANY));
  cases.push({
    description: 'invalid UTF-8 inside a string',
    method: op.method,
    target: target(basePath(op), baseQuery(op)),
    headers: JSON_TYPE,
    body: new Uint8Array([...encoder.encode('{"fuzz":"'), 0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, ...encoder.encode('"}')]),
    expect: ANY,
  });

  // Empty bodies.
  cases.push(bodyCase(op, 'empty body, JSON content type', '', JSON_TYPE, op.bodyRequired ? REJECT : ANY));
  cases.push(bodyCase(op, 'empty body, no content type', '', {}, op.bodyRequired ? REJECT : ANY));
  cases.push(bodyCase(op, 'empty body, text/plain', '', { 'content-type': 'text/plain' }, op.bodyRequired ? REJECT : ANY));

  // Content types: the clearly wrong ones must be refused when the body is an object.
  const objectBody = (Array.isArray(schema.type) ? schema.type[0] : schema.type) === 'object';
  const wrongType = objectBody ? REJECT : ANY;
  const multipart = `--FUZZ\r\nContent-Disposition: form-data; name="fuzz"\r\n\r\n${baseText}\r\n--FUZZ--\r\n`;
  const contentTypes: [string, Record<string, string>, string, Expectation][] = [
    ['text/plain', { 'content-type': 'text/plain' }, baseText, wrongType],
    ['text/plain; charset=utf-8', { 'content-type': 'text/plain; charset=utf-8' }, baseText, wrongType],
    ['text/html', { 'content-type': 'text/html' }, `<p>${baseText}</p>`, wrongType],
    ['application/xml', { 'content-type': 'application/xml' }, `<?xml version="1.0"?><fuzz>${baseText}</fuzz>`, wrongType],
    ['multipart/form-data', { 'content-type': 'multipart/form-data; boundary=FUZZ' }, multipart, wrongType],
    ['multipart without boundary', { 'content-type': 'multipart/form-data' }, multipart, wrongType],
    ['application/octet-stream', { 'content-type': 'application/octet-stream' }, baseText, wrongType],
    ['image/png', { 'content-type': 'image/png' }, '\u0089PNG\r\n\u001a\n', wrongType],
    ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }, 'fuzz=1&a=%zz&b', ANY],
    ['no content type', {}, baseText, ANY],
    ['application/json; charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }, baseText, ANY],
    ['APPLICATION/JSON', { 'content-type': 'APPLICATION/JSON' }, baseText, ANY],
    ['application/vnd.fuzz+json', { 'content-type': 'application/vnd.fuzz+json' }, baseText, ANY],
    ['application/json;;;', { 'content-type': 'application/json;;;' }, baseText, ANY],
    ['application/json; charset=utf-16', { 'content-type': 'application/json; charset=utf-16' }, baseText, ANY],
    ['bare word content type', { 'content-type': 'json' }, baseText, ANY],
    ['*/*', { 'content-type': '*/*' }, baseText, ANY],
    ['content type with odd unicode', { 'content-type': 'application/json; x=\u00e9' }, baseText, ANY],
  ];
  for (const [name, headers, text, expectation] of contentTypes) cases.push(bodyCase(op, `content type: ${name}`, text, headers, expectation));

  return cases;
}

/** Values of the wrong type, out of range or oversized for a query or path parameter. */
function typeTexts(s: JsonSchema): { name: string; text: string }[] {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const out: { name: string; text: string }[] = [];
  const add = (text: string, name = JSON.stringify(text)) => out.push({ name, text });
  if (type === 'integer' || type === 'number') {
    for (const text of ['abc', '', '1.5', 'NaN', 'Infinity', '-Infinity', '1e309', 'true', 'null', '[]', '{}', '1,2', '1 2', '--1', '0b101']) add(text);
    for (const text of ['-1', '-999999999', '-0', '0', '99999999999999999999', '9007199254740993', '1e21', '1e300', '-1e300', '0x10', '1e3', ' 1', '007', '+5']) add(text);
    if (s.minimum !== undefined) add(String(s.minimum - 1), 'minimum-1');
    if (s.maximum !== undefined) add(String(s.maximum + 1), 'maximum+1');
  } else if (type === 'boolean') {
    for (const text of ['yes', '', 'TRUE', '1', '0', 'null', 'truee']) add(text);
  } else {
    add('', 'empty');
    if (s.maxLength !== undefined) add('x'.repeat(s.maxLength + 1), `maxLength+1 (${s.maxLength + 1})`);
    add('q'.repeat(4096), '4 KB');
    for (const text of ['-1', '1e309', 'NaN', '99999999999999999999', 'null', 'true']) add(text);
  }
  return out;
}

/** Query values for one declared parameter, with what the server must do with them. */
function queryValues(p: Parameter): { name: string; encoded: string; expect: Expectation }[] {
  const s = p.schema ?? {};
  const out = typeTexts(s).map((v) => ({ name: v.name, encoded: percentEncode(v.text), expect: validateQuery(v.text, s) }));
  const add = (name: string, encoded: string, expectation: Expectation) => out.push({ name, encoded, expect: expectation });
  for (const u of ODD_UNICODE) add(`odd unicode: ${u.name}`, percentEncode(u.text), validateQuery(u.text, s));
  add('invalid percent escape', '%zz', ANY);
  add('lone percent', '%', ANY);
  add('invalid UTF-8', '%FF%FE', ANY);
  add('encoded lone surrogate (WTF-8)', '%ED%A0%80', ANY);
  add('overlong UTF-8', '%C0%AF', ANY);
  add('encoded NUL', '%00', ANY);
  add('plus as space', 'a+b', ANY);
  return out;
}

function validateQuery(text: string, s: JsonSchema): Expectation {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'integer' || type === 'number') {
    // Only refusals nobody could argue with: no number at all, a fraction for an integer, out of range.
    if (text.trim() === '' || !/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$|^\s*0[xXbBoO][0-9a-fA-F]+\s*$/.test(text)) {
      return text.trim() === '' || !Number.isFinite(Number(text)) ? REJECT : ANY;
    }
    const n = Number(text);
    if (!Number.isFinite(n)) return REJECT;
    if (type === 'integer' && !Number.isInteger(n)) return REJECT;
    if (s.minimum !== undefined && n < s.minimum) return REJECT;
    if (s.maximum !== undefined && n > s.maximum) return REJECT;
    return ANY;
  }
  if (type === 'boolean') return text === '' || text === 'yes' || text === 'null' || text === 'truee' ? REJECT : ANY;
  if (type === 'string') return validate(text, s) === 'invalid' ? REJECT : ANY;
  return ANY;
}

function queryCases(op: Op): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const path = basePath(op);
  const body = op.body && op.method !== 'GET' ? encoder.encode(serialize(sample(op.body))) : undefined;
  const make = (description: string, query: [string, string][], expectation: Expectation): FuzzCase => ({
    description,
    method: op.method,
    target: target(path, query),
    headers: body ? JSON_TYPE : {},
    body,
    expect: expectation,
  });
  for (const p of op.queryParams) {
    const others = baseQuery(op, p.name);
    for (const v of queryValues(p)) cases.push(make(`query ${p.name}: ${v.name}`, [...others, [p.name, v.encoded]], v.expect));
    const valid = percentEncode(serializePlain(sample(p.schema ?? { type: 'string' })));
    cases.push(make(`query ${p.name}: repeated twice`, [...others, [p.name, valid], [p.name, valid]], ANY));
    cases.push(make(`query ${p.name}: repeated 200 times`, [...others, ...Array.from({ length: 200 }, (): [string, string] => [p.name, valid])], ANY));
    cases.push(make(`query ${p.name}: repeated, second invalid`, [...others, [p.name, valid], [p.name, '%zz']], ANY));
    cases.push(make(`query ${p.name}: array syntax`, [...others, [`${p.name}[]`, valid]], ANY));
    cases.push(make(`query ${p.name}: object syntax`, [...others, [`${p.name}[a]`, valid]], ANY));
    if (p.required) cases.push(make(`query ${p.name}: missing (required)`, others, REJECT));
  }
  const base = baseQuery(op);
  for (const [name, extra] of [
    ['unknown key', [['fuzz', '1']]],
    ['__proto__ key', [['__proto__', '1']]],
    ['__proto__[admin] key', [['__proto__%5Badmin%5D', 'true']]],
    ['constructor key', [['constructor', 'x']]],
    ['odd-unicode key', [[percentEncode('\u202e\ud800\u0000'), '1']]],
    ['invalid-escape key', [['%zz', '1']]],
    ['empty key', [['', '1']]],
    ['200 unknown keys', Array.from({ length: 200 }, (_, i) => [`k${i}`, String(i)])],
  ] as [string, [string, string][]][]) {
    cases.push(make(`query: ${name}`, [...base, ...extra], ANY));
  }
  cases.push({ ...make('query: bare ampersands', base, ANY), target: `${target(path, base)}${base.length ? '&' : '?'}&&=&` });
  return cases;
}

function pathCases(op: Op): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const body = op.body && op.method !== 'GET' ? encoder.encode(serialize(sample(op.body))) : undefined;
  const headers = body ? JSON_TYPE : {};
  const query = baseQuery(op);
  const make = (description: string, path: string): FuzzCase => ({ description, method: op.method, target: target(path, query), headers, body, raw: true, expect: ANY });
  for (const slot of op.slots) {
    for (const v of PATH_VALUES) cases.push(make(`path {${slot.name}}: ${v.name}`, fillPath(op, slot.name, v.encoded)));
    // Wrong types and sizes: refused when the document says so (an empty segment may also 404).
    for (const v of typeTexts(slot.schema)) cases.push({ ...make(`path {${slot.name}}: ${v.name}`, fillPath(op, slot.name, percentEncode(v.text))), expect: validateQuery(v.text, slot.schema) });
    cases.push(make(`path {${slot.name}}: several segments`, fillPath(op, slot.name, 'a/b/../../c')));
    cases.push(make(`path {${slot.name}}: empty`, fillPath(op, slot.name, '')));
  }
  const path = basePath(op);
  for (const s of PATH_SUFFIXES) cases.push(make(`path suffix: ${s.name}`, path + s.suffix));
  for (const s of PATH_PREFIXES) cases.push(make(`path prefix: ${s.name}`, s.prefix + path));
  cases.push(make('path: upper case', path.toUpperCase()));
  return cases;
}

function randomCases(op: Op, rng: Rng, count: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const schema = op.body && op.method !== 'GET' ? op.body : undefined;
  const base = schema ? sample(schema) : undefined;
  const paths = schema && base !== undefined ? propertyPaths(schema, base) : [];
  for (let i = 0; i < count; i++) {
    const parts: string[] = [];
    let query = baseQuery(op);
    let path = basePath(op);
    let raw = false;
    let queryExpect: Expectation = ANY;
    // Query: declared parameters with random values, sometimes unknown keys.
    if (op.queryParams.length > 0 || rng() < 0.3) {
      const p = op.queryParams.length > 0 && rng() < 0.8 ? pick(rng, op.queryParams) : undefined;
      const text = rng() < 0.5 ? randomString(rng) : serializePlain(randomNumber(rng));
      const key = p?.name ?? (percentEncode(randomString(rng).slice(0, 12)) || 'fuzz');
      query = [...query.filter(([k]) => k !== key), [key, percentEncode(text)]];
      if (p) queryExpect = validateQuery(text, p.schema ?? {});
      parts.push(`query ${p ? p.name : 'random key'}=${JSON.stringify(text.slice(0, 40))}`);
    }
    // Path: a random parameter value or suffix now and then.
    if (rng() < 0.15) {
      raw = true;
      if (op.slots.length > 0) {
        const slot = pick(rng, op.slots);
        const v = rng() < 0.5 ? pick(rng, PATH_VALUES).encoded : percentEncode(randomString(rng).slice(0, 200)) || 'x';
        path = fillPath(op, slot.name, v);
        parts.push(`path {${slot.name}}=${v.slice(0, 40)}`);
      } else {
        const s = pick(rng, PATH_SUFFIXES);
        path += s.suffix;
        parts.push(`path suffix ${s.name}`);
      }
    }
    let body: Uint8Array | undefined;
    let headers: Record<string, string> = {};
    let bodyExpect: Expectation = ANY;
    if (schema && base !== undefined) {
      let value = base;
      for (let m = int(rng, 1, 3); m > 0; m--) {
        const chosen = paths.length > 0 && rng() < 0.85 ? pick(rng, paths) : undefined;
        const at: PathKey[] = chosen?.path ?? [randomString(rng).slice(0, 16)];
        const choice = int(rng, 0, 5);
        const next: Value | undefined =
          choice === 0 ? undefined : choice === 1 ? pick(rng, WRONG_TYPES).value : choice === 2 ? randomNumber(rng) : choice === 3 ? randomString(rng) : randomJson(rng);
        value = withValue(value, at, next);
        parts.push(`${at.join('.')} ${next === undefined ? 'removed' : `= ${serialize(next).slice(0, 40)}`}`);
      }
      let text = serialize(value);
      headers = { ...JSON_TYPE };
      const twist = rng();
      if (twist < 0.1) {
        const at = int(rng, 0, text.length);
        text = text.slice(0, at);
        parts.push(`truncated at ${at}`);
      } else if (twist < 0.2) {
        const at = int(rng, 0, text.length);
        const junk = pick(rng, [',', '"', "'", '}', ']', '\\', '\u0000', '\ud800', '\ufeff', ' ', 'NaN', '/*']);
        text = text.slice(0, at) + junk + text.slice(at);
        parts.push(`inserted ${JSON.stringify(junk)} at ${at}`);
      } else if (twist < 0.27) {
        headers = { 'content-type': pick(rng, ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']) };
        parts.push(`content type ${headers['content-type']}`);
      }
      body = encoder.encode(text);
      const objectBody = (Array.isArray(schema.type) ? schema.type[0] : schema.type) === 'object';
      bodyExpect = headers['content-type'] === 'application/json' ? classifyJson(body, op) : objectBody ? REJECT : ANY;
    }
    // One certain refusal is enough for the whole request to be refused.
    const expectation = bodyExpect.kind === 'reject' || queryExpect.kind === 'reject' ? REJECT : ANY;
    cases.push({ description: `random #${i}: ${parts.join('; ') || 'no change'}`, method: op.method, target: target(path, query), headers, body, raw, expect: expectation });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Sending

interface Answer {
  status: number;
  text: string;
}

async function sendFetch(c: FuzzCase, token: string): Promise<Answer> {
  const headers = new Headers(c.headers);
  headers.set('authorization', `Bearer ${token}`);
  let body: RequestInit['body'];
  if (c.body instanceof Uint8Array) body = c.body;
  else if (c.body) {
    const { streamBytes, chunk } = c.body;
    let sent = 0;
    body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= streamBytes) return controller.close();
        controller.enqueue(chunk);
        sent += chunk.length;
      },
    });
  }
  const response = await fetch(ctl.url + c.target, { method: c.method, headers, body });
  return { status: response.status, text: await response.text() };
}

/** HTTP/1.1 over a plain socket: the request target goes out exactly as written. */
function sendRaw(c: FuzzCase, token: string): Promise<Answer> {
  const body = c.body instanceof Uint8Array ? c.body : new Uint8Array();
  const lines = [`${c.method} ${c.target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Authorization: Bearer ${token}`, 'Connection: close'];
  for (const [k, v] of Object.entries(c.headers)) lines.push(`${k}: ${v}`);
  if (c.method !== 'GET' || body.length > 0) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(Buffer.concat([head, body])));
    socket.setTimeout(15_000, () => socket.destroy(new Error('raw request timed out')));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseRawResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function parseRawResponse(data: Buffer): Answer {
  const split = data.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no complete response head: ${JSON.stringify(data.subarray(0, 200).toString('latin1'))}`);
  const head = data.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1]);
  if (!Number.isInteger(status)) throw new Error(`bad status line ${JSON.stringify(head[0])}`);
  const headers = new Map(head.slice(1).map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const));
  let rest = data.subarray(split + 4);
  if (headers.get('transfer-encoding')?.toLowerCase().includes('chunked')) {
    const parts: Buffer[] = [];
    for (;;) {
      const eol = rest.indexOf('\r\n');
      if (eol < 0) break;
      const size = Number.parseInt(rest.subarray(0, eol).toString('latin1'), 16);
      if (!Number.isFinite(size) || size === 0) break;
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      rest = rest.subarray(eol + 2 + size + 2);
    }
    rest = Buffer.concat(parts);
  } else if (headers.has('content-length')) {
    rest = rest.subarray(0, Number(headers.get('content-length')));
  }
  return { status, text: rest.toString('utf8') };
}

function sendWith(c: FuzzCase, token: string): Promise<Answer> {
  return c.raw ? sendRaw(c, token) : sendFetch(c, token);
}

/** The error codes that refuse the credential itself (a wrong TOTP code is a 401 about the input). */
const CREDENTIAL_REFUSALS = new Set(['UNAUTHORIZED', 'AUTH_FAILED', 'AUTH_SESSION_INVALID', 'AUTH_SESSION_EXPIRED']);

/**
 * Sends with an admin session of its own. The session is live when the case is sent, so its
 * refusal is never an acceptable answer to the input.
 */
function sendAsSession(c: FuzzCase): Promise<Answer> {
  return adminSessions.borrow(async (token) => {
    const answer = await sendWith(c, token);
    if (answer.status === 401 && CREDENTIAL_REFUSALS.has(errorCodeOf(answer.text))) throw new Error(`a live admin session was refused: 401 ${show(answer.text, 200)}`);
    return answer;
  });
}

function errorCodeOf(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string' ? body.error : '';
  } catch {
    return '';
  }
}

async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(workers);
}

/** The problem with an answer, or null when it is acceptable. */
async function judge(c: FuzzCase, answer: Answer, op: Op): Promise<string | null> {
  const { status, text } = answer;
  if (status >= 500 && !op.documented5xx.has(status)) return `server error ${status}`;
  if (status < 200) return `unexpected informational status ${status}`;
  if (status >= 300) {
    let error: string;
    try {
      error = (await expectErrorBody(new Response(status === 304 ? null : text, { status }))).error;
    } catch (thrown) {
      return (thrown as Error).message;
    }
    if (c.expect.kind === 'exact' && (status !== c.expect.status || error !== c.expect.code)) return `expected ${c.expect.status} ${c.expect.code}`;
    if (c.expect.kind === 'reject' && status < 400) return `expected a 4xx refusal, got ${status}`;
    return null;
  }
  if (c.expect.kind === 'reject') return 'input the document calls invalid was accepted (expected a 4xx)';
  if (c.expect.kind === 'exact') return `expected ${c.expect.status} ${c.expect.code}, the request was accepted`;
  return null;
}

function show(text: string, max: number): string {
  const json = JSON.stringify(text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);
  return json.slice(1, -1);
}

function describeRequest(c: FuzzCase): string {
  const body =
    c.body === undefined
      ? 'no body'
      : c.body instanceof Uint8Array
        ? `body ${c.body.length} bytes: ${show(new TextDecoder().decode(c.body), 160)}`
        : `streamed body of ${c.body.streamBytes} bytes`;
  const type = c.headers['content-type'] === undefined ? 'no content type' : `content-type ${show(c.headers['content-type'], 60)}`;
  return `${c.method} ${show(c.target, 200)}${c.raw ? ' (raw socket)' : ''}; ${type}; ${body}`;
}

// ---------------------------------------------------------------------------------------------
// Tests

let totalSent = 0;

for (const op of ops) {
  const label = `${op.method} ${op.template}`;
  test(`fuzz ${label}`, async () => {
    const rng = mulberry32(SEED ^ fnv1a(label));
    const cases = [...bodyCases(op, rng), ...queryCases(op), ...pathCases(op), ...randomCases(op, rng, RANDOM_CASES_PER_OPERATION)];
    const failures: { index: number; text: string }[] = [];
    const slow: { index: number; ms: number }[] = [];
    let sent = 0;
    const send = (c: FuzzCase) => (op.level === 'session' ? sendAsSession(c) : sendWith(c, ctl.master));
    await pool(
      cases.map((c, index) => ({ c, index })),
      CONCURRENCY,
      async ({ c, index }) => {
        const started = performance.now();
        let answer: Answer;
        try {
          answer = await send(c);
        } catch (error) {
          failures.push({ index, text: `${c.description}\n    request: ${describeRequest(c)}\n    not judged: ${(error as Error).message}` });
          return;
        } finally {
          sent++;
        }
        const ms = performance.now() - started;
        if (ms > SLOW_CASE_MS) slow.push({ index, ms });
        const problem = await judge(c, answer, op);
        if (problem) failures.push({ index, text: `${c.description}: ${problem}\n    request: ${describeRequest(c)}\n    response: ${answer.status} ${show(answer.text, 300)}` });
      },
    );
    // Slow under load may just be queueing behind another case: re-send each alone.
    const recheckUntil = performance.now() + SLOW_RECHECK_BUDGET_MS;
    for (const { index } of slow.sort((a, b) => b.ms - a.ms)) {
      if (performance.now() > recheckUntil) break;
      const c = cases[index]!;
      const started = performance.now();
      const answer = await send(c).catch(() => null);
      const ms = performance.now() - started;
      if (ms > SLOW_CASE_MS) {
        const response = answer ? `${answer.status} ${show(answer.text, 200)}` : 'transport error';
        failures.push({ index, text: `${c.description}: took ${Math.round(ms)} ms when sent alone (limit ${SLOW_CASE_MS} ms)\n    request: ${describeRequest(c)}\n    response: ${response}` });
      }
    }
    totalSent += sent;
    expect(sent).toBe(cases.length);
    if (failures.length > 0) {
      failures.sort((a, b) => a.index - b.index);
      const shown = failures.slice(0, REPORTED_FAILURES).map((f) => `  - #${f.index} ${f.text}`).join('\n');
      const more = failures.length > REPORTED_FAILURES ? `\n  …and ${failures.length - REPORTED_FAILURES} more` : '';
      throw new Error(`${label}: ${failures.length} of ${cases.length} fuzz cases failed (seed ${SEED}, rerun with FUZZ_SEED=${SEED}):\n${shown}${more}`);
    }
  }, 60_000);
}

// ---------------------------------------------------------------------------------------------
// The service token: what it may call is fuzzed like the rest; everything else refuses it

let serviceSent = 0;

/** The operation called as its document describes: sample parameters, a sample body. */
function validRequest(op: Op): FuzzCase {
  const body = op.body && op.method !== 'GET' ? encoder.encode(serialize(sample(op.body))) : undefined;
  return { description: 'a valid request', method: op.method, target: target(basePath(op), baseQuery(op)), headers: body ? JSON_TYPE : {}, body, expect: ANY };
}

/** The problem with an answer to the service token on an operation it may not call, or null. */
async function judgeRefusal(answer: Answer): Promise<string | null> {
  if (answer.status >= 500) return `server error ${answer.status}`;
  if (answer.status < 400) return `the service token got ${answer.status} from an operation it may not call`;
  try {
    await expectErrorBody(new Response(answer.text, { status: answer.status }));
  } catch (thrown) {
    return (thrown as Error).message;
  }
  return null;
}

for (const op of ops) {
  const label = `${op.method} ${op.template}`;
  const allowed = SERVICE_TOKEN_LEVELS.has(op.level);
  test(`fuzz with the service token (${allowed ? 'allowed' : `${op.level} only: refused`}) ${label}`, async () => {
    const rng = mulberry32(SEED ^ fnv1a(`service ${label}`));
    const valid = validRequest(op);
    const cases = [valid, ...queryCases(op), ...randomCases(op, rng, SERVICE_TOKEN_RANDOM_CASES)];
    const failures: string[] = [];
    await pool(cases, CONCURRENCY, async (c) => {
      let answer: Answer;
      try {
        answer = await sendWith(c, ctl.service);
      } catch (error) {
        failures.push(`${c.description}\n    request: ${describeRequest(c)}\n    not judged: ${(error as Error).message}`);
        return;
      } finally {
        serviceSent++;
      }
      const problem = allowed ? await judge(c, answer, op) : await judgeRefusal(answer);
      if (problem) failures.push(`${c.description}: ${problem}\n    request: ${describeRequest(c)}\n    response: ${answer.status} ${show(answer.text, 300)}`);
      // The plain, valid request to an operation the token may not call is refused for the credential itself.
      if (!allowed && c === valid && answer.status !== 401 && answer.status !== 403) failures.push(`a valid request with the service token answered ${answer.status}, not 401/403`);
    });
    if (failures.length > 0) {
      const shown = failures.slice(0, REPORTED_FAILURES).map((f) => `  - ${f}`).join('\n');
      throw new Error(`${label} (service token): ${failures.length} of ${cases.length} cases failed (seed ${SEED}, rerun with FUZZ_SEED=${SEED}):\n${shown}`);
    }
  }, 60_000);
}

test('fuzz: enough cases were sent to every operation', () => {
  console.log(`fuzz: ${serviceSent} cases with the service token over ${ops.length} operations (${ops.filter((op) => !SERVICE_TOKEN_LEVELS.has(op.level)).length} of which must refuse it)`);
  expect(serviceSent).toBeGreaterThanOrEqual(ops.length * (SERVICE_TOKEN_RANDOM_CASES + 1));
  console.log(`fuzz: ${totalSent} cases over ${ops.length} operations (seed ${SEED}); ${adminSessions.replaced} admin sessions replaced after a case ended one`);
  expect(ops.length).toBe(ctl.controller.routes.length);
  expect(ops.length).toBeGreaterThanOrEqual(10);
  expect(totalSent).toBeGreaterThanOrEqual(MIN_TOTAL_CASES);
});
