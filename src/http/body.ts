import { KindGuard, type TObject, type TSchema } from '@sinclair/typebox';
import { ApiError } from '../errors';
import { CLOSED_KEYWORD } from './schemas';

/** No API body nests deeper; deeper input only buys an attacker quadratic validation work. */
export const MAX_JSON_DEPTH = 32;

const tooDeep = () => new ApiError('VALIDATION_FAILED', `request body nests deeper than ${MAX_JSON_DEPTH} levels`);

/**
 * Reads and decodes a request body for a route: at most `limit` bytes (413 past it, checked
 * while streaming), JSON for JSON or untyped bodies, form and text as such, anything else
 * refused. Returns undefined for an empty body so validation reports what is missing.
 */
export async function parseBody(request: Request, limit: number, schema: TSchema | undefined): Promise<unknown> {
  const text = await readLimited(request, limit);
  if (text.length === 0) return undefined;
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json') || type === '') return parseJson(text, schema);
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  // A route that takes a JSON object says so; text is only ever meant for text bodies.
  if (type.startsWith('text/')) {
    if (schema?.type === 'object') throw new ApiError('VALIDATION_FAILED', `Content-Type ${type} cannot carry this route's JSON object: send application/json`);
    return text;
  }
  throw new ApiError('VALIDATION_FAILED', `unsupported Content-Type ${type}: send application/json`);
}

function parseJson(text: string, schema: TSchema | undefined): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep();
    throw new ApiError('VALIDATION_FAILED', `request body is not valid JSON: ${(error as Error).message}`);
  }
  if (nestingExceeds(value, MAX_JSON_DEPTH)) throw tooDeep();
  // Bodies are JSON objects; say so plainly rather than letting a bare null read as "no body".
  if ((typeof value !== 'object' || value === null || Array.isArray(value)) && schema?.type === 'object') {
    throw new ApiError('VALIDATION_FAILED', `request body must be a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)?.slice(0, 40)}`);
  }
  refuseUnknownKeys(schema, value);
  if (schema) dropNullOptionals(schema, value);
  return value;
}

/**
 * `null` for an optional object property (`"sign": null` in a patch) means the same as leaving
 * it out: removed from the freshly parsed body, at every depth, before Elysia validates it.
 */
function dropNullOptionals(schema: TSchema, value: unknown): void {
  if (KindGuard.IsArray(schema)) {
    if (Array.isArray(value)) for (const item of value) dropNullOptionals(schema.items, item);
    return;
  }
  if (!KindGuard.IsObject(schema) || typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  const required = schema.required ?? [];
  for (const key of Object.keys(record)) {
    const property = schema.properties[key];
    if (property === undefined) continue;
    if (record[key] === null && KindGuard.IsObject(property) && !required.includes(key)) delete record[key];
    else dropNullOptionals(property, record[key]);
  }
}

/**
 * A body schema made with `closedObject` (schemas.ts) refuses keys it does not list, by name:
 * validation would drop them silently (mirror.ts), so a misspelt optional key such
 * as `expiresAt` would pass unnoticed. Other schemas keep ignoring unknown keys (clients such
 * as the dashboard send extra fields).
 */
function refuseUnknownKeys(schema: TSchema | undefined, value: unknown): void {
  if (schema?.[CLOSED_KEYWORD] !== true) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const known = (schema as TObject).properties;
  const extra = Object.keys(value).find((key) => !Object.hasOwn(known, key));
  if (extra !== undefined) throw new ApiError('VALIDATION_FAILED', `body "${extra}" is not allowed (accepted: ${Object.keys(known).join(', ')})`);
}

/** True when a parsed JSON value nests arrays/objects deeper than `limit` (checked without recursion). */
export function nestingExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** Reads a request body as text, failing with 413 as soon as it passes the limit. */
async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
