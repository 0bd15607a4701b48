import { basename, dirname, relative } from 'node:path';
import type { Paths } from '../config/paths';
import type { Logger } from '../log';
import { checkDatabasePresence } from './previous-run';
import { sweepAtomicTempFiles } from './temp-files';

/** Folders under data/ that hold bulk content rather than svc's own small files. */
const BULK = ['backups', 'modpacks', 'resourcepacks'];

/**
 * The storage part of a start, before the first file is written: data/ must be usable and must
 * not have lost its database (previous-run.ts; a ConfigError otherwise), then the temp files of
 * atomic writes a killed process left in svc's folders (the working directory's own entries,
 * config/ and data/) are removed and named in the log.
 */
export function prepareStorage(options: { dir: string; configPath: string; paths: Paths; dbFile: string; log: Logger }): void {
  const { dir, configPath, paths, dbFile, log } = options;
  checkDatabasePresence(paths.data, dbFile);
  const removed = sweepAtomicTempFiles([
    { dir: dirname(configPath), depth: 0, only: basename(configPath) },
    { dir, depth: 0 },
    { dir: paths.config, depth: 6 },
    { dir: paths.data, depth: 4, skip: BULK },
  ]);
  if (removed.length > 0) {
    log.info({ area: 'storage', files: removed.map((file) => relative(dir, file)) }, `removed ${removed.length} temp file(s) of writes a killed process left unfinished`);
  }
}
