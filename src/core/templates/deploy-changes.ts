import { lstatSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Breather } from './breather';
import type { ExcludeMatcher } from './deploy-excludes';
import { codeOf } from './place-file';
import { openRegular, RefusedEntry, type TenantTree } from '../tenancy/fs';
import type { SkipReport } from '../tenancy/fs/report';

/** The supervisor's own folder at the top of every work dir; never part of a template. */
const SUPERVISOR_DIR = '.svc';

/**
 * The work dir's regular files that the template lacks or holds with other bytes, as relative
 * POSIX paths sorted by UTF-16 code unit. The work dir is the server's (see tenancy/fs):
 * links are never followed nor copied (the `libraries` link is skipped like any other), FIFOs,
 * sockets and devices never opened, and a file with other hard links is not deployed (its bytes
 * may be a file outside); each of these is named in `report`.
 *
 * A file is unchanged when it is the template's own inode (a hardlink from provisioning: no
 * need to read it), or has the same size and SHA-256. A template entry of another kind at the
 * path (a folder, a link) counts as changed: staging then fails on a folder with a message
 * naming the path, rather than this function deciding which side wins.
 */
export async function changedFiles(tree: TenantTree, templateDir: string, isExcluded: ExcludeMatcher, breathe: Breather, report: SkipReport): Promise<string[]> {
  const changed: string[] = [];
  const buffer = Buffer.allocUnsafe(CHUNK);
  const rels = await tree.files({ exclude: (rel) => isSupervisorPath(rel) || isExcluded(rel), breathe, skip: (rel, reason) => report.skip(rel, reason) });
  for (const rel of rels) {
    try {
      if (await differs(tree, rel, join(templateDir, rel), buffer, breathe, report)) changed.push(rel);
    } catch (error) {
      throw new Error(`could not compare ${rel} in the work dir with the template's copy: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const pause = breathe();
    if (pause) await pause;
  }
  return changed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function isSupervisorPath(rel: string): boolean {
  return rel === SUPERVISOR_DIR || rel.startsWith(`${SUPERVISOR_DIR}/`);
}

const CHUNK = 1024 * 1024;

async function differs(tree: TenantTree, rel: string, templatePath: string, buffer: Buffer, breathe: Breather, report: SkipReport): Promise<boolean> {
  let work;
  try {
    // The tree accepts hard links so that provisioning's own (the template's inode) are known
    // as unchanged below; any other hard link is refused here.
    work = tree.openRead(rel);
  } catch (error) {
    if (!(error instanceof RefusedEntry)) throw error;
    report.skip(error.rel, error.reason);
    return false;
  }
  if (work === null) return false; // Gone since the listing: nothing to deploy.
  try {
    const template = lstatOrNull(templatePath);
    if (template?.isFile() && work.stats.dev === template.dev && work.stats.ino === template.ino) return false;
    if (work.stats.nlink > 1) {
      report.skip(rel, new RefusedEntry(rel, 'hardlinked').reason);
      return false;
    }
    if (!template?.isFile()) return true;
    if (work.stats.size !== template.size) return true;
    return (await sha256(work.fd, buffer, breathe)) !== (await templateSha256(templatePath, buffer, breathe));
  } finally {
    work.close();
  }
}

/** Missing, or a parent that is a file: nothing comparable is there. */
function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

async function templateSha256(path: string, buffer: Buffer, breathe: Breather): Promise<string | null> {
  const opened = openRegular(path);
  if (opened === null) return null;
  try {
    return await sha256(opened.fd, buffer, breathe);
  } finally {
    opened.close();
  }
}

/** SHA-256 hex of an open file read in chunks, so a multi-GB region file is never held whole. */
async function sha256(fd: number, buffer: Buffer, breathe: Breather): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256');
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) return hasher.digest('hex');
    hasher.update(buffer.subarray(0, read));
    const pause = breathe();
    if (pause) await pause;
  }
}
