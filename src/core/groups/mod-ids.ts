import { readdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { readJarModIds, type JarModIds, type JarReader } from './mod-jar';

/**
 * Which mods a template ships: the ids declared by the jars in its `mods/` folder (Fabric, Quilt,
 * Forge, NeoForge). Listing groups asks for this often, so each jar's result is cached until the
 * file changes.
 */

export type { JarModIds, JarProblem, JarReader } from './mod-jar';

/** Why a jar, or one metadata file in it (`entry`), contributed no ids. */
export interface ModIdWarning {
  /** The jar's file name inside the mods folder. */
  jar: string;
  entry?: string;
  message: string;
}

export interface ModIdScan {
  /** Sorted, without duplicates. */
  ids: string[];
  /** In jar-name order. */
  warnings: ModIdWarning[];
}

export interface ModIdScanner {
  scan(modsDir: string): Promise<ModIdScan>;
}

export interface ModIdScannerOptions {
  /** Reads one jar; defaults to the real reader. Tests wrap it to count reads. */
  readJar?: JarReader;
  /** Jars read at once on a cold cache. */
  concurrency?: number;
}

/**
 * A jar's result is reused while its size, mtime, ctime and inode are all unchanged. Size and
 * mtime are the usual key; ctime and inode also catch a jar swapped for another of the same size
 * with its mtime preserved (`cp -p`, rsync), which mtime alone would miss.
 */
interface CachedJar {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Shared by concurrent scans, so one jar is read once however many requests ask. Never rejects. */
  result: Promise<JarModIds>;
}

/** A scanner with its own cache. The module's exported functions share one. */
export function createModIdScanner(options: ModIdScannerOptions = {}): ModIdScanner {
  const readJar = options.readJar ?? ((path: string) => readJarModIds(path));
  const concurrency = Math.max(1, options.concurrency ?? 4);
  /** Resolved folder → jar file name → cached result. Rebuilt from each listing, so it never outgrows the folders. */
  const folders = new Map<string, Map<string, CachedJar>>();

  async function scanJar(jars: Map<string, CachedJar>, dir: string, name: string): Promise<JarModIds | undefined> {
    let info: Stats;
    try {
      info = await stat(join(dir, name));
    } catch (err) {
      jars.delete(name);
      // Deleted since the listing: it is simply no longer there.
      if (isMissing(err)) return undefined;
      return { ids: [], problems: [{ message: `cannot be read: ${errorMessage(err)}` }] };
    }
    if (!info.isFile()) {
      jars.delete(name);
      return undefined;
    }
    const cached = jars.get(name);
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs && cached.ctimeMs === info.ctimeMs && cached.ino === info.ino) {
      return cached.result;
    }
    const result = readJar(join(dir, name)).catch(
      (err: unknown): JarModIds => ({ ids: [], problems: [{ message: `cannot be read: ${errorMessage(err)}` }] }),
    );
    jars.set(name, { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino, result });
    return result;
  }

  async function scan(modsDir: string): Promise<ModIdScan> {
    const dir = resolve(modsDir);
    let names: string[];
    try {
      names = (await readdir(dir)).filter(isJarName).sort();
    } catch (err) {
      if (!isMissing(err)) throw err;
      folders.delete(dir);
      return { ids: [], warnings: [] };
    }
    let jars = folders.get(dir);
    if (!jars) {
      jars = new Map();
      folders.set(dir, jars);
    }
    const listed = new Set(names);
    for (const name of jars.keys()) if (!listed.has(name)) jars.delete(name);
    const cache = jars;
    const results = await mapLimit(names, concurrency, (name) => scanJar(cache, dir, name));
    const ids = new Set<string>();
    const warnings: ModIdWarning[] = [];
    names.forEach((jar, i) => {
      const result = results[i];
      if (!result) return;
      for (const id of result.ids) ids.add(id);
      for (const problem of result.problems) warnings.push({ jar, ...problem });
    });
    return { ids: [...ids].sort(), warnings };
  }

  return { scan };
}

const shared = createModIdScanner();

/**
 * The sorted, de-duplicated mod ids declared by the `*.jar` files directly in `modsDir`.
 * A missing folder gives []; unreadable jars and metadata are skipped (see scanModIdsDetailed
 * for why). Throws only when the folder exists but cannot be listed.
 */
export async function scanModIds(modsDir: string): Promise<string[]> {
  return (await shared.scan(modsDir)).ids;
}

/** As scanModIds, plus a warning for every jar or metadata file that was skipped. */
export function scanModIdsDetailed(modsDir: string): Promise<ModIdScan> {
  return shared.scan(modsDir);
}

/** Loaders only load `.jar` files and skip hidden ones, such as macOS's `._name.jar` resource forks. */
function isJarName(name: string): boolean {
  return name.endsWith('.jar') && !name.startsWith('.');
}

/** A folder that is not there, or a path component that is a file: both mean no mods. */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Maps with at most `limit` calls in flight, keeping the input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
