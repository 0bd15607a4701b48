import { expect } from 'bun:test';
import { ApiError } from '../../../src/errors';
import type { Grant, Group, Membership, PermPlayer, PermSnapshot, Scope } from '../../../src/modules/perms/types';

/**
 * Hand-built permission models for the pure tests: every value is fresh, because the resolver
 * indexes a group object once and relies on groups never being mutated.
 */

export type ScopePart = Partial<Scope>;

const scope = (part: ScopePart = {}): Scope => ({ server: part.server ?? '', world: part.world ?? '', expiresAt: part.expiresAt ?? null });

export const grant = (node: string, part?: ScopePart): Grant => ({ node, ...scope(part) });

export const member = (group: string, part?: ScopePart): Membership => ({ group: group.toLowerCase(), ...scope(part) });

export interface GroupSpec {
  weight?: number;
  priority?: number;
  parents?: string[];
  /** A plain string is an unscoped grant. */
  grants?: (string | Grant)[];
}

let nextId = 1;

export function group(name: string, spec: GroupSpec = {}, isDefault = false): Group {
  return {
    id: nextId++,
    name,
    key: name.toLowerCase(),
    isDefault,
    prefix: `[${name}]`,
    suffix: '',
    priority: spec.priority ?? 0,
    weight: spec.weight ?? 0,
    parents: (spec.parents ?? []).map((p) => p.toLowerCase()),
    grants: (spec.grants ?? []).map((g) => (typeof g === 'string' ? grant(g) : g)),
    meta: {},
  };
}

/** A snapshot of named groups; `defaultName` (any case) marks the default group, if given. */
export function snapshot(groups: Record<string, GroupSpec>, defaultName?: string): PermSnapshot {
  const defaultKey = defaultName?.toLowerCase();
  const map = new Map<string, Group>();
  for (const [name, spec] of Object.entries(groups)) map.set(name.toLowerCase(), group(name, spec, name.toLowerCase() === defaultKey));
  return { groups: map, defaultGroup: defaultKey };
}

export const UUID_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
export const UUID_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
export const UUID_C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';

/** A player in the given groups; a plain string is an unscoped membership. */
export function player(memberships: (string | Membership)[], uuid = UUID_A): PermPlayer {
  return { id: nextId++, uuid, name: 'Alice', memberships: memberships.map((m) => (typeof m === 'string' ? member(m) : m)), meta: {} };
}

/** Runs `work`, expects an ApiError with `code`, and returns it. */
export function expectApiError(work: () => unknown, code: string): ApiError {
  let thrown: unknown;
  try {
    work();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  expect((thrown as ApiError).errorCode).toBe(code);
  return thrown as ApiError;
}
