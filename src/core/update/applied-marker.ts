import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';

/**
 * The note an updating controller leaves for the process that replaces it
 * (`data/update-applied.json`): the new process publishes SVC_UPDATE_APPLIED from it once.
 */
export interface AppliedUpdate {
  oldVersion: string;
  newVersion: string;
  at: string;
}

export function markerFile(dataDir: string): string {
  return join(dataDir, 'update-applied.json');
}

export function writeAppliedMarker(dataDir: string, update: Omit<AppliedUpdate, 'at'>): void {
  writeFileAtomic(markerFile(dataDir), `${JSON.stringify({ ...update, at: new Date().toISOString() })}\n`);
}

/**
 * The update this process completes, taken (the file is removed) so it is announced once.
 * Null when there is none, or when the note names another version than this one (the exec
 * failed and an older binary started instead: nothing was applied).
 */
export function takeAppliedMarker(dataDir: string, runningVersion: string): AppliedUpdate | null {
  const file = markerFile(dataDir);
  if (!existsSync(file)) return null;
  let note: Partial<AppliedUpdate> | null = null;
  try {
    note = JSON.parse(readFileSync(file, 'utf8')) as Partial<AppliedUpdate>;
  } catch {
    note = null;
  }
  rmSync(file, { force: true });
  if (!note || typeof note.oldVersion !== 'string' || note.newVersion !== runningVersion) return null;
  return { oldVersion: note.oldVersion, newVersion: note.newVersion, at: String(note.at ?? '') };
}
