import { Type, type Static } from '@sinclair/typebox';
import { createBreather, type Breather } from '../../core/templates/breather';
import { excludeMatcher, type ExcludeMatcher } from '../../core/templates/deploy-excludes';
import { RefusedEntry, TenantTree } from '../../core/tenancy/fs';
import { HashCache } from './hash-cache';
import { relPathProblem } from '../../core/files/rel-path';

export const SHA256_HEX = '^[0-9a-f]{64}$';

export const ManifestEntrySchema = Type.Object({
  sha256: Type.String({ pattern: SHA256_HEX, description: 'lower-case hex SHA-256 of the bytes' }),
  size: Type.Integer({ minimum: 0, description: 'bytes' }),
});

/**
 * A folder's regular files: relative POSIX path → SHA-256 and size. Links, empty folders and
 * special files are not part of it; neither is anything the group's `sync.excludes` matches.
 */
export const ManifestSchema = Type.Object({
  files: Type.Record(Type.String(), ManifestEntrySchema, { description: 'relative POSIX path → entry, sorted by path' }),
});
export type ManifestEntry = Static<typeof ManifestEntrySchema>;
export type Manifest = Static<typeof ManifestSchema>;

/** Largest manifest accepted (a million files). */
export const MAX_MANIFEST_FILES = 1_000_000;

/**
 * Largest manifest as JSON, either way (a push's `manifest` part, the answer of GET manifest):
 * it is parsed whole, which takes several times its size in memory. 32 MiB is about 150,000
 * files with long paths, or 250,000 with short ones.
 */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;

/** Paths sort by UTF-16 code units, as JavaScript and Java sort strings. */
export const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface BuildOptions {
  /** Group `sync.excludes` (names or globs, see deploy-excludes.ts); excluded folders are not entered. */
  excludes?: readonly string[];
  /** Reuses hashes of unchanged files across calls. */
  cache?: HashCache;
  breathe?: Breather;
  /** Told about regular files whose names state sync cannot carry (see relPathProblem); they are left out. */
  onUnsyncable?: (rel: string, reason: string) => void;
  /**
   * Told about entries the tenant rule leaves out (links, FIFOs and other special files, files
   * with other hard links, folders nested too deep; see tenancy/fs).
   */
  onSkipped?: (rel: string, reason: string) => void;
  /**
   * Accept files with other hard links: only for the controller's canonical copies, which are
   * seeded with hard links of each other. A service's work dir never does (default).
   */
  hardlinks?: boolean;
}

/**
 * The manifest of `dir` (empty when it does not exist). The folder is read by the rule of
 * tenancy/fs: links are never followed, FIFOs never opened, and what is left out is told to
 * `onSkipped`. Hashing reads files in chunks and yields to the event loop every few
 * milliseconds; with a cache, unchanged files are not read.
 */
/**
 * Never part of a service's state: `.svc` is the supervisor's folder in a work dir (the
 * server's TMPDIR, and the state files of launches by earlier versions), never the world's.
 */
const ALWAYS_EXCLUDED = ['/.svc'];

export async function buildManifest(dir: string, options: BuildOptions = {}): Promise<Manifest> {
  const breathe = options.breathe ?? createBreather();
  const cache = options.cache ?? new HashCache();
  const tree = TenantTree.open(dir, { hardlinks: options.hardlinks ?? false });
  if (tree === null) return { files: {} };
  try {
    const rels = await treeFiles(tree, excludeMatcher([...(options.excludes ?? []), ...ALWAYS_EXCLUDED]), breathe, options.onUnsyncable, options.onSkipped);
    const files: Manifest['files'] = {};
    for (const rel of rels) {
      try {
        const entry = await cache.hashIn(tree, dir, rel, breathe);
        // Deleted between the listing and the read: it is simply not part of this manifest.
        if (entry !== null) files[rel] = entry;
      } catch (error) {
        if (!(error instanceof RefusedEntry)) throw error;
        options.onSkipped?.(error.rel, error.reason);
      }
    }
    cache.retain(dir, new Set(rels));
    return { files };
  } finally {
    tree.close();
  }
}

/** Regular files under `dir` as sorted relative paths; excluded entries pruned, links never followed. */
export async function listFiles(
  dir: string,
  exclude: ExcludeMatcher,
  breathe: Breather = createBreather(),
  onUnsyncable?: (rel: string, reason: string) => void,
): Promise<string[]> {
  const tree = TenantTree.open(dir, { hardlinks: true });
  if (tree === null) return [];
  try {
    return await treeFiles(tree, exclude, breathe, onUnsyncable);
  } finally {
    tree.close();
  }
}

async function treeFiles(
  tree: TenantTree,
  exclude: ExcludeMatcher,
  breathe: Breather,
  onUnsyncable?: (rel: string, reason: string) => void,
  onSkipped?: (rel: string, reason: string) => void,
): Promise<string[]> {
  const out: string[] = [];
  for (const rel of await tree.files({ exclude, breathe, skip: onSkipped })) {
    const problem = relPathProblem(rel);
    if (problem === null) out.push(rel);
    else onUnsyncable?.(rel, problem);
  }
  return out.sort(byPath);
}

/** Total bytes of a manifest's files. */
export function manifestBytes(manifest: Manifest): number {
  let total = 0;
  for (const entry of Object.values(manifest.files)) total += entry.size;
  return total;
}

/**
 * Checks a manifest that came over the wire; returns the reason (naming the file) it is not
 * acceptable, or null. Beyond the schema: every path is a safe relative path, no path is both
 * a file and a folder of another path, sizes are whole numbers.
 */
export function manifestProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the manifest must be a JSON object {"files": {...}}';
  const files = (value as { files?: unknown }).files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return 'the manifest needs a "files" object of path → {sha256, size}';
  const entries = Object.entries(files as Record<string, unknown>);
  if (entries.length > MAX_MANIFEST_FILES) return `the manifest lists ${entries.length} files; at most ${MAX_MANIFEST_FILES} are accepted`;
  const sha = new RegExp(SHA256_HEX);
  const folders = new Set<string>();
  for (const [rel, entry] of entries) {
    const problem = relPathProblem(rel);
    if (problem) return `manifest entry ${JSON.stringify(rel)}: ${problem}`;
    if (typeof entry !== 'object' || entry === null) return `manifest entry ${JSON.stringify(rel)}: must be {sha256, size}`;
    const { sha256, size } = entry as { sha256?: unknown; size?: unknown };
    if (typeof sha256 !== 'string' || !sha.test(sha256)) return `manifest entry ${JSON.stringify(rel)}: "sha256" must be 64 lower-case hex digits`;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return `manifest entry ${JSON.stringify(rel)}: "size" must be a whole number of bytes`;
    const segments = rel.split('/');
    for (let i = 1; i < segments.length; i++) folders.add(segments.slice(0, i).join('/'));
  }
  for (const [rel] of entries) {
    if (folders.has(rel)) return `manifest entry ${JSON.stringify(rel)}: it is a file, but other entries use it as a folder`;
  }
  return null;
}

/** A manifest with its entries in path order (object keys keep insertion order for non-numeric keys). */
export function sortedManifest(files: Manifest['files']): Manifest {
  const out: Manifest['files'] = {};
  for (const rel of Object.keys(files).sort(byPath)) out[rel] = files[rel]!;
  return { files: out };
}
