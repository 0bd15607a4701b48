/**
 * The software routes (src/http/routes/software.ts) as the group and dedicated forms call them,
 * and what the forms make of their answers. No JSX here: the browser test reads the helpers.
 */
import { api } from '../api';
import { SOFTWARE, VERSION_PATTERN } from './patterns';

/** SoftwareListEntrySchema, src/core/software/kinds.ts. */
export interface SoftwareInfo {
  name: string;
  needsModloaderVersion: boolean;
  needsCustomJar: boolean;
  isProxy: boolean;
}

/** VersionListSchema and LoaderVersionListSchema (src/core/software/upstream/model.ts): newest first. */
export interface VersionList {
  software: string;
  stable: string[];
  snapshots: string[];
  latest: string | null;
}

export interface LoaderVersionList extends VersionList {
  mcVersion: string;
  versions: string[];
  recommended: string | null;
}

/** The upstreams are asked at most every 10 minutes by the controller (its cache): no need to ask it more often. */
export const SOFTWARE_STALE_MS = 10 * 60_000;

export const SOFTWARE_KEY = ['software'] as const;
export const versionsKey = (software: string) => ['software', software, 'versions'] as const;
export const loaderVersionsKey = (software: string, mcVersion: string) => ['software', software, 'modloader-versions', mcVersion] as const;

export const listSoftware = () => api<{ software: SoftwareInfo[] }>('/api/software');
/** 503 SERVICE_UNAVAILABLE, naming the upstream, when it cannot be reached. */
export const listVersions = (software: string) => api<VersionList>(`/api/software/${encodeURIComponent(software)}/versions`);
export const listLoaderVersions = (software: string, mcVersion: string) =>
  api<LoaderVersionList>(`/api/software/${encodeURIComponent(software)}/modloader-versions?mcVersion=${encodeURIComponent(mcVersion)}`);

/** The kinds as svc knew them when this dashboard was built: the form's fallback while GET /api/software has not answered. */
const LOADERS = ['FABRIC', 'FORGE', 'NEOFORGE'];
export const KNOWN_SOFTWARE: readonly SoftwareInfo[] = SOFTWARE.map((name) => ({
  name,
  needsModloaderVersion: LOADERS.includes(name),
  needsCustomJar: name === 'CUSTOM',
  isProxy: name === 'VELOCITY',
}));

/** What the forms know of `name`: the API's answer, else the built-in table; null for a name neither knows. */
export function softwareInfo(list: readonly SoftwareInfo[] | undefined, name: unknown): SoftwareInfo | null {
  return (list ?? KNOWN_SOFTWARE).find((entry) => entry.name === name) ?? KNOWN_SOFTWARE.find((entry) => entry.name === name) ?? null;
}

/** The route's mcVersion pattern (McVersion, src/http/routes/software.ts): what may be asked for at all. */
const MC_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+ -]{0,63}$/;
export const canListLoaders = (mcVersion: string) => MC_VERSION.test(mcVersion) && new RegExp(VERSION_PATTERN).test(mcVersion);

/**
 * A version list as a select offers it: the versions a group or service takes (the version
 * field's pattern: Fabric's snapshots such as 25w14a are listed upstream but refused by the API),
 * releases and the rest apart, and how many were left out.
 */
export function offeredVersions(list: Pick<VersionList, 'stable' | 'snapshots'>): { stable: string[]; snapshots: string[]; leftOut: number } {
  const takes = new RegExp(VERSION_PATTERN);
  const stable = list.stable.filter((v) => takes.test(v));
  const snapshots = list.snapshots.filter((v) => takes.test(v));
  return { stable, snapshots, leftOut: list.stable.length + list.snapshots.length - stable.length - snapshots.length };
}

/**
 * What the chosen software means for the form, in a line under its select. A group's server is
 * fetched by svc (jarCheck, src/core/software/jar-check.ts: downloaded, or a loader's installer
 * run, into its template); a dedicated service's never is: it runs what its folder holds.
 */
export function softwareHint(info: SoftwareInfo | null, where: 'group' | 'dedicated'): string {
  if (!info) return 'Choose the server software.';
  if (info.needsCustomJar) {
    return where === 'group'
      ? 'CUSTOM: svc downloads nothing. Put your server jar in the template folder and name it under Jar name, or give a Start command (both in “Launch”).'
      : 'CUSTOM: put your server jar in the service’s folder and name it under Jar name, or give a Start command (both in “Launch”).';
  }
  if (where === 'dedicated') {
    const kind = info.isProxy ? `${info.name} is a proxy: players connect to it, and it sends them on to the game servers. ` : info.needsModloaderVersion ? `${info.name} is a mod loader. ` : '';
    return `${kind}svc downloads nothing for a dedicated service: put the ${info.name} server in its folder (the jar as server.jar, or name it under Jar name).`;
  }
  if (info.isProxy) return `${info.name} is a proxy: players connect to it, and it sends them on to the game servers. svc downloads it into the template at the first start.`;
  if (info.needsModloaderVersion) {
    return `${info.name} is a mod loader: choose its version under Modloader version (Automatic: the upstream's recommended one). svc installs it into the template at the first start.`;
  }
  return `svc downloads the ${info.name} server jar for this version into the template at the first start.`;
}
