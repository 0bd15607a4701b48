import { isAbsolute, join, resolve, sep } from 'node:path';
import { ApiError } from '../../errors';

/**
 * Template names become folder names under the templates root, so a name must never reach
 * outside it. The group schema already restricts names (`TEMPLATE_NAME`), but templates are
 * also named by hand-edited files and by other callers, so the file layer checks again rather
 * than assume every name came through the schema.
 */
export function assertTemplateName(name: string): void {
  const problem = templateNameProblem(name);
  if (problem) throw new ApiError('PATH_TRAVERSAL', `template name ${JSON.stringify(name)} ${problem}`);
}

function templateNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name.length > 255) return 'is longer than 255 characters';
  if (name.includes('/') || name.includes('\\')) return 'must not contain a path separator';
  if (name.includes('..')) return 'must not contain ".."';
  if (name === '.') return 'must not be "."';
  if (name.includes('\0')) return 'must not contain a NUL byte';
  // A drive letter (`C:`) or an absolute path on any platform.
  if (name.includes(':') || isAbsolute(name)) return 'must not be an absolute path';
  return null;
}

/** The folder of a checked template name: always a direct child of `templatesRoot`. */
export function templateDir(templatesRoot: string, name: string): string {
  assertTemplateName(name);
  const root = resolve(templatesRoot);
  const dir = join(root, name);
  // Belt and braces: the checks above make this impossible; a future edit must not.
  if (resolve(dir, '..') !== root || !dir.startsWith(root + sep)) {
    throw new ApiError('PATH_TRAVERSAL', `template name ${JSON.stringify(name)} leaves the templates folder`);
  }
  return dir;
}
