import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Removes a tree even when it holds directories without owner write or execute permission
 * (restored modes may be read-only): on EACCES/EPERM every directory is made 0700 and it retries.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    await openUpDirectories(path);
    await rm(path, { recursive: true, force: true });
  }
}

async function openUpDirectories(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isDirectory()) return;
  await chmod(path, 0o700);
  for (const name of await readdir(path)) await openUpDirectories(join(path, name));
}

/** removeTree, synchronously (the start's recovery). */
export function removeTreeSync(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    const openUp = (p: string): void => {
      const info = lstatSync(p, { throwIfNoEntry: false });
      if (!info?.isDirectory()) return;
      chmodSync(p, 0o700);
      for (const name of readdirSync(p)) openUp(join(p, name));
    };
    openUp(path);
    rmSync(path, { recursive: true, force: true });
  }
}
