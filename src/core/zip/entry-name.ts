import { relPathProblem } from '../files/rel-path';

/**
 * A zip entry's name as it is unpacked: `/`-separated (backslashes from Windows tools count as
 * separators), whether it names a folder, and why it could leave the folder it is unpacked into
 * (zip slip: absolute paths, drive letters, `..`, control characters), or null.
 */
export function unpackedName(name: string): { rel: string; isDirectory: boolean; problem: string | null } {
  const rel = name.replaceAll('\\', '/');
  const isDirectory = rel.endsWith('/');
  return { rel, isDirectory, problem: relPathProblem(isDirectory ? rel.slice(0, -1) : rel) };
}
