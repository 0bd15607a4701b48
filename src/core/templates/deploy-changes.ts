import { closeSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Breather } from './breather';
import type { ExcludeMatcher } from './deploy-excludes';
import { codeOf } from './place-file';
import { walkTemplate } from './walk';

/** The supervisor's own folder at the top of every work dir; never part of a template. */
const SUPERVISOR_DIR = '.svc';

/**
 * The work dir's regular files that the template lacks or holds with other bytes, as relative
 * POSIX paths sorted by UTF-16 code unit. Links are never followed (the `libraries` link is
 * skipped like any other), nor are FIFOs, sockets and devices deployed.
 *
 * A file is unchanged when it is the template's own inode (a hardlink from provisioning: no
 * need to read it), or has the same size and SHA-256. A template entry of another kind at the
 * path (a folder, a link) counts as changed: staging then fails on a folder with a message
 * naming the path, rather than this function deciding which side wins.
 */
export async function changedFiles(workDir: string, templateDir: string, isExcluded: ExcludeMatcher, breathe: Breather): Promise<string[]> {
  const changed: string[] = [];
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (const entry of walkTemplate(workDir)) {
    if (entry.kind !== 'file' || isSupervisorPath(entry.rel) || isExcluded(entry.rel)) continue;
    try {
      if (await differs(join(workDir, entry.rel), join(templateDir, entry.rel), buffer, breathe)) changed.push(entry.rel);
    } catch (error) {
      throw new Error(`could not compare ${entry.rel} in the work dir with the template's copy: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
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

async function differs(workPath: string, templatePath: string, buffer: Buffer, breathe: Breather): Promise<boolean> {
  const work = lstatSync(workPath);
  // Opening a FIFO that replaced the file since the listing would block for good.
  if (!work.isFile()) throw new Error('it is no longer a regular file');
  const template = lstatOrNull(templatePath);
  if (!template?.isFile()) return true;
  if (work.dev === template.dev && work.ino === template.ino) return false;
  if (work.size !== template.size) return true;
  return (await sha256(workPath, buffer, breathe)) !== (await sha256(templatePath, buffer, breathe));
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

/** SHA-256 hex of a file read in chunks, so a multi-GB region file is never held whole. */
async function sha256(path: string, buffer: Buffer, breathe: Breather): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256');
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) return hasher.digest('hex');
      hasher.update(buffer.subarray(0, read));
      const pause = breathe();
      if (pause) await pause;
    }
  } finally {
    closeSync(fd);
  }
}
