import { chmodSync, chownSync, writeFileSync } from 'node:fs';

/** `nobody`: the user the in-place writer runs as when the tests run as root. */
const NOBODY = 65534;
const runningAsRoot = process.geteuid?.() === 0;

/**
 * Makes `paths` owned by the user the writer will run as (a no-op unless root), as in a real
 * deployment where a server owns its files: then only the permission bits can stop a write.
 */
export function ownByWriter(paths: readonly string[]): void {
  if (runningAsRoot) for (const path of paths) chownSync(path, NOBODY, NOBODY);
}

/**
 * Tries an in-place write (open O_RDWR, no truncate, no rename) as a server would, as an
 * unprivileged user: root ignores permission bits, so when the tests run as root the write
 * runs in a child process as `nobody` (65534). Returns the error code, or null if it worked.
 * `traversable` folders are opened to others first (mkdtemp makes them 0700).
 */
export function writeInPlaceUnprivileged(path: string, traversable: readonly string[]): string | null {
  if (!runningAsRoot) {
    try {
      writeFileSync(path, 'CORRUPTED', { flag: 'r+' });
      return null;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? 'unknown';
    }
  }
  for (const dir of traversable) chmodSync(dir, 0o755);
  // The system shell, not this test runner: the runner may live where `nobody` cannot reach it
  // (CI installs Bun under root's 0700 home). `1<>` opens the file read-write without truncating.
  const child = Bun.spawnSync(['/bin/sh', '-c', 'printf CORRUPTED 1<>"$1"', 'sh', path], { uid: NOBODY, gid: NOBODY, env: {}, stdout: 'pipe', stderr: 'pipe' });
  if (child.exitCode === 0) return null;
  const stderr = child.stderr.toString();
  if (/permission denied/i.test(stderr)) return 'EACCES';
  if (/read-only file system/i.test(stderr)) return 'EROFS';
  throw new Error(`unprivileged writer failed (exit ${child.exitCode}): ${stderr}`);
}
