import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';

/**
 * `data/controller.json`: how to reach the controller running on this directory (its pid and
 * API URL, the real port even with `port = 0`). `svc update` reads it to hand the update to a
 * running controller. Written when the API listens, removed at a clean stop.
 */
export interface ControllerRuntime {
  pid: number;
  url: string;
  version: string;
}

const fileOf = (dataDir: string) => join(dataDir, 'controller.json');

export function writeControllerRuntime(dataDir: string, runtime: ControllerRuntime): void {
  writeFileAtomic(fileOf(dataDir), `${JSON.stringify(runtime)}\n`, { mode: 0o644, durable: false });
}

export function removeControllerRuntime(dataDir: string, pid: number): void {
  if (readControllerRuntime(dataDir)?.pid === pid) rmSync(fileOf(dataDir), { force: true });
}

/** The runtime note when its process is still alive; null otherwise. */
export function readControllerRuntime(dataDir: string): ControllerRuntime | null {
  const file = fileOf(dataDir);
  if (!existsSync(file)) return null;
  try {
    const note = JSON.parse(readFileSync(file, 'utf8')) as Partial<ControllerRuntime>;
    // kill(0|-1, 0) would address a process group or everyone: only a real pid counts.
    if (typeof note.pid !== 'number' || !Number.isSafeInteger(note.pid) || note.pid <= 0 || typeof note.url !== 'string') return null;
    return processExists(note.pid) ? { pid: note.pid, url: note.url, version: String(note.version ?? '') } : null;
  } catch {
    return null;
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is another user's (svc update run by root for a controller running as svc).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
