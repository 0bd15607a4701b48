/**
 * One form field described the way the API's TypeBox schema describes it (required, pattern,
 * length, integer range, enumeration, list of strings), so the browser refuses exactly what the
 * API would refuse and says so next to the field, before anything is sent. Pure code (no DOM):
 * the browser test imports the group and dedicated specs and holds them equal to the server's
 * schemas, so a limit changed on one side only fails a test.
 *
 * A form keeps every value as the text its control shows (a checkbox: a boolean); `toApi`
 * turns that text into the JSON value the API takes, `fromApi` the other way.
 */

interface Base {
  /** The control's label: its accessible name, the word an operator knows the field by. */
  label: string;
  /** A line under the control (units, what empty means). */
  hint?: string;
}

export interface TextSpec extends Base {
  kind: 'text';
  required?: boolean;
  /** The API's pattern; an empty value passes when the field is not required (the API's `'' | pattern` unions). */
  pattern?: string;
  /** Completes "<label> …" when the pattern fails. */
  patternMessage?: string;
  maxLength?: number;
  /** Checked as a JavaScript regular expression (the API compiles it with the same engine). */
  regex?: boolean;
  placeholder?: string;
}

export interface IntSpec extends Base {
  kind: 'int';
  /** Shown as required (a number without a default, e.g. a port); an empty number is refused either way. */
  required?: boolean;
  min: number;
  max: number;
}

export interface NumberSpec extends Base {
  kind: 'number';
  min: number;
  max: number;
  step: number;
}

export interface BoolSpec extends Base {
  kind: 'bool';
}

export interface ChoiceSpec extends Base {
  kind: 'choice';
  options: readonly string[];
  /** What the select shows for some options (an empty one: "The one the pack names"); the others show as they are. */
  labels?: Readonly<Record<string, string>>;
}

/** A list of strings, one a line in a text area (blank lines are dropped). */
export interface ListSpec extends Base {
  kind: 'list';
  maxItems: number;
  itemMaxLength: number;
  itemPattern?: string;
  patternMessage?: string;
}

export type FieldSpec = TextSpec | IntSpec | NumberSpec | BoolSpec | ChoiceSpec | ListSpec;
export type Specs = Readonly<Record<string, FieldSpec>>;

/** A titled group of fields in a form (RecordForm); the test reads it too, so it lives here, free of JSX. */
export interface FormSection {
  title: string;
  fields: readonly string[];
  /** Shut until opened (fields most operators leave alone); a problem inside opens it. */
  collapsed?: boolean;
}

/** What a control holds: its text, or a checkbox's state. */
export type RawValue = string | boolean;
export type RawValues = Record<string, RawValue>;
/** Field key → the message shown next to it. */
export type Problems = Record<string, string>;

const text = (raw: RawValue): string => (typeof raw === 'string' ? raw : '');

/** A pattern-checked single line loses surrounding spaces (a pasted name); free text keeps them. */
function textValue(spec: TextSpec, raw: RawValue): string {
  return spec.pattern ? text(raw).trim() : text(raw);
}

function listItems(raw: RawValue): string[] {
  return text(raw)
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '');
}

/** Why the API would refuse this value, in words naming the field; null when it passes. */
export function fieldProblem(spec: FieldSpec, raw: RawValue): string | null {
  switch (spec.kind) {
    case 'text': {
      const value = textValue(spec, raw);
      if (value === '') return spec.required ? `${spec.label} is required.` : null;
      if (spec.maxLength !== undefined && value.length > spec.maxLength) return `${spec.label} may be at most ${spec.maxLength} characters long.`;
      if (spec.pattern && !new RegExp(spec.pattern).test(value)) return `${spec.label} ${spec.patternMessage ?? `must match ${spec.pattern}`}.`;
      if (spec.regex) {
        try {
          new RegExp(value);
        } catch (error) {
          return `${spec.label} is not a valid regular expression: ${(error as Error).message}.`;
        }
      }
      return null;
    }
    case 'int':
    case 'number': {
      const value = text(raw).trim();
      if (value === '') return `${spec.label} is required.`;
      const n = Number(value);
      if (!Number.isFinite(n)) return `${spec.label} must be a number.`;
      if (spec.kind === 'int' && !Number.isInteger(n)) return `${spec.label} must be a whole number.`;
      if (n < spec.min || n > spec.max) return `${spec.label} must be between ${spec.min} and ${spec.max}.`;
      return null;
    }
    case 'bool':
      return null;
    case 'choice':
      return spec.options.includes(text(raw)) ? null : `${spec.label} must be one of ${spec.options.join(', ')}.`;
    case 'list': {
      const items = listItems(raw);
      if (items.length > spec.maxItems) return `${spec.label} takes at most ${spec.maxItems} lines.`;
      for (const [index, item] of items.entries()) {
        if (item.length > spec.itemMaxLength) return `${spec.label}: line ${index + 1} is longer than ${spec.itemMaxLength} characters.`;
        if (spec.itemPattern && !new RegExp(spec.itemPattern).test(item)) return `${spec.label}: line ${index + 1} ("${item}") ${spec.patternMessage ?? `must match ${spec.itemPattern}`}.`;
      }
      return null;
    }
  }
}

/** The JSON value the API takes for a value that passed `fieldProblem`. */
export function toApi(spec: FieldSpec, raw: RawValue): unknown {
  switch (spec.kind) {
    case 'text':
      return textValue(spec, raw);
    case 'int':
    case 'number':
      return Number(text(raw).trim());
    case 'bool':
      return raw === true;
    case 'choice':
      return text(raw);
    case 'list':
      return listItems(raw);
  }
}

/** The control's value for what the API answered. */
export function fromApi(spec: FieldSpec, value: unknown): RawValue {
  if (spec.kind === 'bool') return value === true;
  if (spec.kind === 'list') return Array.isArray(value) ? value.map(String).join('\n') : '';
  return value === undefined || value === null ? '' : String(value);
}

/** Every field's value for an API object (a missing field shows as empty). */
export function rawValues(specs: Specs, source: Record<string, unknown>): RawValues {
  return Object.fromEntries(Object.entries(specs).map(([key, spec]) => [key, fromApi(spec, source[key])]));
}

/**
 * The request body: every field named in `keys`, as the API takes it. `since` given (an edit),
 * only those whose value differs from it: the API's PUT changes what the body carries and keeps
 * the rest, so an edit never writes back a field someone else changed meanwhile.
 */
export function bodyOf(specs: Specs, values: RawValues, keys: readonly string[], since?: RawValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of keys) {
    const spec = specs[key];
    if (!spec) continue;
    const value = toApi(spec, values[key] ?? '');
    if (since && JSON.stringify(value) === JSON.stringify(toApi(spec, since[key] ?? ''))) continue;
    body[key] = value;
  }
  return body;
}
