import { mkdirSync, readdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findForgeArgsFile, isFile } from './forge-args';
import type { InstallerSoftware } from './installer-resolver';
import { usesForgeArgsFile } from './start-command';
import type { GameVersion } from './version';

/**
 * What an installed Forge/NeoForge server looks like to the start-command builder: from 1.17
 * on `libraries/<artifact>/<build>/unix_args.txt` (forge-args.ts finds it), before that the
 * server jar the command runs with `-jar` (`server.jar` or the group's jarName).
 */

/** Mirrors `checkJar`: Forge 1.17+/NeoForge count as installed with an argument file or the jar, older Forge with the jar. */
export function isInstalled(dir: string, software: InstallerSoftware, version: GameVersion, jar: string): boolean {
  if (usesForgeArgsFile(software, version) && findForgeArgsFile(dir, software) !== null) return true;
  return isFile(join(dir, jar));
}

/**
 * Puts what the built command runs in place inside `staging` and returns its relative path:
 * the `unix_args.txt` the installer wrote for Forge 1.17+/NeoForge; otherwise (Forge before
 * 1.17, or a modern installer that wrote only a jar) the loader jar it wrote in the top folder
 * (`forge-1.12.2-14.23.5.2860.jar`, `forge-1.7.10-…-universal.jar`), renamed to the jar the
 * command runs (`server.jar` or the group's jarName). Null when it wrote neither.
 */
export function placeLaunchTarget(staging: string, software: InstallerSoftware, version: GameVersion, jar: string, installer: string): string | null {
  if (usesForgeArgsFile(software, version)) {
    const args = findForgeArgsFile(staging, software);
    if (args !== null) return args;
  }
  if (isFile(join(staging, jar))) return jar;
  const loaderJar = loaderJarIn(staging, installer);
  if (loaderJar === null) return null;
  mkdirSync(dirname(join(staging, jar)), { recursive: true });
  renameSync(join(staging, loaderJar), join(staging, jar));
  return jar;
}

/** The loader jar an installer wrote in `dir`: `forge-*.jar`/`neoforge-*.jar`, not the installer, a shim only when nothing else. */
function loaderJarIn(dir: string, installer: string): string | null {
  const jars = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /^(neo)?forge-.+\.jar$/.test(entry.name) && entry.name !== installer && !entry.name.endsWith('-installer.jar'))
    .map((entry) => entry.name)
    .sort((a, b) => Number(a.endsWith('-shim.jar')) - Number(b.endsWith('-shim.jar')) || a.localeCompare(b));
  return jars[0] ?? null;
}
