import { ApiError } from '../errors';

/**
 * Rejects text with a lone UTF-16 surrogate (JSON can carry "\ud800"; files and terminals
 * cannot): such a value would fail later, half-way through a write, so it fails here as a 400.
 */
export function requireWellFormedText(value: unknown, field = 'body'): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw new ApiError('VALIDATION_FAILED', `${field} must be valid Unicode text (it holds a lone surrogate)`);
    return;
  }
  if (Array.isArray(value)) return value.forEach((item, i) => requireWellFormedText(item, `${field}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) requireWellFormedText(inner, field === 'body' ? `body field "${key}"` : `${field}.${key}`);
  }
}
