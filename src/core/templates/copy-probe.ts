import { constants, copyFileSync, linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CopySupport {
  /** Copy-on-write clones (btrfs, XFS with reflink, ZFS 2.2+, APFS). */
  reflink: boolean;
  /** Hardlinks between the two folders (same file system, and allowed). */
  hardlink: boolean;
}

/**
 * What the file systems under two folders can do, found by trying once with a scratch file.
 * For startup logs and tests; the copier itself finds out on its first file.
 */
export function probeCopySupport(templateDir: string, workDir: string): CopySupport {
  mkdirSync(templateDir, { recursive: true });
  mkdirSync(workDir, { recursive: true });
  const stamp = `.svc-probe-${process.pid}-${Date.now()}`;
  const src = join(templateDir, stamp);
  const cloned = join(workDir, `${stamp}.clone`);
  const linked = join(workDir, `${stamp}.link`);
  writeFileSync(src, 'probe');
  try {
    return { reflink: succeeds(() => copyFileSync(src, cloned, constants.COPYFILE_FICLONE_FORCE | constants.COPYFILE_EXCL)), hardlink: succeeds(() => linkSync(src, linked)) };
  } finally {
    for (const path of [src, cloned, linked]) rmSync(path, { force: true });
  }
}

function succeeds(action: () => void): boolean {
  try {
    action();
    return true;
  } catch {
    return false;
  }
}
