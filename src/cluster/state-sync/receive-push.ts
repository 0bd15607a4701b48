import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { createBreather } from '../../core/templates/breather';
import type { ExcludeMatcher } from '../../core/templates/deploy-excludes';
import { ApiError } from '../../errors';
import type { HashCache } from './hash-cache';
import { MAX_MANIFEST_BYTES, manifestProblem, sortedManifest, type Manifest } from './manifest';
import type { MultipartReader } from '../../core/files/multipart';
import { seedFile, StagedFile } from './stage';
import { FILE_PART_PREFIX, MANIFEST_PART } from './wire';

export { MAX_MANIFEST_BYTES };

const invalid = (message: string) => new ApiError('VALIDATION_FAILED', message);

/**
 * Reads the first part, which must be `manifest` (JSON `{files:{rel:{sha256,size}}}`), and
 * checks it. Entries the group's excludes match are dropped: excluded paths are never kept.
 * The part is held whole to be parsed, so it is refused past MAX_MANIFEST_BYTES as it arrives
 * (parsing JSON takes several times its size); `partBytes` is what it took.
 */
export async function readManifestPart(reader: MultipartReader, exclude: ExcludeMatcher): Promise<{ manifest: Manifest; partBytes: number }> {
  const head = await reader.nextPart();
  if (head === null) throw invalid(`the push has no parts; the first part must be "${MANIFEST_PART}"`);
  if (head.name !== MANIFEST_PART) throw invalid(`the first part must be "${MANIFEST_PART}" (the JSON manifest), got "${head.name.slice(0, 200)}"`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of reader.body()) {
    size += chunk.byteLength;
    if (size > MAX_MANIFEST_BYTES) {
      throw new ApiError('PAYLOAD_TOO_LARGE', `the manifest part is larger than ${MAX_MANIFEST_BYTES} bytes (${MAX_MANIFEST_BYTES / 1048576} MiB): exclude what need not move with the service ([group.sync] excludes), or keep fewer files`);
    }
    chunks.push(chunk);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw invalid(`the manifest part is not valid JSON: ${(error as Error).message}`);
  }
  const problem = manifestProblem(parsed);
  if (problem) throw invalid(problem);
  const files: Manifest['files'] = {};
  for (const [rel, entry] of Object.entries((parsed as Manifest).files)) {
    if (!exclude(rel)) files[rel] = { sha256: entry.sha256, size: entry.size };
  }
  return { manifest: sortedManifest(files), partBytes: size };
}

export interface ReceiveInput {
  reader: MultipartReader;
  /** The desired state (already checked, excludes dropped). */
  manifest: Manifest;
  /** The canonical copy as it is now, and its folder. */
  current: Manifest;
  canonical: string;
  stage: string;
  exclude: ExcludeMatcher;
  /** Hashes of the staged files are recorded under the stage's folder key. */
  cache: HashCache;
}

export interface Received {
  filesReceived: number;
  bytesReceived: number;
  filesInManifest: number;
}

/**
 * Fills the stage with exactly the manifest's files: unchanged ones hardlinked from the
 * canonical copy, the rest from `file:<rel>` parts, each checked against its manifest size and
 * SHA-256 as it is written. Any problem is a VALIDATION_FAILED naming the file; the caller
 * removes the stage.
 */
export async function receiveFiles(input: ReceiveInput): Promise<Received> {
  const { reader, manifest, current, canonical, stage, exclude, cache } = input;
  const breathe = createBreather();
  const missing = new Set<string>();
  for (const [rel, entry] of Object.entries(manifest.files)) {
    const have = current.files[rel];
    if (have && have.sha256 === entry.sha256 && have.size === entry.size) {
      try {
        seedFile(canonical, stage, rel);
        cache.remember(stage, rel, lstatSync(join(stage, rel)), entry.sha256);
      } catch (error) {
        throw new Error(`could not stage the kept file ${rel}: ${(error as Error).message}`, { cause: error });
      }
    } else {
      missing.add(rel);
    }
    const pause = breathe();
    if (pause) await pause;
  }

  let filesReceived = 0;
  let bytesReceived = 0;
  const uploaded = new Set<string>();
  for (let head = await reader.nextPart(); head !== null; head = await reader.nextPart()) {
    if (head.name === MANIFEST_PART) throw invalid('a second "manifest" part; send it once, first');
    if (!head.name.startsWith(FILE_PART_PREFIX)) throw invalid(`unexpected part "${head.name.slice(0, 200)}": only "${MANIFEST_PART}" and "${FILE_PART_PREFIX}<path>" parts are accepted`);
    const named = head.name.slice(FILE_PART_PREFIX.length);
    const rel = partPath(named, manifest);
    if (rel === null) {
      // A file the group excludes is not kept; its part is skipped rather than refused.
      if (exclude(named)) continue;
      throw invalid(`part "${FILE_PART_PREFIX}${named.slice(0, 200)}" is not in the manifest; list every uploaded file in it`);
    }
    if (uploaded.has(rel)) throw invalid(`file ${rel} was uploaded twice`);
    const entry = manifest.files[rel]!;
    const file = new StagedFile(join(stage, rel), entry.size);
    let written: { size: number; sha256: string };
    try {
      for await (const chunk of reader.body()) {
        if (!file.write(chunk)) throw invalid(`file ${rel}: more bytes than the manifest's size of ${entry.size}`);
      }
      written = file.finish();
    } catch (error) {
      file.abandon();
      throw error;
    }
    if (written.size !== entry.size) throw invalid(`file ${rel}: received ${written.size} bytes, the manifest says ${entry.size}`);
    if (written.sha256 !== entry.sha256) {
      throw invalid(`file ${rel}: SHA-256 mismatch (received ${written.sha256}, the manifest says ${entry.sha256}); the file changed while it was pushed, or the manifest is wrong`);
    }
    cache.remember(stage, rel, lstatSync(file.path), entry.sha256);
    uploaded.add(rel);
    missing.delete(rel);
    filesReceived++;
    bytesReceived += written.size;
  }

  if (missing.size > 0) {
    const [first] = missing;
    const more = missing.size > 1 ? ` (and ${missing.size - 1} more)` : '';
    throw invalid(`missing part "${FILE_PART_PREFIX}${first}"${more}: the controller has no file with that SHA-256; upload it`);
  }
  return { filesReceived, bytesReceived, filesInManifest: Object.keys(manifest.files).length };
}

/**
 * The manifest path a part name stands for. Browsers and Bun's FormData write `"` in a name as
 * `%22` (WHATWG), so a name not in the manifest as sent is tried with `%22` decoded.
 */
function partPath(named: string, manifest: Manifest): string | null {
  if (Object.hasOwn(manifest.files, named)) return named;
  const decoded = named.replaceAll('%22', '"');
  return decoded !== named && Object.hasOwn(manifest.files, decoded) ? decoded : null;
}
