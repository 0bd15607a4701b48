import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessHandle } from '../supervisor/process';
import { LOCAL_NODE, type ServiceRecord } from './registry';

/** `app` is the server's own logs/latest.log; `stdout` is the process output the supervisor captured. */
export type LogSource = 'app' | 'stdout';

const LOG_TAIL_BYTES = 4 * 1024 * 1024;

/**
 * The last `count` lines of a service's log, reading at most the last few MB of it. A service
 * on an agent has no files here: both sources give the console lines the agent relayed.
 */
export function serviceLogLines(record: Pick<ServiceRecord, 'workDir' | 'nodeId'>, handle: Pick<ProcessHandle, 'logFile' | 'lastLines'> | null, source: LogSource, count: number): string[] {
  if (record.nodeId !== LOCAL_NODE) return handle?.lastLines(count) ?? [];
  const file = source === 'app' ? join(record.workDir, 'logs', 'latest.log') : (handle?.logFile ?? join(record.workDir, '.svc', 'console.log'));
  return tail(file, count);
}

function tail(file: string, count: number): string[] {
  if (!existsSync(file)) return [];
  const size = statSync(file).size;
  const text = size <= LOG_TAIL_BYTES ? readFileSync(file, 'utf8') : readTail(file, size);
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-count);
}

function readTail(file: string, size: number): string {
  const buffer = Buffer.alloc(LOG_TAIL_BYTES);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, LOG_TAIL_BYTES, size - LOG_TAIL_BYTES);
  } finally {
    closeSync(fd);
  }
  const text = buffer.toString('utf8');
  return text.slice(text.indexOf('\n') + 1);
}
