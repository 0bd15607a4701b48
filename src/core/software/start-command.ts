import { ApiError } from '../../errors';
import { aikarFlags } from './aikar-flags';
import { javaBinaryFor, javaMajorFor, type JavaConfig } from './java';
import { isInsideWorkDir, jarFileFor } from './jar-name';
import { SOFTWARE, type SoftwareName } from './kinds';
import { isMemory } from './memory';
import { substitutePlaceholders } from './placeholders';
import { isAtLeast, requireGameVersion, type GameVersion } from './version';

export { memoryMaxMb, parseMemory } from './memory';

/** Everything the command depends on, as plain values (no HTTP context, no filesystem). */
export interface StartCommandInput {
  software: SoftwareName;
  /** Minecraft version of a backend; for Velocity its own version, which the command ignores. */
  version: string;
  /** Heap size as the group holds it (`2G`); written as is into `-Xmx`/`-Xms`. */
  memory: string;
  /** The group's own JVM flags; blank elements are dropped. */
  jvmArgs: readonly string[];
  /** Use Aikar's flags, but only when the group sets no `jvmArgs` of its own. */
  jvmOptimize: boolean;
  /** Jar relative to the work directory; required for CUSTOM, overrides `server.jar` otherwise. */
  jarName?: string | null;
  /** The group's Java binary; wins over `[java]`. */
  javaPath?: string | null;
  javaConfig: JavaConfig;
  serviceName: string;
  groupName: string;
  port: number;
  /** Port of the controller API; services reach it on loopback. */
  apiPort: number;
  /** The group's own argv; when non-empty it replaces the whole built command. */
  startCommand?: readonly string[] | null;
  /** `unix_args.txt` path from `findForgeArgsFile`, relative to the work directory. */
  forgeArgsFile?: string | null;
}

/**
 * The argv (never a shell string) that starts a service, run with the service's work directory
 * as cwd. Pure: the caller looks up the Forge argument file and checks the jar beforehand.
 * Throws SERVICE_START_FAILED when the group's values cannot make a command.
 *
 * `<java> -Xmx<mem> [Aikar flags | jvmArgs] -Dsvc.* (-jar <jar> | @<forge args>) [--nogui | nogui]`
 */
export function buildStartCommand(input: StartCommandInput): string[] {
  const own = input.startCommand ?? [];
  if (own.length > 0) {
    return substitutePlaceholders(own, {
      port: input.port,
      memory: input.memory,
      name: input.serviceName,
      group: input.groupName,
    });
  }

  const kind = SOFTWARE[input.software];
  if (!isMemory(input.memory)) {
    throw new ApiError('SERVICE_START_FAILED', `memory "${input.memory}" is not a heap size like 512M or 2G`);
  }
  // Velocity's version is its own (3.x), not a Minecraft one: nothing below depends on it.
  const version = kind.isProxy ? null : requireGameVersion(input.version, input.software);

  return [
    input.javaPath?.trim() || javaBinaryFor(javaMajorFor(input.software, input.version), input.javaConfig),
    `-Xmx${input.memory}`,
    ...jvmFlags(input),
    `-Dsvc.service.name=${input.serviceName}`,
    `-Dsvc.service.group=${input.groupName}`,
    `-Dsvc.service.port=${input.port}`,
    `-Dsvc.api.url=http://127.0.0.1:${input.apiPort}`,
    ...launchTarget(input, version),
    ...noguiFlag(input.software, version),
  ];
}

function jvmFlags(input: StartCommandInput): string[] {
  const own = input.jvmArgs.filter((arg) => arg.trim() !== '');
  if (own.length > 0) return own;
  return input.jvmOptimize ? aikarFlags(input.memory) : [];
}

/**
 * Forge 1.17+ and NeoForge start from the installer's argument file. When the caller found
 * none, the jar is used instead (a shim or hand-made server jar); `checkJar` says what is missing.
 * A null version (not known to the caller) counts as modern.
 */
export function usesForgeArgsFile(software: SoftwareName, version: GameVersion | null): boolean {
  if (software !== 'FORGE' && software !== 'NEOFORGE') return false;
  return version === null || isAtLeast(version, '1.17');
}

function launchTarget(input: StartCommandInput, version: GameVersion | null): string[] {
  const argsFile = input.forgeArgsFile?.trim();
  if (argsFile && usesForgeArgsFile(input.software, version)) {
    if (!isInsideWorkDir(argsFile)) throw outside('Forge argument file', argsFile);
    return [`@${argsFile}`];
  }
  const jar = jarFileFor(input.software, input.jarName);
  if (jar === null) {
    throw new ApiError('SERVICE_START_FAILED', `${input.software} needs jarName: the group names no jar to run`);
  }
  if (!isInsideWorkDir(jar)) throw outside('jarName', jar);
  return ['-jar', jar];
}

function outside(what: string, path: string): ApiError {
  return new ApiError('SERVICE_START_FAILED', `${what} "${path}" must be a relative path inside the service directory`);
}

/**
 * Velocity takes no flag. Modded servers take `nogui` (their launchers pass it through).
 * Other backends (CUSTOM included): `--nogui` from 1.14, where the option parser arrived;
 * `nogui` before it.
 */
function noguiFlag(software: SoftwareName, version: GameVersion | null): string[] {
  const kind = SOFTWARE[software];
  if (kind.isProxy || version === null) return [];
  if (kind.isModded) return ['nogui'];
  return isAtLeast(version, '1.14') ? ['--nogui'] : ['nogui'];
}
