import { METADATA_FORMATS, MetadataError } from './mod-metadata';
import { readZipEntries, type ZipEntryRead } from './mod-zip';

/** Cap on the inflated (and compressed) size of one metadata file; real ones are a few KB. */
export const METADATA_MAX_BYTES = 1024 * 1024;

/** Something that kept (part of) a jar from contributing ids. `entry` is set when one metadata file is at fault. */
export interface JarProblem {
  entry?: string;
  message: string;
}

export interface JarModIds {
  /** Sorted, without duplicates. */
  ids: string[];
  problems: JarProblem[];
}

/** Reads one jar; swapped out in tests to count reads. */
export type JarReader = (path: string) => Promise<JarModIds>;

const WANTED = new Set(METADATA_FORMATS.map((format) => format.entry));
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The mod ids a jar declares, from every metadata file it has (a multi-loader jar can carry
 * several). Never throws: a jar that is not a readable zip yields one problem and no ids. Each
 * metadata file counts on its own: one that the loader would reject (bad JSON/TOML, a missing
 * or invalid id, over the size cap) contributes nothing and is reported, while the jar's other
 * metadata files still count. A jar with no metadata file at all is reported too.
 */
export async function readJarModIds(path: string, maxBytes = METADATA_MAX_BYTES): Promise<JarModIds> {
  let entries: Map<string, ZipEntryRead>;
  try {
    entries = await readZipEntries(path, WANTED, maxBytes);
  } catch (err) {
    return { ids: [], problems: [{ message: `is not a readable jar: ${err instanceof Error ? err.message : String(err)}` }] };
  }
  const ids = new Set<string>();
  const problems: JarProblem[] = [];
  for (const format of METADATA_FORMATS) {
    const read = entries.get(format.entry);
    if (read === undefined) continue;
    if (!read.ok) {
      problems.push({ entry: format.entry, message: read.message });
      continue;
    }
    try {
      // Decoding strips a UTF-8 byte order mark, which some editors leave in these files.
      for (const id of format.ids(decode(read.data))) ids.add(id);
    } catch (err) {
      // Only MetadataError is expected; anything else is still this file's problem, not the caller's.
      problems.push({ entry: format.entry, message: err instanceof MetadataError ? err.message : `cannot be read: ${String(err)}` });
    }
  }
  if (entries.size === 0) problems.push({ message: `has no mod metadata (${[...WANTED].join(', ')})` });
  return { ids: [...ids].sort(), problems };
}

function decode(data: Uint8Array): string {
  try {
    return utf8.decode(data);
  } catch {
    throw new MetadataError('is not valid UTF-8');
  }
}
