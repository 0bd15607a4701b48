import { SOFTWARE, type SoftwareName } from '../../software/kinds';
import type { RemoteFile } from '../../software/upstream/model';
import type { Upstreams } from '../../software/upstream/upstreams';
import { listVersions } from '../../software/version-lists';

/**
 * The proxy kinds svc keeps current, and where their releases come from: the same upstream
 * (and the same version list, `GET /api/software/{type}/versions`) a group's version is picked
 * from. Only Velocity today; a proxy kind without an upstream here is left alone.
 */
export const UPDATABLE_PROXIES = ['VELOCITY'] as const satisfies readonly SoftwareName[];
export type UpdatableProxy = (typeof UPDATABLE_PROXIES)[number];

export function isUpdatableProxy(software: SoftwareName): software is UpdatableProxy {
  return SOFTWARE[software].isProxy && (UPDATABLE_PROXIES as readonly string[]).includes(software);
}

/** The newest stable build of a proxy kind, and what is known about the other builds of its version. */
export interface ProxyRelease {
  software: UpdatableProxy;
  /** The version a group names (`3.4.0-SNAPSHOT`). */
  version: string;
  build: number;
  /** Its jar, with the SHA-256 upstream published (always present: Fill publishes one per build). */
  file: RemoteFile;
  /**
   * Every build of `version` (any channel) by the SHA-256 of its jar: tells which build a jar
   * already in a template is. Velocity keeps one version for months and ships builds under it.
   */
  buildsBySha256: ReadonlyMap<string, number>;
}

/**
 * Stable versions tried, newest first, for one with a stable build: a version only just listed
 * may have nothing but ALPHA/BETA builds yet. Bounded, so a check costs a few requests.
 */
const VERSIONS_TRIED = 3;

/**
 * The latest stable build of `software`: the newest stable version (by the version list's
 * order) that has a STABLE or RECOMMENDED build, and its newest such build. Null when the
 * upstream lists none. Throws UpstreamError when the upstream cannot be asked.
 */
export async function latestProxyRelease(up: Upstreams, software: UpdatableProxy): Promise<ProxyRelease | null> {
  const list = await listVersions(up, software);
  for (const version of list.stable.slice(0, VERSIONS_TRIED)) {
    const builds = await buildsOf(up, software, version);
    const stable = builds.find((b) => b.stable);
    if (!stable) continue;
    const bySha = new Map<string, number>();
    for (const b of builds) if (b.file.checksum) bySha.set(b.file.checksum.hex, b.id);
    return { software, version, build: stable.id, file: stable.file, buildsBySha256: bySha };
  }
  return null;
}

function buildsOf(up: Upstreams, software: UpdatableProxy, version: string) {
  switch (software) {
    case 'VELOCITY':
      return up.papermc.builds('velocity', version);
  }
}
