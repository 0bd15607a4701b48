import { compareGameVersions, parseGameVersion } from '../version';
import type { VersionList } from './model';
import type { SoftwareName } from '../kinds';

/**
 * Ordering and stability of the version strings upstreams list. Upstreams disagree on order
 * (Purpur and Bibliothek-style APIs oldest first, PaperMC Fill and Fabric newest first, Leaf
 * unsorted), so every list is sorted here, newest first.
 */

/** Negative when `a` is newer (sorts first). Minecraft-like versions by number; anything else naturally. */
export function newestFirstOrder(a: string, b: string): number {
  const pa = parseGameVersion(a);
  const pb = parseGameVersion(b);
  if (pa && pb) return compareGameVersions(pb, pa);
  if (pa) return -1; // releases before snapshot ids like 24w14a
  if (pb) return 1;
  return b.localeCompare(a, 'en', { numeric: true });
}

/** Unique, newest first. */
export function newestFirst(versions: Iterable<string>): string[] {
  return [...new Set(versions)].sort(newestFirstOrder);
}

/** Pre-releases, release candidates and snapshots: `1.21-pre1`, `1.20.5-rc2`, `24w14a`, `1.14 Pre-Release 2`. */
const PRE_RELEASE = /(-|\s|_)(pre|rc)[-\s]?\d*|pre-release|snapshot|^\d\dw\d\d[a-z]$|-alpha|-beta|experimental/i;

export function isPreRelease(version: string): boolean {
  return PRE_RELEASE.test(version);
}

/** The API's version body from an already classified list. */
export function versionList(software: SoftwareName, stable: Iterable<string>, snapshots: Iterable<string>): VersionList {
  const s = newestFirst(stable);
  const p = newestFirst(snapshots);
  return { software, stable: s, snapshots: p, latest: s[0] ?? p[0] ?? null };
}

/** Splits by `isSnapshot` (default: the name looks like a pre-release). */
export function splitVersions(software: SoftwareName, versions: Iterable<string>, isSnapshot: (v: string) => boolean = isPreRelease): VersionList {
  const all = [...versions];
  return versionList(
    software,
    all.filter((v) => !isSnapshot(v)),
    all.filter((v) => isSnapshot(v)),
  );
}
