import { readdirSync } from 'node:fs';

/**
 * Every folder a restore works in beside its target starts with this: the staging tree
 * (`.svc-restore-<name>-<16 hex>`) and the old tree (`.svc-restore-old-<name>-<12 hex>`).
 * Kept apart from restore.ts so the start can look for leftovers without loading the restorer.
 */
export const RESTORE_FOLDER_PREFIX = '.svc-restore-';

/** Whether `parent` holds a folder an interrupted restore may have left; cheap, run at every start. */
export function holdsRestoreLeftovers(parent: string): boolean {
  try {
    return readdirSync(parent).some((name) => name.startsWith(RESTORE_FOLDER_PREFIX));
  } catch {
    return false;
  }
}
