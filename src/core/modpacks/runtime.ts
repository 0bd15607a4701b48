import { ApiError } from '../../errors';
import { GROUP_FIELDS } from '../groups/model';
import type { SoftwareName } from '../software/kinds';
import type { PackFacts } from './inspect';

/** What the caller may say in place of (or over) what the pack says. */
export interface RuntimeOverrides {
  software?: SoftwareName;
  version?: string;
  modloaderVersion?: string;
}

export interface Runtime {
  software: SoftwareName;
  version: string;
  modloaderVersion: string;
}

const VERSION_PATTERN = new RegExp(GROUP_FIELDS.version.schema.pattern ?? '');
const MAX_LOADER_VERSION = GROUP_FIELDS.modloaderVersion.schema.maxLength ?? 64;

/**
 * The software, Minecraft version and loader version a group or dedicated service gets: the
 * caller's when given, else the pack's. A server pack that does not show them and a caller
 * that did not say are VALIDATION_FAILED; a pack version no group can run is MODPACK_INVALID.
 */
export function runtimeOf(facts: PackFacts, overrides: RuntimeOverrides): Runtime {
  const software = overrides.software ?? facts.software;
  const version = overrides.version ?? facts.gameVersion;
  if (!software || !version) {
    const missing = [!software && 'software (FABRIC, FORGE or NEOFORGE)', !version && 'version (the Minecraft version)'].filter(Boolean).join(' and ');
    throw new ApiError('VALIDATION_FAILED', `this ${facts.kind === 'server' ? 'server pack' : 'pack'} does not show which ${missing} it runs; pass ${missing}`);
  }
  if (!VERSION_PATTERN.test(version)) throw new ApiError('MODPACK_INVALID', `the pack runs Minecraft "${version}", which is not a version a group can run (a release such as 1.20.1)`);
  const modloaderVersion = overrides.modloaderVersion ?? facts.loaderVersion;
  if (modloaderVersion.length > MAX_LOADER_VERSION) throw new ApiError('MODPACK_INVALID', `the pack's loader version is longer than ${MAX_LOADER_VERSION} characters`);
  return { software, version, modloaderVersion };
}
