import { Type, type Static } from '@sinclair/typebox';
import { SoftwareNameSchema } from '../kinds';

/** Hash algorithms upstreams publish, named as Bun.CryptoHasher names them. */
export type ChecksumAlgorithm = 'sha256' | 'sha512' | 'sha1' | 'md5';

export interface Checksum {
  algorithm: ChecksumAlgorithm;
  /** Lower-case hex. */
  hex: string;
}

/** One file to fetch: where from, what it is, and the hash upstream published for it (if any). */
export interface RemoteFile {
  /** Human name of the upstream, for messages: "PaperMC downloads service". */
  upstream: string;
  url: string;
  /** What it is, for logs and messages: "Paper 1.21.4 build 130". */
  label: string;
  checksum: Checksum | null;
  /** Upstream's own file name, when it names one. */
  fileName?: string;
}

/** A loader installer to run (Forge, NeoForge): the file, and the loader build it installs. */
export interface InstallerFile extends RemoteFile {
  /** The installer's own file name (`forge-1.20.1-47.3.0-installer.jar`); its log is `<fileName>.log`. */
  fileName: string;
  /** The loader version installed (`47.3.0`, `21.1.77`), as the group's `modloaderVersion` names it. */
  loaderVersion: string;
}

/** `GET /api/software/{type}/versions` (REFERENCE-NOTES: `{software, stable, snapshots, latest}`), lists newest first. */
export const VersionListSchema = Type.Object({
  software: SoftwareNameSchema,
  stable: Type.Array(Type.String(), { description: 'release versions, newest first' }),
  snapshots: Type.Array(Type.String(), { description: 'pre-releases, release candidates and snapshots, newest first' }),
  latest: Type.Union([Type.String(), Type.Null()], { description: 'the newest stable version (else the newest snapshot); null when there is none' }),
});
export type VersionList = Static<typeof VersionListSchema>;

/** `GET /api/software/{type}/modloader-versions?mcVersion=`, newest first. */
export const LoaderVersionListSchema = Type.Object({
  software: SoftwareNameSchema,
  mcVersion: Type.String(),
  versions: Type.Array(Type.String(), { description: 'loader versions for mcVersion, newest first' }),
  stable: Type.Array(Type.String(), { description: 'the versions not marked as pre-releases (beta, alpha, rc), newest first: what the dashboard offers' }),
  snapshots: Type.Array(Type.String(), { description: 'the pre-release versions, newest first' }),
  latest: Type.Union([Type.String(), Type.Null()], { description: 'the newest loader version' }),
  recommended: Type.Union([Type.String(), Type.Null()], { description: 'the newest stable (Fabric), recommended (Forge) or non-beta (NeoForge) version' }),
});
export type LoaderVersionList = Static<typeof LoaderVersionListSchema>;
