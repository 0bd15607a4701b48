import { readFileSync } from 'node:fs';

/** Resident memory of a process in MB from the OS process table (VmRSS); 0 when unknown. */
export function residentMemoryMb(pid: number | null): number {
  if (pid === null || process.platform !== 'linux') return 0;
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}
