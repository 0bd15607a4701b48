/**
 * Uploading what gather.ts collected into one folder: first the folders it needs, shallow to
 * deep (one request each; one that exists already answers 409 and is fine), then the files,
 * a few at a time, each with its own progress and its own error. A file is never sent when
 * its folder could not be made, or when it is over the API's upload limit.
 */
import { ApiFailure } from '../../api';
import { formatBytes } from './format';
import { baseName, joinPath, parentOf, type ScopeName } from './paths';
import { makeFolder, MAX_UPLOAD_BYTES, uploadFile } from './requests';
import type { Gathered } from './gather';

export type UploadState = 'waiting' | 'uploading' | 'done' | 'failed';

export interface UploadItem {
  id: number;
  scope: ScopeName;
  /** The file's path in its scope, where it is written. */
  path: string;
  size: number;
  sent: number;
  state: UploadState;
  /** Why it failed, in the API's words. */
  message: string | null;
}

/** Files in flight at once: enough to hide each request's latency, few enough to keep per-file progress moving. */
const PARALLEL = 3;

let nextId = 1;

/** The items of a new run (all waiting), for the panel to show at once. */
export function itemsFor(scope: ScopeName, dir: string, gathered: Gathered): UploadItem[] {
  return gathered.sources.map((s) => ({ id: nextId++, scope, path: joinPath(dir, s.rel), size: s.file.size, sent: 0, state: 'waiting', message: null }));
}

/** Every folder the run needs, relative to the target folder, each after its parent. */
export function foldersNeeded(gathered: Gathered): string[] {
  const needed = new Set<string>();
  const add = (folder: string) => {
    for (let f = folder; f !== '' && !needed.has(f); f = parentOf(f)) needed.add(f);
  };
  for (const source of gathered.sources) add(parentOf(source.rel));
  for (const folder of gathered.folders) add(folder);
  return [...needed].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs the upload; `items` are the run's (itemsFor, same order as gathered.sources) and are
 * updated in place, `changed` told after each update. `existing` names folders known to be
 * there already (the target folder's listing), which are not asked for again.
 */
export async function runUpload(scope: ScopeName, dir: string, gathered: Gathered, items: UploadItem[], existing: ReadonlySet<string>, changed: () => void): Promise<void> {
  const failedFolders = new Map<string, string>();
  for (const folder of foldersNeeded(gathered)) {
    if (existing.has(folder)) continue;
    const parentFailure = failedFolders.get(parentOf(folder));
    if (parentFailure) {
      failedFolders.set(folder, parentFailure);
      continue;
    }
    try {
      await makeFolder(scope, joinPath(dir, folder));
    } catch (error) {
      // 409: something by that name is there; a folder is what is needed, a file shows as the uploads' own refusal.
      if (!(error instanceof ApiFailure && error.status === 409)) failedFolders.set(folder, `The folder ${joinPath(dir, folder)} could not be created: ${messageOf(error)}`);
    }
  }

  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await uploadOne(scope, gathered.sources[index]!.file, items[index]!, failedFolders.get(parentOf(gathered.sources[index]!.rel)), changed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}

async function uploadOne(scope: ScopeName, file: File, item: UploadItem, folderFailure: string | undefined, changed: () => void): Promise<void> {
  const fail = (message: string) => {
    item.state = 'failed';
    item.message = message;
    changed();
  };
  if (folderFailure) return fail(folderFailure);
  if (file.size > MAX_UPLOAD_BYTES) return fail(`${formatBytes(file.size)} is over the controller’s upload limit of ${formatBytes(MAX_UPLOAD_BYTES)}.`);
  item.state = 'uploading';
  changed();
  try {
    await uploadFile(scope, parentOf(item.path), baseName(item.path), file, (sent) => {
      item.sent = sent;
      changed();
    });
    item.state = 'done';
    item.sent = item.size;
    changed();
  } catch (error) {
    fail(messageOf(error));
  }
}
