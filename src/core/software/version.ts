import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors';

/**
 * Minecraft release numbers (`1.8.8`, `1.21`, `1.20.5-pre1`). Snapshot ids like `24w14a` are
 * not versions here: the controller needs the release a build belongs to, to pick Java and flags.
 */

export const GAME_VERSION_PATTERN = '^\\d+\\.\\d+(\\.\\d+)?(-.*)?$';
const GAME_VERSION = new RegExp(GAME_VERSION_PATTERN);

export const GameVersionSchema = Type.String({
  pattern: GAME_VERSION_PATTERN,
  description: 'Minecraft version, e.g. 1.21.4 or 1.20.5-pre1',
});

export interface GameVersion {
  major: number;
  minor: number;
  /** 0 when the version has no third part (`1.21` is `1.21.0`). */
  patch: number;
  /** Text after the first `-` (`pre1`), or '' for a release. */
  suffix: string;
}

export function parseGameVersion(version: string): GameVersion | null {
  if (!GAME_VERSION.test(version)) return null;
  const dash = version.indexOf('-');
  const release = dash === -1 ? version : version.slice(0, dash);
  const suffix = dash === -1 ? '' : version.slice(dash + 1);
  const [major = 0, minor = 0, patch = 0] = release.split('.').map(Number);
  return { major, minor, patch, suffix };
}

/** Compares the release numbers only: a pre-release sorts with its release (`1.20.5-pre1` = `1.20.5`). */
export function compareRelease(a: GameVersion, b: GameVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/**
 * Full ordering for sorting: by release, then a pre-release/snapshot before its release, then
 * suffixes by natural order (`pre2` < `pre10`). Negative when a < b.
 */
export function compareGameVersions(a: GameVersion, b: GameVersion): number {
  const release = compareRelease(a, b);
  if (release !== 0) return release;
  if (a.suffix === b.suffix) return 0;
  if (a.suffix === '') return 1;
  if (b.suffix === '') return -1;
  return a.suffix.localeCompare(b.suffix, 'en', { numeric: true });
}

/**
 * True when `version` belongs to release `floor` or later. Bands (Java, nogui, Forge args) go
 * by release, so `1.20.5-pre1` is in the 1.20.5 band: its server already needs Java 21.
 */
export function isAtLeast(version: GameVersion, floor: string): boolean {
  const parsed = parseGameVersion(floor);
  if (!parsed) throw new Error(`bad version floor ${floor}`);
  return compareRelease(version, parsed) >= 0;
}

/**
 * The parsed version, or SERVICE_START_FAILED naming the software: the version decides Java and
 * flags, so a service whose group holds no Minecraft version cannot be started.
 */
export function requireGameVersion(version: string, software: string): GameVersion {
  const parsed = parseGameVersion(version);
  if (parsed) return parsed;
  throw new ApiError('SERVICE_START_FAILED', `${software} version "${version}" is not a Minecraft version (like 1.21.4)`);
}
