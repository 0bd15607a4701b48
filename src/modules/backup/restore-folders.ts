import { readdirSync } from 'node:fs';

/**
 * Every folder a restore works in beside its target starts with this: the staging tree
 * (`.svc-restore-<name>-<16 hex>`) and the old tree (`.svc-restore-old-<name>-<12 hex>`).
 * Kept apart from restore.ts so the start can look for leftovers without loading the restorer.
 */
export const RESTORE_FOLDER_PREFIX = '.svc-restore-';
export const OLD_PREFIX = `${RESTORE_FOLDER_PREFIX}old-`;
/**
 * The random parts differ in length (16 hex for staging, 12 for the old tree), so a staging dir of
 * a target named `old-x` can never be mistaken for the old tree of a target named `x`.
 */
export const STAGING_RE = /^\.svc-restore-(.+)-([0-9a-f]{16})$/;
export const OLD_RE = /^\.svc-restore-old-(.+)-([0-9a-f]{12})$/;

/** Whether `parent` holds a folder an interrupted restore may have left; cheap, run at every start. */
export function holdsRestoreLeftovers(parent: string): boolean {
  try {
    return readdirSync(parent).some((name) => name.startsWith(RESTORE_FOLDER_PREFIX));
  } catch {
    return false;
  }
}
