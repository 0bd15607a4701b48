import type { ExpectedFile } from './download';

export const PACK_SOURCES = ['modrinth', 'curseforge'] as const;
export type PackSourceName = (typeof PACK_SOURCES)[number];

/** One published version of a pack, in the same shape for both hosts. */
export interface PackVersion {
  /** What `versionId` takes: a Modrinth version id, a CurseForge file id. */
  id: string;
  name: string;
  /** Minecraft versions, newest first as the host lists them. */
  gameVersions: string[];
  /** Lower-case loader names as the host lists them (`fabric`, `forge`, `neoforge`, `quilt`). */
  loaders: string[];
  /** ISO date. */
  published: string;
}

/** A pack as a host describes it; versions newest first. */
export interface PackProject {
  source: PackSourceName;
  projectId: string;
  slug: string;
  name: string;
  summary: string;
  versions: PackVersion[];
}

/** What a host is asked: a project (slug, id or numeric id), optionally one version of it. */
export interface PackRef {
  source: PackSourceName;
  project: string;
  version?: string;
}

/** A modpack host: looks packs up and says where a version's pack file is and what it hashes to. */
export interface PackSource {
  readonly name: PackSourceName;
  /** MODPACK_NOT_FOUND when the host does not know the project or it is not a modpack. */
  project(ref: string, signal?: AbortSignal): Promise<PackProject>;
  /** The version asked for (newest when none) and its pack file; MODPACK_NOT_FOUND when there is no such version. */
  packFile(project: PackProject, version: string | undefined, signal?: AbortSignal): Promise<{ version: PackVersion; file: ExpectedFile }>;
}
