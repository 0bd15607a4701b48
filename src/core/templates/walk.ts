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
 * listing itself (an `lstat` only on file systems that do not report them). Iterative, so a
 * deeply nested tree cannot overflow the stack. For trees svc owns (templates, stages); a
 * service's directory is walked with TenantTree.files (tenancy/fs).
 */
export function walkTemplate(root: string): TemplateEntry[] {
  const out: TemplateEntry[] = [];
  const stack: { dir: string; prefix: string; entries: Dirent[]; next: number }[] = [{ dir: root, prefix: '', entries: readdirSync(root, { withFileTypes: true }), next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next === top.entries.length) {
      stack.pop();
      continue;
    }
    const dirent = top.entries[top.next++]!;
    const rel = top.prefix === '' ? dirent.name : `${top.prefix}/${dirent.name}`;
    const path = join(top.dir, dirent.name);
    const kind = kindOf(dirent, path);
    out.push({ rel, kind });
    if (kind === 'dir') stack.push({ dir: path, prefix: rel, entries: readdirSync(path, { withFileTypes: true }), next: 0 });
  }
  return out;
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
