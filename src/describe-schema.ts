import type { TSchema } from '@sinclair/typebox';

/**
 * Says in words what a schema accepts, for error messages a person can act on:
 * "an integer between 0 and 65535", "one of "sqlite"", "a string matching ^\d+[MmGg]$".
 */
export function describeSchema(schema: TSchema | undefined): string {
  if (!schema) return 'a valid value';
  const s = schema as Record<string, unknown> & TSchema;
  if (Array.isArray(s.anyOf)) {
    const options = s.anyOf as TSchema[];
    const literals = options.filter((o) => 'const' in o).map((o) => JSON.stringify(o.const));
    if (literals.length === options.length) return `one of ${literals.join(', ')}`;
    // t.Integer is [string spelling an integer, integer] (http/t.ts): describe the number.
    const numeric = options.find((o) => o.type === 'integer' || o.type === 'number');
    if (numeric) return describeSchema(numeric);
    return options.map(describeSchema).join(' or ');
  }
  if ('const' in s) return JSON.stringify(s.const);
  switch (s.type) {
    case 'integer':
    case 'number':
      return describeNumber(s.type === 'integer' ? 'an integer' : 'a number', s);
    case 'string':
      return describeString(s);
    case 'boolean':
      return 'true or false';
    case 'array': {
      const items = s.items as TSchema | undefined;
      const base = items ? `a list of ${plural(describeSchema(items))}` : 'a list';
      if (typeof s.maxItems === 'number') return `${base} with at most ${s.maxItems} entries`;
      return base;
    }
    case 'object':
      return 'an object';
    case 'null':
      return 'null';
    default:
      return 'a valid value';
  }
}

function describeNumber(base: string, s: Record<string, unknown>): string {
  const min = s.minimum as number | undefined;
  const max = s.maximum as number | undefined;
  if (min !== undefined && max !== undefined) return `${base} between ${min} and ${max}`;
  if (min !== undefined) return min === 0 ? `${base} ≥ 0` : `${base} ≥ ${min}`;
  if (max !== undefined) return `${base} ≤ ${max}`;
  return base;
}

function describeString(s: Record<string, unknown>): string {
  if (typeof s.pattern === 'string') return `a string matching ${s.pattern}`;
  if (typeof s.format === 'string') return `a string in ${s.format} format`;
  const min = s.minLength as number | undefined;
  const max = s.maxLength as number | undefined;
  if (min !== undefined && max !== undefined) return `a string of ${min} to ${max} characters`;
  if (max !== undefined) return `a string of at most ${max} characters`;
  if (min !== undefined && min > 0) return `a non-empty string`;
  return 'a string';
}

function plural(phrase: string): string {
  return phrase.replace(/^an? /, '').replace(/^(\w+)/, '$1s');
}

/** A short rendering of an offending value, never longer than 60 characters. */
export function showValue(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
