import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { errnoCode } from './errno';
import { readExitFile } from './exit-file';
import { RING_CAPACITY } from './line-fanout';
import { createPosixHandle } from './posix-handle';
import { isOurWrapper, pidAlive } from './pid-probe';
import { readProcessRecord } from './process-record';
import { readLogTail } from './read-log-tail';
import { stateFiles } from './state-files';
import type { ReattachOptions, ReattachResult } from './types';

/**
 * Finds the process a previous controller launched with this state dir.
 *
 *   exit-code recorded ─────────────────────────► ended with that code (launch() clears stale
 *                                                 records, and the wrapper may still be finishing)
 *   wrapper alive, marker in its command line ──► attached (console from the log's current end,
 *                                                 or options.fromOffset; earlier lines seed lastLines)
 *   wrapper pid alive without the marker ───────► unknown (recycled pid; nothing says how ours ended)
 *   wrapper dead, server pid alive, no record ──► unknown (the wrapper was SIGKILLed; a server may
 *                                                 still run, or the pid was recycled: cannot tell)
 *   wrapper and server dead, no record ─────────► ended, code null
 */
export async function reattach(stateDir: string, options: ReattachOptions = {}): Promise<ReattachResult> {
  if (process.platform === 'win32') return { kind: 'unknown', reason: 'processes do not survive the controller on Windows' };
  const files = stateFiles(resolve(stateDir));
  const read = readProcessRecord(files.record);
  if (!read.ok) return { kind: 'unknown', reason: read.reason };
  const { record } = read;
  const code = readExitFile(files.exitFile);
  if (code !== undefined) return { kind: 'ended', exit: { code } };

  if (isOurWrapper(record.wrapperPid, record.marker)) {
    let size: number;
    try {
      size = statSync(files.log).size;
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
      size = 0;
    }
    const startOffset = Math.max(0, Math.min(options.fromOffset ?? size, size));
    const seed = startOffset > 0 ? readLogTail(files.log, startOffset, RING_CAPACITY) : undefined;
    return { kind: 'attached', handle: createPosixHandle({ record, files, startOffset, seed, logBound: options.logBound, notice: options.notice }) };
  }

  if (pidAlive(record.wrapperPid)) {
    return { kind: 'unknown', reason: `pid ${record.wrapperPid} is alive but is not ${record.name}'s wrapper (pid recycled?), and no exit code was recorded` };
  }
  if (pidAlive(record.pid)) {
    return { kind: 'unknown', reason: `${record.name}'s wrapper is gone without recording an exit, but pid ${record.pid} is alive: an orphaned server or a recycled pid` };
  }
  return { kind: 'ended', exit: { code: null } };
}
