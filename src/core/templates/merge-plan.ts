import { join } from 'node:path';
import { walkTemplate } from './walk';

export interface PlannedFile {
  /** Destination path relative to the work dir (POSIX separators). */
  rel: string;
  /** Absolute source file in the template that wins for this path. */
  src: string;
}

/** What a stack of templates amounts to once later layers have overwritten earlier ones. */
export interface CopyPlan {
  /** Folders to create, parents before children. */
  dirs: string[];
  /** Files to place; each destination appears once, taken from the last layer that has it. */
  files: PlannedFile[];
  /** Absolute paths of symlinks, FIFOs, sockets and devices in the templates: never copied. */
  skipped: string[];
}

type Node = { kind: 'dir' } | { kind: 'file'; src: string };
const DIR: Node = { kind: 'dir' };

/**
 * Merges the layers into one plan instead of copying layer after layer: every destination is
 * written once, and a file shadowed by a later layer costs nothing but a directory listing.
 *
 * Conflicts follow "later wins" for kinds too: a later file replaces an earlier folder (and
 * everything in it), a later folder replaces an earlier file. Links and special files are
 * skipped as if absent (reported in `skipped`): a link copied into a work dir could point out
 * of it, directly or through a chain of links from several layers, and following a link would
 * copy files from outside the template. Templates are meant to hold plain files.
 */
export function planStack(layerDirs: readonly string[]): CopyPlan {
  const nodes = new Map<string, Node>();
  const skipped: string[] = [];
  for (const root of layerDirs) {
    for (const entry of walkTemplate(root)) {
      if (entry.kind === 'symlink' || entry.kind === 'special') {
        skipped.push(join(root, entry.rel));
        continue;
      }
      const previous = nodes.get(entry.rel);
      if (entry.kind === 'dir') {
        // Map.set on an existing key keeps its position, which is before any child added later.
        if (previous?.kind !== 'dir') nodes.set(entry.rel, DIR);
        continue;
      }
      if (previous?.kind === 'dir') removeDescendants(nodes, entry.rel);
      nodes.set(entry.rel, { kind: 'file', src: join(root, entry.rel) });
    }
  }
  const dirs: string[] = [];
  const files: PlannedFile[] = [];
  for (const [rel, node] of nodes) {
    if (node.kind === 'dir') dirs.push(rel);
    else files.push({ rel, src: node.src });
  }
  return { dirs, files, skipped };
}

/** Rare (a file replacing a folder), so a scan of all keys is fine. */
function removeDescendants(nodes: Map<string, Node>, rel: string): void {
  const prefix = `${rel}/`;
  for (const key of nodes.keys()) if (key.startsWith(prefix)) nodes.delete(key);
}
