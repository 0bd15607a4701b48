import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unpackedName } from './entry-name';
import { listZipEntries, ZipFormatError } from './zip-directory';
import { extractEntry } from './zip-extract';

export interface UnzipLimits {
  /** More entries than this is refused before anything is written. */
  maxEntries: number;
}

/**
 * Unpacks the zip file at `archive` into the folder `dest` (created), entry by entry from disk:
 * memory stays flat whatever the archive's size (the directory is read with positioned reads,
 * each entry streamed through zlib into its file). Every name is checked first (no absolute
 * path, drive letter, `..`, control character; backslashes count as separators), so nothing is
 * written outside `dest`. Throws ZipFormatError for an unreadable archive or a refused name.
 */
export async function unzipToDirectory(archive: string, dest: string, limits: UnzipLimits): Promise<number> {
  const file = await open(archive, 'r');
  try {
    const { size } = await file.stat();
    const entries = await listZipEntries(file, size, limits.maxEntries);
    const files = [];
    for (const entry of entries) {
      const { rel, isDirectory, problem } = unpackedName(entry.name);
      if (problem) throw new ZipFormatError(`the entry ${JSON.stringify(entry.name.slice(0, 200))} is refused: ${problem}`);
      if (!isDirectory) files.push({ entry, rel });
    }
    await mkdir(dest, { recursive: true });
    const made = new Set<string>();
    for (const { entry, rel } of files) {
      const target = join(dest, ...rel.split('/'));
      const parent = dirname(target);
      if (!made.has(parent)) {
        await mkdir(parent, { recursive: true });
        made.add(parent);
      }
      await extractEntry(file, size, entry, target);
    }
    return files.length;
  } finally {
    await file.close();
  }
}
