import type { RemoteFile } from '../../software/upstream/model';
import { newestFirstOrder } from '../../software/upstream/version-order';
import type { ProxyRelease, UpdatableProxy } from './releases';

/** Something that runs a proxy jar svc can keep current: a proxy group, or a dedicated proxy. */
export interface ProxyTarget {
  kind: 'group' | 'dedicated';
  name: string;
  software: UpdatableProxy;
  /** The version its config names. */
  version: string;
  /** Absolute path of the jar it runs (in a template, or in the dedicated directory); it may not exist yet. */
  jarPath: string;
  /** A STATIC group's instances keep the jar their work dir already holds. */
  isStatic: boolean;
  /** A dedicated proxy's directory (the server's: the jar is reached without following links there); absent for template jars. */
  within?: string;
}

/** Where a target stands against the latest stable release. */
export type Standing = 'behind' | 'same' | 'ahead';

/** By the version lists' own order (Minecraft-like numbers; `3.4.0-SNAPSHOT` before `3.4.0`). */
export function standing(current: string, latest: string): Standing {
  const order = newestFirstOrder(latest, current);
  return order < 0 ? 'behind' : order > 0 ? 'ahead' : 'same';
}

/** One update to make. */
export interface ProxyUpdatePlan {
  target: ProxyTarget;
  /** What the events and the console say: a version, or `<version> build <n>` for a newer build of the same version. */
  currentVersion: string;
  newVersion: string;
  /** The version the config gets (the same as now for a newer build of the same version). */
  version: string;
  /** The jar to put in place, with its published SHA-256. */
  file: RemoteFile;
}

/**
 * Whether `target` should move to `release`, and what to call the move.
 *
 * - An older version than the release: update to it.
 * - The same version: Velocity ships months of builds under one version, so the jar decides.
 *   `jarSha256` is the SHA-256 of the jar at `target.jarPath` (null: there is none, and the next
 *   start fetches the newest build anyway). A jar that is a known older build of the version is
 *   updated; the release's own jar, a newer build, or a jar upstream never published (a fork the
 *   operator put there) is left alone.
 * - A newer version (a pre-release on purpose): left alone.
 *
 * `jarSha256` is read only for the same version; callers may pass null otherwise.
 */
export function planUpdate(target: ProxyTarget, release: ProxyRelease, jarSha256: string | null): ProxyUpdatePlan | null {
  switch (standing(target.version, release.version)) {
    case 'behind':
      return { target, currentVersion: target.version, newVersion: release.version, version: release.version, file: release.file };
    case 'ahead':
      return null;
    case 'same': {
      if (jarSha256 === null || jarSha256 === release.file.checksum?.hex) return null;
      const build = release.buildsBySha256.get(jarSha256);
      if (build === undefined || build >= release.build) return null;
      return {
        target,
        currentVersion: `${target.version} build ${build}`,
        newVersion: `${release.version} build ${release.build}`,
        version: target.version,
        file: release.file,
      };
    }
  }
}
