import { readSync } from 'node:fs';
import { join } from 'node:path';
import { templateStack, type Group } from '../groups/model';
import { SOFTWARE } from '../software/kinds';
import { createBreather, type Breather } from './breather';
import { isDirectory } from './is-directory';
import { openRegular, RefusedEntry } from '../tenancy/fs';
import { templateDir } from './template-name';
import { walkTemplate } from './walk';

/**
 * The template names a group's hash covers, in hash order: `global` (Paper family and proxy),
 * `global_proxy` (proxy), then the group's stack. This is the reference's order, which agents
 * reproduce, so it differs on purpose from the copy order (overlay last, proxy without
 * `global`): changing either side alone would make every agent see a stale template.
 */
export function hashedTemplateNames(group: Group): string[] {
  return hashedNames(group.software, templateStack(group));
}

/** The same order for a software kind and a stack (one template, for the agents' per-template hash). */
export function hashedNames(software: Group['software'], stack: readonly string[]): string[] {
  const kind = SOFTWARE[software];
  const names: string[] = [];
  if (kind.templateOverlay === 'global' || kind.isProxy) names.push('global');
  if (kind.isProxy) names.push('global_proxy');
  return [...names, ...stack];
}

/** SHA-256 hex of the group's templates (see `hashDirectories`); missing folders add nothing. */
export async function templateHash(templatesRoot: string, group: Group): Promise<string> {
  return hashDirectories(hashedTemplateNames(group).map((name) => templateDir(templatesRoot, name)));
}

/** Lists the regular files of a folder as relative POSIX paths, in any order. */
export type FileLister = (dir: string) => string[];

/**
 * SHA-256 hex over the folders in order; in each, its regular files sorted by relative path
 * (POSIX separators, UTF-16 code-unit order, as JavaScript and Java sort strings), each as the
 * UTF-8 bytes of the path followed by the file's bytes. Links and special files are not part
 * of it, as provisioning does not copy them (a file that turned into one since the listing is
 * left out too: it is opened without following links or waiting on a FIFO). The format is the agents' contract; note that
 * nothing separates a path from its content, so it is a change detector, not a proof.
 *
 * Files are read in 1 MiB chunks into one buffer, never whole; the event loop gets a turn
 * every few milliseconds of hashing. `listFiles` exists for tests of order independence.
 */
export async function hashDirectories(dirs: readonly string[], listFiles: FileLister = listRegularFiles): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const breathe = createBreather();
  for (const dir of dirs) {
    const rels = listFiles(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const rel of rels) {
      const file = openOrSkip(join(dir, rel));
      if (file === null) continue;
      try {
        hasher.update(rel);
        await hashFile(file.fd, hasher, buffer, breathe);
      } finally {
        file.close();
      }
    }
  }
  return hasher.digest('hex');
}

/** Regular files under `dir`; none when the folder does not exist. */
export function listRegularFiles(dir: string): string[] {
  if (!isDirectory(dir)) return [];
  return walkTemplate(dir)
    .filter((entry) => entry.kind === 'file')
    .map((entry) => entry.rel);
}

function openOrSkip(path: string) {
  try {
    return openRegular(path);
  } catch (error) {
    if (error instanceof RefusedEntry) return null;
    throw error;
  }
}

async function hashFile(fd: number, hasher: Bun.CryptoHasher, buffer: Buffer, breathe: Breather): Promise<void> {
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) return;
    hasher.update(buffer.subarray(0, read));
    const pause = breathe();
    if (pause) await pause;
  }
}
