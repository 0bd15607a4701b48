/**
 * A JSON-type checker for client contracts: every field path a client reads, with the JSON
 * type it expects, checked against an answer, every mismatch named by its concrete path.
 *
 * Paths: `a.b` reads a key; `a[]` is every element of an array (at least one must exist, or
 * there is nothing to check); `a[]?` the same but an empty array is fine; `a{}` / `a{}?` is
 * every value of an object used as a map (`{"Lobby-1": 3}`). A leading `[]` reads a root array.
 *
 * Types: `string`, `number`, `integer`, `boolean`, `array`, `object`, `null`, `absent` (the key
 * is missing), joined with `|` (`string|null`, `number|absent`); a RegExp (a string matching
 * it); or an array of the literal values allowed (`['OK', 'WARN', 'FAIL']`).
 */
export type TypeSpec = string | RegExp | readonly (string | number | boolean | null)[];
export type Shape = Record<string, TypeSpec>;

const ABSENT: unique symbol = Symbol('absent');
type Found = unknown | typeof ABSENT;

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null', 'absent']);

type Step = { kind: 'key'; key: string } | { kind: 'each'; allowEmpty: boolean } | { kind: 'values'; allowEmpty: boolean };

function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  for (const part of path.split('.')) {
    const match = /^([^[\]{}]*)((?:\[\]\??|\{\}\??)*)$/.exec(part);
    if (!match) throw new Error(`shape path ${JSON.stringify(path)}: cannot parse ${JSON.stringify(part)}`);
    const [, key, suffixes] = match;
    if (key) steps.push({ kind: 'key', key });
    for (const suffix of suffixes!.match(/\[\]\??|\{\}\??/g) ?? []) {
      steps.push({ kind: suffix.startsWith('[') ? 'each' : 'values', allowEmpty: suffix.endsWith('?') });
    }
  }
  return steps;
}

function typeOf(value: Found): string {
  if (value === ABSENT) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function describe(value: Found): string {
  const type = typeOf(value);
  if (type === 'absent' || type === 'null') return type;
  const json = JSON.stringify(value);
  return `${type} ${json.length > 60 ? `${json.slice(0, 57)}...` : json}`;
}

function isPlainObject(value: Found): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function matchesName(name: string, value: Found): boolean {
  switch (name) {
    case 'absent':
      return value === ABSENT;
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return typeof value === name;
  }
}

function specText(spec: TypeSpec): string {
  if (spec instanceof RegExp) return `a string matching ${spec}`;
  if (Array.isArray(spec)) return `one of ${spec.map((v) => JSON.stringify(v)).join(', ')}`;
  return spec as string;
}

function matches(spec: TypeSpec, value: Found): boolean {
  if (spec instanceof RegExp) return typeof value === 'string' && spec.test(value);
  if (Array.isArray(spec)) return value !== ABSENT && spec.includes(value as string | number | boolean | null);
  return (spec as string).split('|').some((name) => {
    if (!TYPE_NAMES.has(name)) throw new Error(`unknown JSON type ${JSON.stringify(name)} in ${JSON.stringify(spec)}`);
    return matchesName(name, value);
  });
}

const join = (base: string, key: string) => (base === '' ? key : `${base}.${key}`);

/** Every mismatch of `value` against `shape`, one line each, in shape order. */
export function shapeProblems(value: unknown, shape: Shape): string[] {
  const problems = new Set<string>();
  for (const [path, spec] of Object.entries(shape)) {
    let frontier: { at: string; value: Found }[] = [{ at: '', value }];
    for (const step of parsePath(path)) {
      const next: { at: string; value: Found }[] = [];
      for (const { at, value: current } of frontier) {
        const where = at === '' ? '(root)' : at;
        if (step.kind === 'key') {
          if (current === ABSENT) {
            next.push({ at: join(at, step.key), value: ABSENT });
          } else if (!isPlainObject(current)) {
            problems.add(`${where}: expected object (to read "${step.key}"), got ${describe(current)}`);
          } else {
            next.push({ at: join(at, step.key), value: Object.hasOwn(current, step.key) ? current[step.key] : ABSENT });
          }
          continue;
        }
        if (step.kind === 'each') {
          if (!Array.isArray(current)) {
            problems.add(`${where}: expected array, got ${describe(current)}`);
          } else if (current.length === 0 && !step.allowEmpty) {
            problems.add(`${where}: expected a non-empty array (nothing to check of "${path}"), got []`);
          } else {
            current.forEach((element, i) => next.push({ at: `${at}[${i}]`, value: element }));
          }
          continue;
        }
        if (!isPlainObject(current)) {
          problems.add(`${where}: expected object (a map), got ${describe(current)}`);
        } else if (Object.keys(current).length === 0 && !step.allowEmpty) {
          problems.add(`${where}: expected a non-empty object (nothing to check of "${path}"), got {}`);
        } else {
          for (const [key, element] of Object.entries(current)) next.push({ at: `${at}{${JSON.stringify(key)}}`, value: element });
        }
      }
      frontier = next;
    }
    for (const { at, value: leaf } of frontier) {
      if (!matches(spec, leaf)) problems.add(`${at === '' ? '(root)' : at}: expected ${specText(spec)}, got ${describe(leaf)}`);
    }
  }
  return [...problems];
}

/** Throws one error naming `label` (the route) and every mismatching path. */
export function expectShape(value: unknown, shape: Shape, label: string): void {
  const problems = shapeProblems(value, shape);
  if (problems.length > 0) throw new Error(`${label}:\n  ${problems.join('\n  ')}`);
}

/**
 * A record whose fields are exactly these (no more, no fewer), each of its type (`a|b` as in
 * Shape): what a client's record type reads, and nothing it does not know.
 */
export function expectExactShape(value: unknown, types: Record<string, string>, label: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${label}: expected an object, got ${JSON.stringify(value)}`);
  const extra = Object.keys(value).filter((k) => !Object.hasOwn(types, k));
  const missing = Object.keys(types).filter((k) => !Object.hasOwn(value, k));
  if (extra.length > 0 || missing.length > 0) throw new Error(`${label}: ${[extra.length ? `unexpected keys ${extra.join(', ')}` : '', missing.length ? `missing keys ${missing.join(', ')}` : ''].filter(Boolean).join('; ')}`);
  expectShape(value, types, label);
}
