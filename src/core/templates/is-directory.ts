import { statSync } from 'node:fs';

/**
 * Whether `path` is a folder (following links). Missing is false, and so is a name no folder can
 * have (longer than the filesystem allows: 255 bytes, which 160 emoji already exceed); any other
 * error is thrown.
 */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return false;
    throw error;
  }
}
