import type { TSchema } from '@sinclair/typebox';
import { describeSchema, showValue } from '../describe-schema';

interface ValueErrorLike {
  path?: string;
  message?: string;
  summary?: string;
  schema?: TSchema;
  value?: unknown;
}

interface ValidationErrorLike {
  type?: string;
  all?: ValueErrorLike[];
  value?: unknown;
}

const WHERE: Record<string, string> = { body: 'body', query: 'query parameter', params: 'path parameter' };

/**
 * Turns Elysia's ValidationError (its request part as `type`, the schema errors as `all`) into one sentence naming the field and what it accepts:
 * `body field "minInstances" must be an integer ≥ 0, got "x"`.
 */
export function validationMessage(error: ValidationErrorLike): string {
  const first = error.all?.[0];
  const where = WHERE[error.type ?? ''] ?? 'request';
  if (!first) return `invalid ${where}`;
  const field = (first.path ?? '').replace(/^\//, '').replace(/\//g, '.');
  const missing = first.message === 'Expected required property' || (first.value === undefined && field !== '');
  if (field === '') {
    if (error.type === 'body' && (error.value === undefined || error.value === '')) return 'request body is required (send JSON with Content-Type: application/json)';
    return `${where === 'body' ? 'request body' : where} must be ${describeSchema(first.schema)}`;
  }
  if (missing) return `${where} "${field}" is required`;
  if (first.message?.startsWith('Unexpected property')) return `${where} "${field}" is not allowed`;
  return `${where} "${field}" must be ${describeSchema(first.schema)}, got ${showValue(first.value)}`;
}
