import { existsSync, readSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { ProcessHandle } from '../supervisor/process';
import { openRegular, RefusedEntry, TenantTree, type OpenedFile } from '../tenancy/fs';
import { LOCAL_NODE, type ServiceRecord } from './registry';

/** `app` is the server's own logs/latest.log; `stdout` is the process output the supervisor captured. */
export type LogSource = 'app' | 'stdout';

const LOG_TAIL_BYTES = 4 * 1024 * 1024;

/**
 * The last `count` lines of a service's log, reading at most the last few MB of it. A service
 * on an agent has no files here: both sources give the console lines the agent relayed.
 *
 * The work dir is the server's: a log file there is opened by the tenant rule
 * (tenancy/fs), so a `logs/latest.log` planted as a link (to /etc/shadow), a FIFO
 * or a hard link gives no lines rather than another file's, and never blocks the caller.
 */
export function serviceLogLines(
  record: Pick<ServiceRecord, 'name' | 'workDir' | 'nodeId'>,
  handle: Pick<ProcessHandle, 'logFile' | 'lastLines'> | null,
  source: LogSource,
  count: number,
  runDir?: string,
): string[] {
  if (record.nodeId !== LOCAL_NODE) return handle?.lastLines(count) ?? [];
  const file = source === 'app' ? join(record.workDir, 'logs', 'latest.log') : (handle?.logFile ?? endedConsoleLog(record, runDir));
  const opened = openLog(record.workDir, file);
  if (opened === null) return [];
  try {
    const lines = tailText(opened).split(/\r?\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-count);
  } finally {
    opened.close();
  }
}

/**
 * The captured output of a service that ended while no handle was kept (it ended while the
 * controller was away): in its state dir under `runDir` (`<data>/run/<name>/`), or, for a
 * launch by an earlier version, in `<workDir>/.svc`.
 */
function endedConsoleLog(record: Pick<ServiceRecord, 'name' | 'workDir'>, runDir: string | undefined): string {
  const current = runDir === undefined ? undefined : join(runDir, record.name, 'console.log');
  return current !== undefined && existsSync(current) ? current : join(record.workDir, '.svc', 'console.log');
}

/** The log file, opened without following links or waiting on a FIFO; null when absent or refused. */
function openLog(workDir: string, file: string): OpenedFile | null {
  const rel = relative(workDir, file);
  try {
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) {
      const tree = TenantTree.open(workDir);
      if (tree === null) return null;
      try {
        return tree.openRead(rel.split(sep).join('/'));
      } finally {
        tree.close();
      }
    }
    return openRegular(file);
  } catch (error) {
    if (error instanceof RefusedEntry) return null;
    throw error;
  }
}

/** The whole file up to LOG_TAIL_BYTES; past that its last LOG_TAIL_BYTES from the first whole line. */
function tailText(file: OpenedFile): string {
  const size = file.stats.size;
  const start = Math.max(0, size - LOG_TAIL_BYTES);
  const buffer = Buffer.alloc(size - start);
  let filled = 0;
  while (filled < buffer.length) {
    const read = readSync(file.fd, buffer, filled, buffer.length - filled, start + filled);
    if (read === 0) break;
    filled += read;
  }
  const text = buffer.subarray(0, filled).toString('utf8');
  return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
}
