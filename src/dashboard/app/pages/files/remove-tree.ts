/**
 * Deleting a folder with everything in it. The API deletes only files and empty folders (409
 * for a folder with entries), so the page walks the folder through listings and deletes from
 * the bottom up: every file, then each folder after the folders inside it.
 */
import { listFolder, removeEntry, type FileEntry } from './requests';
import type { ScopeName } from './paths';

/** Paths to delete, in an order the API accepts (a folder after its content). */
export async function deletionOrder(scope: ScopeName, entry: FileEntry): Promise<string[]> {
  if (!entry.isDirectory) return [entry.path];
  const files: string[] = [];
  const folders: string[] = [];
  const visit = async (path: string) => {
    const listing = await listFolder(scope, path);
    for (const child of listing.entries) {
      if (child.isDirectory) await visit(child.path);
      else files.push(child.path);
    }
    folders.push(path); // after its sub-folders: post-order
  };
  await visit(entry.path);
  return [...files, ...folders];
}

/** Deletes the paths in order, telling `progress` how many are gone; stops at the first refusal (it is thrown). */
export async function deleteAll(scope: ScopeName, paths: readonly string[], progress: (done: number) => void): Promise<void> {
  for (let i = 0; i < paths.length; i++) {
    await removeEntry(scope, paths[i]!);
    progress(i + 1);
  }
}
