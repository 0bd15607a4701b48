import { ApiError } from '../../errors';

/**
 * Fields of a group or dedicated service that choose what runs on the host: the command, the
 * Java binary, and the JVM's arguments (`-XX:OnError=`, `-javaagent:` run anything). Only the
 * operator (holdsAdmin) may set or change them over the API; a write that carries them
 * unchanged (the reference dashboard's form saves every field) passes for anyone it admits.
 */
export const HOST_FIELDS = ['startCommand', 'javaPath', 'jvmArgs'] as const;
export type HostField = (typeof HOST_FIELDS)[number];

type HostValues = Partial<Record<HostField, string | readonly string[]>>;

/** The host fields `next` sets to something other than `current` (absent from `next`: unchanged). */
export function changedHostFields(current: Readonly<Record<HostField, string | readonly string[]>>, next: HostValues): HostField[] {
  return HOST_FIELDS.filter((field) => next[field] !== undefined && !sameValue(current[field], next[field]!));
}

/** Refuses a non-admin write that changes a host field, naming the fields (403 FORBIDDEN). */
export function requireAdminForHostFields(isAdmin: boolean, changed: readonly HostField[], what: string): void {
  if (isAdmin || changed.length === 0) return;
  const list = changed.map((f) => `"${f}"`).join(', ');
  throw new ApiError(
    'FORBIDDEN',
    `${list} of ${what} choose${changed.length === 1 ? 's' : ''} what runs on the host: only an admin token or an admin dashboard session may set ${changed.length === 1 ? 'it' : 'them'} (or edit the TOML file); leave ${changed.length === 1 ? 'it' : 'them'} out or unchanged`,
  );
}

function sameValue(a: string | readonly string[], b: string | readonly string[]): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
