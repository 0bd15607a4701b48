import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';

/** What a template entry is. Links are never followed; `special` is a FIFO, socket or device. */
export type EntryKind = 'dir' | 'file' | 'symlink' | 'special';

export interface TemplateEntry {
  /** Path relative to the template root, POSIX separators, no leading `./`. */
  rel: string;
  kind: EntryKind;
}

/**
 * Every entry under `root`, pre-order (a folder before its contents), without following links.
 * One `readdir` per folder and no per-file `stat`: the entry types come from the directory
 * listing itself (an `lstat` only on file systems that do not report them).
 */
export function walkTemplate(root: string): TemplateEntry[] {
  const out: TemplateEntry[] = [];
  visit(root, '', out);
  return out;
}

function visit(dir: string, prefix: string, out: TemplateEntry[]): void {
  for (const dirent of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? dirent.name : `${prefix}/${dirent.name}`;
    const kind = kindOf(dirent, join(dir, dirent.name));
    out.push({ rel, kind });
    if (kind === 'dir') visit(join(dir, dirent.name), rel, out);
  }
}

function kindOf(dirent: Dirent, path: string): EntryKind {
  const known = fromTypes(dirent);
  return known ?? fromTypes(lstatSync(path)) ?? 'special';
}

function fromTypes(entry: Dirent | Stats): EntryKind | null {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) return 'special';
  return null;
}
