import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { O_DIRECTORY } from './rule';

let procOverride: boolean | null = null;
let procProbe: boolean | null = null;

/** Whether folders are used through /proc/self/fd (Linux with /proc mounted). */
export function usesProcFds(): boolean {
  if (procOverride !== null) return procOverride;
  if (procProbe !== null) return procProbe;
  procProbe = false;
  if (process.platform !== 'linux') return false;
  let fd: number | null = null;
  try {
    fd = openSync('/', constants.O_RDONLY | O_DIRECTORY);
    procProbe = statSync(`/proc/self/fd/${fd}`).ino === fstatSync(fd).ino;
  } catch {
    procProbe = false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return procProbe;
}

/** Tests: run the lstat-checked path of platforms without /proc (false), or go back to probing (null). */
export function overrideProcFds(value: boolean | null): void {
  procOverride = value;
}
