import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readExitFile } from './exit-file';
import { isOurWrapper } from './pid-probe';
import { readProcessRecord } from './process-record';
import type { StateFiles } from './state-files';

/**
 * Readies a state dir for a fresh launch: refuses one whose recorded server still runs (a
 * second server on the same FIFO and log would garble both), clears the previous run's pid,
 * exit, record and sandbox files so none can be mistaken for this run's, and empties console.log.
 * The FIFO is kept: the wrapper reuses it.
 */
export function prepareStateDir(files: StateFiles): void {
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  const previous = readProcessRecord(files.record);
  // A recorded exit code means the previous server ended; its wrapper may still be finishing
  // (it exits right after the record), which is no reason to refuse a restart.
  const ended = readExitFile(files.exitFile) !== undefined;
  if (previous.ok && !ended && isOurWrapper(previous.record.wrapperPid, previous.record.marker)) {
    throw new Error(`${files.dir} is in use by running process ${previous.record.pid} (wrapper ${previous.record.wrapperPid}); stop or re-attach it first`);
  }
  for (const path of [files.record, files.pidFile, files.exitFile, `${files.exitFile}.tmp`, files.sandboxInfo]) rmSync(path, { force: true });
  writeFileSync(files.log, '');
}
