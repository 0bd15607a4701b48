import { ApiError } from '../../errors';
import type { SoftwareName } from './kinds';
import type { InstallerFile } from './upstream/model';
import type { Upstreams } from './upstream/upstreams';

/**
 * Kinds whose server svc installs on start by running the loader's installer
 * (`java -jar <installer> --installServer`, see server-installs.ts) rather than downloading a jar.
 */
export const INSTALLER_SOFTWARE = ['FORGE', 'NEOFORGE'] as const satisfies readonly SoftwareName[];
export type InstallerSoftware = (typeof INSTALLER_SOFTWARE)[number];

export function isInstallerSoftware(software: SoftwareName): software is InstallerSoftware {
  return (INSTALLER_SOFTWARE as readonly string[]).includes(software);
}

/** Loader versions become URL segments and file names: nothing but these characters. */
const LOADER_VERSION = /^[0-9A-Za-z][0-9A-Za-z._+-]*$/;

/**
 * The group's `modloaderVersion` as the upstream clients take it: trimmed, and without a
 * leading `<mc>-` (`1.20.1-47.3.0` is accepted for `47.3.0`). Blank stays blank (the client
 * picks one). SERVICE_START_FAILED when it could not be a version at all.
 */
export function loaderVersionOf(modloaderVersion: string, mcVersion: string): string {
  const own = modloaderVersion.trim();
  const version = own.startsWith(`${mcVersion}-`) ? own.slice(mcVersion.length + 1) : own;
  if (version !== '' && !LOADER_VERSION.test(version)) {
    throw new ApiError('SERVICE_START_FAILED', `modloaderVersion "${own}" is not a loader version like 47.3.0 or 21.1.77`);
  }
  return version;
}

/**
 * Which installer to run for a group: the group's loader version, else Forge's recommended
 * (else latest) promotion or NeoForge's newest release for the game version. Throws
 * UpstreamError, or SERVICE_START_FAILED for a malformed `modloaderVersion`.
 */
export async function resolveInstaller(up: Upstreams, software: InstallerSoftware, mcVersion: string, modloaderVersion: string): Promise<InstallerFile> {
  const version = loaderVersionOf(modloaderVersion, mcVersion);
  return software === 'FORGE' ? up.forge.installer(mcVersion, version) : up.neoforge.installer(mcVersion, version);
}
