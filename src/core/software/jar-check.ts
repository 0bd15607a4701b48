import { join } from 'node:path';
import { findForgeArgsFile, isFile } from './forge-args';
import { isInstallerSoftware } from './installer-resolver';
import { isInsideWorkDir, jarFileFor } from './jar-name';
import { isDownloadable } from './jar-resolver';
import type { SoftwareName } from './kinds';
import { usesForgeArgsFile } from './start-command';
import { parseGameVersion } from './version';

/**
 * What svc fetches by itself, said in every diagnosis so nobody waits for a download that will
 * not come: jars of the downloadable kinds, and Forge/NeoForge servers by running their
 * installer, when the controller prepares a group (not for dedicated services, nor for a group
 * with its own startCommand, nor inside a work dir an agent prepares); nothing for CUSTOM.
 */
const DOWNLOADED = "svc downloads it into the group's first template when the controller prepares a start";
const INSTALLED = "svc runs the installer into the group's first template when the controller prepares a start (a failed install fails that start with the reason)";
const NOT_FETCHED = 'svc fetches nothing for CUSTOM';

/**
 * Null when what the built command runs is in `workDir`, else a sentence an operator can act on.
 * Forge 1.17+/NeoForge pass with an installed `unix_args.txt` or, failing that, the jar
 * (mirroring `buildStartCommand`); `version` left out counts as modern. Skip this check when the
 * group has its own `startCommand`: svc cannot know what that one needs.
 */
export function checkJar(
  workDir: string,
  software: SoftwareName,
  jarName?: string | null,
  version?: string,
): string | null {
  const jar = jarFileFor(software, jarName);
  if (jar !== null && !isInsideWorkDir(jar)) {
    return `jarName "${jar}" must be a relative path inside ${workDir}`;
  }
  const modernForge = usesForgeArgsFile(software, version === undefined ? null : parseGameVersion(version));
  if (modernForge && findForgeArgsFile(workDir, software === 'FORGE' ? 'FORGE' : 'NEOFORGE') !== null) return null;
  if (jar !== null && isFile(join(workDir, jar))) return null;

  if (jar === null) {
    return `CUSTOM needs jarName: put the server jar in ${workDir} and set the group's jarName to its file name`;
  }
  if (modernForge) {
    return `neither an installed ${software} (libraries/.../unix_args.txt) nor ${jar} is in ${workDir}: run the ${software} installer with --installServer there, or put a server jar there or set jarName; ${INSTALLED}`;
  }
  const fetched = isDownloadable(software) ? DOWNLOADED : isInstallerSoftware(software) ? INSTALLED : NOT_FETCHED;
  return `${jar} is missing in ${workDir}: put the ${software} jar there or set jarName; ${fetched}`;
}
