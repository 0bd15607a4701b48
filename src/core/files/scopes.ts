import { join } from 'node:path';
import { ApiError } from '../../errors';

export const SCOPE_NAMES = ['templates', 'services', 'groups'] as const;
export type ScopeName = (typeof SCOPE_NAMES)[number];

/** One folder the files API exposes. */
export interface FileScope {
  name: ScopeName;
  /** Absolute folder; nothing outside it is ever read, written or deleted. */
  root: string;
  /** Why writes are refused (READ_ONLY), or null when the scope is writable. */
  readOnly: string | null;
}

/**
 * The three scopes: templates and service work dirs are edited here; group configs are
 * read-only because the group routes validate them and keep the group store in step.
 */
export function fileScopes(paths: { templates: string; services: string; config: string }): ReadonlyMap<ScopeName, FileScope> {
  return new Map<ScopeName, FileScope>([
    ['templates', { name: 'templates', root: paths.templates, readOnly: null }],
    ['services', { name: 'services', root: paths.services, readOnly: null }],
    [
      'groups',
      {
        name: 'groups',
        root: join(paths.config, 'groups'),
        readOnly: 'the groups scope is read-only: change groups through the group routes (POST /api/groups, PUT and DELETE /api/groups/{name}), which validate them and apply the change',
      },
    ],
  ]);
}

/** The scope of that name, or INVALID_SCOPE naming the valid ones. */
export function scopeNamed(scopes: ReadonlyMap<ScopeName, FileScope>, name: string): FileScope {
  const scope = scopes.get(name as ScopeName);
  if (!scope) throw new ApiError('INVALID_SCOPE', `unknown scope ${JSON.stringify(name.slice(0, 64))}: use one of ${SCOPE_NAMES.join(', ')}`);
  return scope;
}

/** Refuses a write to a read-only scope with READ_ONLY (403). */
export function assertWritable(scope: FileScope): void {
  if (scope.readOnly) throw new ApiError('READ_ONLY', scope.readOnly);
}
