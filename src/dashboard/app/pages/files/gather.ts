/**
 * What the operator picked or dropped to upload, as files with their paths relative to the
 * folder they go into: "a.txt" for a file, "world/region/r.0.0.mca" for a file of a folder
 * (its folders are created on the way), plus the empty folders a dropped folder holds.
 */

export interface UploadSource {
  /** Relative to the target folder, "/"-separated. */
  rel: string;
  file: File;
}

export interface Gathered {
  sources: UploadSource[];
  /** Folders to create even when no file goes into them (empty ones of a dropped folder). */
  folders: string[];
}

/** Files from an <input type="file">: a folder input (webkitdirectory) names each by its path in the folder chosen. */
export function fromInput(files: FileList | null): Gathered {
  return { sources: [...(files ?? [])].map((file) => ({ rel: file.webkitRelativePath || file.name, file })), folders: [] };
}

/**
 * The entries of a drop, taken while the drop event runs (a DataTransfer is emptied when its
 * handler returns); null when the browser gives no entry for one item (then dt.files is all
 * there is: files, no folders).
 */
export function droppedEntries(transfer: DataTransfer): FileSystemEntry[] | null {
  const entries: FileSystemEntry[] = [];
  for (const item of transfer.items) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (!entry) return null;
    entries.push(entry);
  }
  return entries;
}

/** Walks dropped entries, folders to the bottom. */
export async function fromEntries(entries: readonly FileSystemEntry[]): Promise<Gathered> {
  const gathered: Gathered = { sources: [], folders: [] };
  for (const entry of entries) await walk(entry, gathered);
  return gathered;
}

async function walk(entry: FileSystemEntry, into: Gathered): Promise<void> {
  const rel = entry.fullPath.replace(/^\/+/, '') || entry.name;
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    into.sources.push({ rel, file });
    return;
  }
  if (!entry.isDirectory) return;
  into.folders.push(rel);
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches (Chromium: 100 at a time) until an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, into);
  }
}
