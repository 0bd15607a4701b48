import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { relPathProblem } from '../files/rel-path';
import { ApiError } from '../../errors';
import type { ExpectedFile } from './download';
import { loaderOfMrpack, type LoaderFacts } from './loader';

/**
 * The Modrinth modpack format (`.mrpack`, https://docs.modrinth.com/modpacks/format): a zip
 * with `modrinth.index.json` at its root —
 *
 *   {formatVersion: 1, game: "minecraft", versionId, name, summary?,
 *    files: [{path, hashes: {sha1, sha512}, env?: {client, server}, downloads: [url], fileSize}],
 *    dependencies: {minecraft, fabric-loader | forge | neoforge | quilt-loader}}
 *
 * — plus `overrides/` (copied into the instance), `server-overrides/` (then, over it, for
 * servers) and `client-overrides/` (clients only, never read here). `env.server` is
 * `required`, `optional` or `unsupported`; unsupported files are client-only and skipped.
 */

export const MRPACK_INDEX = 'modrinth.index.json';
export const MRPACK_LAYERS = ['overrides/', 'server-overrides/'] as const;

const Env = Type.Union([Type.Literal('required'), Type.Literal('optional'), Type.Literal('unsupported')]);

const IndexSchema = Type.Object({
  formatVersion: Type.Integer(),
  game: Type.String(),
  versionId: Type.String(),
  name: Type.String(),
  summary: Type.Optional(Type.String()),
  files: Type.Array(
    Type.Object({
      path: Type.String(),
      hashes: Type.Record(Type.String(), Type.String()),
      env: Type.Optional(Type.Object({ client: Type.Optional(Env), server: Type.Optional(Env) })),
      downloads: Type.Array(Type.String()),
      fileSize: Type.Optional(Type.Integer({ minimum: 0 })),
    }),
  ),
  dependencies: Type.Record(Type.String(), Type.String()),
});
export type MrpackIndex = Static<typeof IndexSchema>;

/**
 * Hosts a pack's `downloads` may point at: the ones the format allows, plus the configured
 * Modrinth base (a mirror, or a test's local fake). Checked before anything is fetched: an
 * index is data from the pack's author, and svc should not fetch arbitrary addresses for it.
 */
export const FORMAT_DOWNLOAD_HOSTS = ['cdn.modrinth.com', 'github.com', 'raw.githubusercontent.com', 'gitlab.com', 'edge.forgecdn.net'] as const;

/** A file the index lists, to be downloaded to `path`. */
export interface PlannedDownload {
  path: string;
  file: ExpectedFile;
}

export interface Skipped {
  path: string;
  reason: string;
}

export interface MrpackPlan {
  name: string;
  version: string;
  gameVersion: string;
  loader: LoaderFacts;
  downloads: PlannedDownload[];
  skipped: Skipped[];
}

/** Checks an index read from a pack and says what to download; MODPACK_INVALID naming the first problem. */
export function planMrpack(raw: unknown, allowedHosts: ReadonlySet<string>): MrpackPlan {
  if (!Value.Check(IndexSchema, raw)) {
    const first = Value.Errors(IndexSchema, raw).First();
    throw new ApiError('MODPACK_INVALID', `${MRPACK_INDEX} is not a Modrinth index${first ? `: ${first.path || '/'} ${first.message}` : ''}`);
  }
  const index = raw;
  if (index.formatVersion !== 1) throw new ApiError('MODPACK_INVALID', `${MRPACK_INDEX} has formatVersion ${index.formatVersion}; svc reads format 1`);
  if (index.game !== 'minecraft') throw new ApiError('MODPACK_INVALID', `${MRPACK_INDEX} is for the game "${index.game}", not minecraft`);
  const gameVersion = index.dependencies.minecraft;
  if (!gameVersion) throw new ApiError('MODPACK_INVALID', `${MRPACK_INDEX} names no minecraft version in "dependencies"`);
  const loader = loaderOfMrpack(index.dependencies);
  const downloads: PlannedDownload[] = [];
  const skipped: Skipped[] = [];
  const seen = new Set<string>();
  for (const entry of index.files) {
    const problem = relPathProblem(entry.path);
    if (problem) throw new ApiError('MODPACK_INVALID', `${MRPACK_INDEX} lists the file ${JSON.stringify(entry.path.slice(0, 200))}: ${problem} (a file may not leave the server folder)`);
    if (seen.has(entry.path)) throw new ApiError('MODPACK_INVALID', `${MRPACK_INDEX} lists ${entry.path} twice`);
    seen.add(entry.path);
    if (entry.env?.server === 'unsupported') {
      skipped.push({ path: entry.path, reason: 'client-only (env.server is unsupported)' });
      continue;
    }
    const url = entry.downloads.find((u) => hostOf(u) !== null && allowedHosts.has(hostOf(u)!));
    if (!url) {
      const hosts = [...new Set(entry.downloads.map((u) => hostOf(u) ?? 'an invalid URL'))].join(', ') || 'nowhere';
      throw new ApiError('MODPACK_INVALID', `${entry.path}: downloads only from ${hosts}; allowed are ${[...allowedHosts].join(', ')}`);
    }
    const sha1 = entry.hashes.sha1?.toLowerCase();
    const sha512 = entry.hashes.sha512?.toLowerCase();
    if (!sha1 && !sha512) throw new ApiError('MODPACK_INVALID', `${entry.path}: ${MRPACK_INDEX} gives neither a sha1 nor a sha512 hash`);
    downloads.push({ path: entry.path, file: { label: entry.path, url, hashes: { sha1, sha512 }, size: entry.fileSize ?? null } });
  }
  return { name: index.name, version: index.versionId, gameVersion, loader, downloads, skipped };
}

/** The host of an http(s) URL, lower-case; null for anything else. */
export function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
    return parsed.host.toLowerCase();
  } catch {
    return null;
  }
}
