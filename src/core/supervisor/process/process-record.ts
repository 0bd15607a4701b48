import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { errnoCode } from './errno';

/** process.json: what a later controller needs to re-attach. */
export interface ProcessRecord {
  name: string;
  /** Random id in the wrapper's command line: proves a live pid is still our wrapper. */
  marker: string;
  wrapperPid: number;
  pid: number;
  /** ISO 8601. */
  startedAt: string;
  logFile: string;
  fifo: string;
  exitFile: string;
}

/** Atomic: a reader sees the old file or the new one, never half of one. */
export function writeProcessRecord(path: string, record: ProcessRecord): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, path);
}

export type RecordRead = { ok: true; record: ProcessRecord } | { ok: false; reason: string };

export function readProcessRecord(path: string): RecordRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, reason: errnoCode(error) === 'ENOENT' ? `no ${path}` : `cannot read ${path}: ${String(error)}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: `${path} is not valid JSON` };
  }
  const record = asRecord(value);
  return record ? { ok: true, record } : { ok: false, reason: `${path} is missing fields or has wrong types` };
}

function asRecord(value: unknown): ProcessRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v: Record<string, unknown> = { ...value };
  const str = (key: string): string | undefined => {
    const field = v[key];
    return typeof field === 'string' ? field : undefined;
  };
  const pid = (key: string): number | undefined => {
    const field = v[key];
    return typeof field === 'number' && Number.isInteger(field) && field > 0 ? field : undefined;
  };
  const [name, marker, startedAt, logFile, fifo, exitFile] = ['name', 'marker', 'startedAt', 'logFile', 'fifo', 'exitFile'].map(str);
  const [wrapperPid, serverPid] = [pid('wrapperPid'), pid('pid')];
  if (name === undefined || marker === undefined || startedAt === undefined || logFile === undefined) return undefined;
  if (fifo === undefined || exitFile === undefined || wrapperPid === undefined || serverPid === undefined) return undefined;
  return { name, marker, wrapperPid, pid: serverPid, startedAt, logFile, fifo, exitFile };
}
