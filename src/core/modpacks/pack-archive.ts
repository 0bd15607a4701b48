import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unpackedName } from '../zip/entry-name';
import { ApiError } from '../../errors';
import { openByteSource, type ByteSource } from './byte-source';
import type { ArchiveLimits } from './limits';
import { listZipEntries, ZipFormatError, type ZipEntry } from '../zip/zip-directory';

/** The entry reader (zlib, node streams) loads with the first archive read, not at start. */
const zipExtract = () => import('../zip/zip-extract');

/** A file of the archive and where it goes, relative to the folder it is unpacked into. */
export interface ArchiveFile {
  entry: ZipEntry;
  rel: string;
}

const GIB = 1024 * 1024 * 1024;

/**
 * A pack archive on disk, judged as a whole when opened: a readable zip, at most
 * `maxEntries` entries, no name that could leave the folder it is unpacked into (zip slip:
 * absolute paths, drive letters, `..`, control characters), and at most `maxUnpackedBytes`
 * once unpacked (zip bombs; the sizes are also enforced while unpacking). Every refusal is
 * MODPACK_INVALID naming the problem. Names use `/`; backslashes (some Windows tools) count
 * as separators.
 */
export class PackArchive {
  private readonly byName = new Map<string, ZipEntry>();

  private constructor(
    private readonly file: ByteSource,
    /** Files only (directory entries dropped), names normalised to `/`. */
    readonly files: readonly ZipEntry[],
  ) {
    for (const entry of files) if (!this.byName.has(entry.name)) this.byName.set(entry.name, entry);
  }

  /** `path`: the archive, or the files that are its bytes one after another (a chunked upload's chunks). */
  static async open(path: string | readonly string[], limits: ArchiveLimits): Promise<PackArchive> {
    const file = await openByteSource(typeof path === 'string' ? [path] : path);
    const { size } = file;
    try {
      const entries = await listZipEntries(file, size, limits.maxEntries).catch(rethrowInvalid);
      const files: ZipEntry[] = [];
      let unpacked = 0;
      for (const raw of entries) {
        const { rel: name, isDirectory, problem } = unpackedName(raw.name);
        if (problem) throw new ApiError('MODPACK_INVALID', `the archive entry ${JSON.stringify(raw.name.slice(0, 200))} is refused: ${problem} (an entry may not leave the folder it is unpacked into)`);
        if (isDirectory) continue;
        unpacked += raw.size;
        files.push({ ...raw, name });
      }
      if (unpacked > limits.maxUnpackedBytes) {
        throw new ApiError(
          'MODPACK_INVALID',
          `the archive would unpack to ${(unpacked / GIB).toFixed(2)} GiB, over the limit of ${(limits.maxUnpackedBytes / GIB).toFixed(2)} GiB (a zip bomb, or not a modpack)`,
        );
      }
      return new PackArchive(file, files);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The JSON document at `name` (an index or manifest), at most `maxBytes`. */
  async readJson(name: string, maxBytes: number): Promise<unknown> {
    const entry = this.byName.get(name);
    if (!entry) throw new ApiError('MODPACK_INVALID', `the archive has no ${name}`);
    const { readEntry } = await zipExtract();
    const bytes = await readEntry(this.file, this.file.size, entry, maxBytes).catch(rethrowInvalid);
    try {
      return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    } catch (error) {
      throw new ApiError('MODPACK_INVALID', `${name} is not valid JSON: ${(error as Error).message}`);
    }
  }

  /** The files under folder `prefix` (`overrides/`; '' for the whole archive), relative to it. */
  filesUnder(prefix: string): ArchiveFile[] {
    const out: ArchiveFile[] = [];
    for (const entry of this.files) if (entry.name.startsWith(prefix) && entry.name.length > prefix.length) out.push({ entry, rel: entry.name.slice(prefix.length) });
    return out;
  }

  /** Unpacks `files` under `root`, streamed entry by entry; later files replace earlier ones at the same path. */
  async extract(files: readonly ArchiveFile[], root: string, signal?: AbortSignal): Promise<number> {
    const { extractEntry } = await zipExtract();
    const made = new Set<string>();
    for (const { entry, rel } of files) {
      signal?.throwIfAborted();
      const dest = join(root, ...rel.split('/'));
      const parent = dirname(dest);
      if (!made.has(parent)) {
        await mkdir(parent, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST' || error.code === 'ENOTDIR') throw new ApiError('MODPACK_INVALID', `the archive has both a file and a folder at ${dirname(rel)}`);
          throw error;
        });
        made.add(parent);
      }
      await extractEntry(this.file, this.file.size, entry, dest, signal).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw new ApiError('MODPACK_INVALID', `the archive has both a file and a folder at ${rel}`);
        return rethrowInvalid(error);
      });
    }
    return files.length;
  }

  async close(): Promise<void> {
    await this.file.close().catch(() => undefined);
  }
}

function rethrowInvalid(error: unknown): never {
  if (error instanceof ZipFormatError) throw new ApiError('MODPACK_INVALID', `the pack is not a usable zip archive: ${error.message}`);
  throw error;
}
