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
    if (typeof note.pid !== 'number' || typeof note.url !== 'string') return null;
    process.kill(note.pid, 0);
    return { pid: note.pid, url: note.url, version: String(note.version ?? '') };
  } catch {
    return null;
  }
}
