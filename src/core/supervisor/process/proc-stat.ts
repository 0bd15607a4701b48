import { readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat the supervisor reads. */
export interface ProcStat {
  /** R, S, D, Z, T, …: `Z` is a zombie waiting to be reaped. */
  state: string;
  ppid: number;
  pgrp: number;
}

/**
 * "pid (comm) S ppid pgrp session ...": comm may hold spaces and parens, so fields are counted
 * from the last ')'. Undefined when the process is gone (or this is not Linux).
 */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  return fields[0] && Number.isInteger(ppid) && Number.isInteger(pgrp) ? { state: fields[0], ppid, pgrp } : undefined;
}
