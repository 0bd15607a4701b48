import { statSync } from 'node:fs';

/** Whether `path` is a folder (following links). Missing is false; any other error is thrown. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}
