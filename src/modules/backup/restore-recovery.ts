import { lstatSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { removeTreeSync } from './remove-tree';
import { OLD_RE, STAGING_RE } from './restore-folders';

/**
 * After a crash (call before anything restores into `parent`): removes `.svc-restore-<name>-*`
 * staging dirs under `parent`; if `.svc-restore-old-<name>-*` exists while `<name>` does not, renames
 * it back (the crash fell between the two renames); an old tree whose `<name>` exists is the leftover
 * of a finished swap and is removed. Returns what it did as sentences for the log.
 */
export function recoverInterruptedRestores(parent: string): string[] {
  const done: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return done;
  }
  for (const name of names.sort()) {
    const path = join(parent, name);
    const old = OLD_RE.exec(name);
    try {
      if (old) {
        const original = join(parent, old[1] ?? '');
        if (lstatSync(original, { throwIfNoEntry: false }) === undefined) {
          renameSync(path, original);
          done.push(`Restore recovery: put back ${original} from ${name} (a restore was interrupted between its renames)`);
        } else {
          removeTreeSync(path);
          done.push(`Restore recovery: removed ${name}, the old tree left behind by a finished restore of ${original}`);
        }
        continue;
      }
      if (STAGING_RE.test(name)) {
        removeTreeSync(path);
        done.push(`Restore recovery: removed the staging directory ${path} of an interrupted restore`);
      }
    } catch (error) {
      done.push(`Restore recovery: could not handle ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return done;
}
