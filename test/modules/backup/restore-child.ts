/**
 * Runs one restore in its own process so restore.test.ts can SIGKILL it half way.
 * Usage: bun restore-child.ts <archive> <target>
 */
import { restoreArchive } from '../../../src/modules/backup/restore';

const [archive, target] = process.argv.slice(2);
if (!archive || !target) {
  console.error('usage: restore-child.ts <archive> <target>');
  process.exit(2);
}
const outcome = await restoreArchive(archive, target, { dryRun: false });
console.log(JSON.stringify(outcome));
