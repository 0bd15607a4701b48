import { SOFTWARE, type SoftwareName } from './kinds';

/**
 * The jar a service runs, relative to its work directory: the group's `jarName` when set, else
 * the kind's default (`server.jar`). Null when there is none (CUSTOM without `jarName`).
 */
export function jarFileFor(software: SoftwareName, jarName?: string | null): string | null {
  const own = jarName?.trim();
  if (own) return own;
  return SOFTWARE[software].defaultJar;
}

/**
 * A path that stays inside the work directory: relative, `/`-separated, no `..` or empty
 * segments. The jar name comes from an operator, but a typo must not reach outside the service.
 */
export function isInsideWorkDir(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\')) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
