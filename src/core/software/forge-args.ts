import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Forge 1.17+ and NeoForge servers start from the argument file their installer writes
 * (`java @libraries/.../unix_args.txt`), not from a jar. These are the folders holding one
 * folder per installed build, each with its `unix_args.txt`. NeoForge for 1.20.1 still used
 * the `forge` artifact under `net/neoforged`.
 */
const ARGS_ROOTS = {
  FORGE: ['libraries/net/minecraftforge/forge'],
  NEOFORGE: ['libraries/net/neoforged/neoforge', 'libraries/net/neoforged/forge'],
} as const;

export type ForgeLoader = keyof typeof ARGS_ROOTS;

const ARGS_FILE = 'unix_args.txt';

/**
 * The `unix_args.txt` of the newest installed build under `workDir`, relative to it and with `/`
 * separators (ready for `@<path>`), or null when there is none. `loader` narrows the search to
 * one loader; without it Forge is searched before NeoForge. This one reads the filesystem.
 */
export function findForgeArgsFile(workDir: string, loader?: ForgeLoader): string | null {
  const roots = loader ? ARGS_ROOTS[loader] : [...ARGS_ROOTS.FORGE, ...ARGS_ROOTS.NEOFORGE];
  for (const root of roots) {
    const build = newestBuildWithArgs(workDir, root);
    if (build !== null) return `${root}/${build}/${ARGS_FILE}`;
  }
  return null;
}

/** Build folder names sort naturally (`1.20.1-47.2.20` after `1.20.1-47.2.3`); the last one wins. */
function newestBuildWithArgs(workDir: string, root: string): string | null {
  const builds = listDirs(join(workDir, root)).filter((build) => isFile(join(workDir, root, build, ARGS_FILE)));
  builds.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return builds.at(-1) ?? null;
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return []; // no such folder: nothing installed
  }
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
