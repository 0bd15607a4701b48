import { chmodSync, chownSync, constants, copyFileSync, linkSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, type Stats } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Breather } from './breather';
import { siblingPath } from './deploy-siblings';
import { codeOf } from './place-file';
import { RefusedEntry, type OpenedFile, type TenantTree } from '../tenancy/fs';
import { walkTemplate, type EntryKind } from './walk';

/**
 * Writes `files` (relative paths in `workDir`) into `templateDir` so that the template is
 * either entirely the old one or entirely the new one, and a failure leaves it as it was:
 *
 *   templateDir ──hardlinks──▶ <templateDir>.deploy-<hex>  (+ changed files, temp name + rename)
 *   templateDir ──rename────▶ <templateDir>.old-<hex>
 *   stage       ──rename────▶ templateDir                  (fails: old renamed back)
 *   old         ──removed
 *
 * Seeding with hardlinks is safe because nothing is ever written into a seeded inode: each
 * changed file is created under a temp name and renamed over its entry, so the old template
 * (and any work dir sharing its inodes) keeps its bytes. Files only in the template stay.
 *
 * Between the two renames the template is briefly absent; a process killed right there leaves
 * it under its `.old-` name, which `tidySiblings` restores before the next deploy.
 *
 * On failure the stage is removed and the error says which path failed and why.
 */
export async function stageAndSwap(work: TenantTree, templateDir: string, files: readonly string[], breathe: Breather): Promise<void> {
  const template = lstatOrNull(templateDir);
  if (template && !template.isDirectory()) throw new Error(`${templateDir} is not a folder`);
  mkdirSync(dirname(templateDir), { recursive: true });
  const stage = siblingPath(templateDir, 'deploy');
  try {
    mkdirSync(stage);
    if (template) {
      copyFolderMeta(template, stage);
      await seed(templateDir, stage, breathe);
    }
    await writeChanged(work, stage, files, breathe);
    swap(stage, templateDir, template !== null);
  } catch (error) {
    rmSync(stage, { recursive: true, force: true });
    throw error;
  }
}

/** Recreates the template's folders in the stage and links everything else into it. */
async function seed(templateDir: string, stage: string, breathe: Breather): Promise<void> {
  for (const entry of walkTemplate(templateDir)) {
    const from = join(templateDir, entry.rel);
    const to = join(stage, entry.rel);
    try {
      if (entry.kind === 'dir') {
        mkdirSync(to);
        copyFolderMeta(lstatSync(from), to);
      } else {
        linkOrCopy(from, to, entry.kind);
      }
    } catch (error) {
      throw new Error(`could not stage the template's ${entry.rel}: ${reason(error, stage, entry.rel)}`, { cause: error });
    }
    const pause = breathe();
    if (pause) await pause;
  }
}

/**
 * The swap replaces the template's folders with the stage's, so their modes, and their owners
 * when svc runs as root (else templates an admin owns would turn root's), are carried over.
 */
function copyFolderMeta(stats: Stats, path: string): void {
  chmodSync(path, stats.mode & 0o7777);
  if (process.geteuid?.() === 0) chownSync(path, stats.uid, stats.gid);
}

/** A hardlink, else (too many links, a file not ours to link) an independent copy. */
function linkOrCopy(from: string, to: string, kind: EntryKind): void {
  try {
    linkSync(from, to);
    return;
  } catch (error) {
    if (kind === 'file') copyFileSync(from, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    else if (kind === 'symlink') symlinkSync(readlinkSync(from), to);
    else throw error;
  }
}

/**
 * Copies the changed files from the work dir (a server's: read by the tenant rule, see
 * tenancy/fs) into the stage. A file that became a link, a FIFO or a hard link since it was
 * compared fails the deploy, leaving the template as it was. Modes are kept but for the
 * set-user-ID, set-group-ID and sticky bits: a server's file must not become a set-user-ID
 * file of svc's user in a template.
 */
async function writeChanged(work: TenantTree, stage: string, files: readonly string[], breathe: Breather): Promise<void> {
  for (const rel of files) {
    const dst = join(stage, rel);
    const temp = `${dst}.svc-deploy-${process.pid}-${Date.now().toString(36)}`;
    try {
      mkdirSync(dirname(dst), { recursive: true });
      const src = work.openRead(rel);
      if (src === null) throw new Error('it vanished from the work dir');
      try {
        if (src.stats.nlink > 1) throw new RefusedEntry(rel, 'hardlinked');
        await copyOpened(src, temp);
        chmodSync(temp, src.stats.mode & 0o777);
      } finally {
        src.close();
      }
      renameSync(temp, dst);
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // Never created.
      }
      throw new Error(`could not write ${rel} into the staged template: ${reason(error, stage, rel)}`, { cause: error });
    }
    const pause = breathe();
    if (pause) await pause;
  }
}

/** Plain copies from this size up run on the thread pool so the event loop keeps going. */
const ASYNC_COPY_BYTES = 8 * 1024 * 1024;

/**
 * A new, independent file at `dst` with the open file's bytes: a reflink clone where the file
 * system can, else a copy. Never a hard link: the template must not share an inode with a work
 * dir a server writes to.
 */
async function copyOpened(src: OpenedFile, dst: string): Promise<void> {
  const flags = constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE;
  if (src.stats.size >= ASYNC_COPY_BYTES) await copyFile(src.path, dst, flags);
  else copyFileSync(src.path, dst, flags);
}

function swap(stage: string, templateDir: string, templateExists: boolean): void {
  try {
    if (!templateExists) {
      renameSync(stage, templateDir);
      return;
    }
    const old = siblingPath(templateDir, 'old');
    renameSync(templateDir, old);
    try {
      renameSync(stage, templateDir);
    } catch (error) {
      try {
        renameSync(old, templateDir);
      } catch (back) {
        const detail = back instanceof Error ? back.message : String(back);
        throw new Error(`${reason(error, stage, null)}, and moving the template back failed too (${detail}): it is now at ${old}; rename it to ${templateDir} (the next deploy also does)`, { cause: error });
      }
      throw error;
    }
    try {
      rmSync(old, { recursive: true, force: true });
    } catch {
      // The deploy is done; an old template left behind is removed by a later deploy's tidy-up.
    }
  } catch (error) {
    throw new Error(`could not swap the staged template into place: ${reason(error, stage, null)}`, { cause: error });
  }
}

/** The error in an operator's words where the cause is known, with the system's message. */
function reason(error: unknown, stage: string, rel: string | null): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = codeOf(error);
  const words = (() => {
    switch (code) {
      case 'EISDIR':
        return `the template has a folder at ${rel} where the work dir has a file; move one of them`;
      case 'ENOTDIR':
      case 'EEXIST': {
        const file = rel === null ? null : fileInTheWay(stage, rel);
        return file ? `the template has a file at ${file} where the work dir has a folder; move one of them` : null;
      }
      case 'ENOSPC':
        return 'the disk is full';
      case 'EDQUOT':
        return 'the disk quota is used up';
      case 'EACCES':
      case 'EPERM':
        return 'permission denied';
      case 'EROFS':
        return 'the file system is read-only';
      default:
        return null;
    }
  })();
  return words ? `${words} (${message})` : message;
}

/** The first leading path of `rel` that is not a folder in the stage, if any (for messages only). */
function fileInTheWay(stage: string, rel: string): string | null {
  const segments = rel.split('/');
  for (let i = 1; i < segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    try {
      if (!lstatSync(join(stage, prefix)).isDirectory()) return prefix;
    } catch {
      return null;
    }
  }
  return null;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    throw error;
  }
}
