import { ApiError } from '../../errors';
import type { Scope } from './types';

export const SCOPE_NAME_MAX = 128;
export const SCOPE_NAME_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
const SCOPE_NAME_RE = new RegExp(SCOPE_NAME_PATTERN);

/** A scope as callers give it: names, and an ISO-8601 time (the API) or epoch ms (already parsed). */
export interface ScopeInput {
  server?: string | null;
  world?: string | null;
  expiresAt?: string | number | null;
}

/** A date, a time and a zone (Z or ±hh:mm): Date.parse alone takes local-time and free-form text. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const invalid = (message: string) => new ApiError('VALIDATION_FAILED', message);

function name(field: 'server' | 'world', value: string | null | undefined): string {
  const trimmed = (value ?? '').trim();
  if (trimmed === '') return '';
  if (!SCOPE_NAME_RE.test(trimmed)) throw invalid(`${field} "${trimmed}" is not a ${field} name (1–${SCOPE_NAME_MAX} of letters, digits and _ . : -)`);
  return trimmed;
}

/**
 * Checks a scope and gives its stored form. An expiry must be a real time in the future:
 * a grant that is already over would be deleted by the next sweep and never apply.
 */
export function parseScope(input: ScopeInput, now: number): Scope {
  const scope: Scope = { server: name('server', input.server), world: name('world', input.world), expiresAt: null };
  const raw = input.expiresAt;
  if (raw === undefined || raw === null || raw === '') return scope;
  if (typeof raw === 'string' && !ISO_TIME.test(raw)) throw invalid(`expiresAt "${raw}" is not an ISO-8601 time with a zone (like 2026-12-31T23:59:00Z)`);
  const at = typeof raw === 'number' ? raw : Date.parse(raw);
  if (!Number.isFinite(at)) throw invalid(`expiresAt "${raw}" is not an ISO-8601 time (like 2026-12-31T23:59:00Z)`);
  if (at <= now) throw invalid(`expiresAt ${new Date(at).toISOString()} is not in the future`);
  return { ...scope, expiresAt: at };
}

/** The scope as the API shows it: only what is set. */
export function scopeView(scope: Scope): { server?: string; world?: string; expiresAt?: string } {
  return {
    ...(scope.server ? { server: scope.server } : {}),
    ...(scope.world ? { world: scope.world } : {}),
    ...(scope.expiresAt !== null ? { expiresAt: new Date(scope.expiresAt).toISOString() } : {}),
  };
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Console durations: `30m`, `12h`, `7d`, `2w`, or combined (`1d12h`). Undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const parts = text.toLowerCase().match(/^(?:\d+[smhdw])+$/) ? text.toLowerCase().match(/\d+[smhdw]/g) : null;
  if (!parts) return undefined;
  let ms = 0;
  for (const part of parts) ms += Number(part.slice(0, -1)) * UNIT_MS[part.slice(-1)]!;
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
}

/** A scope written by hand, for messages and the audit: "server=Lobby-1 world=nether until 2026-…". */
export function describeScope(scope: Scope): string {
  const parts = [scope.server && `server=${scope.server}`, scope.world && `world=${scope.world}`, scope.expiresAt !== null && `until ${new Date(scope.expiresAt).toISOString()}`];
  return parts.filter(Boolean).join(' ');
}
