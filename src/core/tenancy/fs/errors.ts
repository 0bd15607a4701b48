import { lstatSync, type Stats } from 'node:fs';

export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

export function missing(rel: string, code: string): NodeJS.ErrnoException {
  const words = code === 'ELOOP' ? 'is not the folder it was (a link was swapped in)' : code === 'ENOTDIR' ? 'is not a folder' : 'does not exist';
  return Object.assign(new Error(`${rel} ${words}`), { code });
}

export function ignoreMissing(action: () => void): void {
  try {
    action();
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** ENOENT, or ENOTDIR (a file where a folder of the path should be): nothing there to act on. */
export function isMissing(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function codeOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}
