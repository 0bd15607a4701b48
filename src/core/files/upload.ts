import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fchownSync, fdatasync, fstatSync, fsync, openSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, dirname } from 'node:path';
import { boundaryOf, MultipartReader } from './multipart';
import { ApiError } from '../../errors';
import { openRealFolder, READ_FLAGS } from '../tenancy/fs';
import { CREATE_FLAGS, placementOf, syncDirectory } from './atomic-write';
import { fsError, inspectLeaf, type Leaf } from './confine';
import { parseFileName, WINDOWS_RULES } from './path-syntax';

/** The part carrying the file, and the optional field naming it (sent before the file part). */
export const FILE_PART = 'file';
export const FILENAME_FIELD = 'filename';
const MAX_FILENAME_FIELD_BYTES = 1024;
/** What the file sink holds before it writes (network chunks are 64 KiB). */
const SINK_BUFFER_BYTES = 1024 * 1024;
/**
 * Data flushed to the device in the background every so many bytes during an upload (4 MiB
 * measured best on the upload bench: 16 MiB and more leave a long flush for the end).
 */
const SYNC_EVERY_BYTES = 4 * 1024 * 1024;
const fsyncAsync = promisify(fsync);
const fdatasyncAsync = promisify(fdatasync);
/** Prefix of the temp files uploads stream into (next to their final name). */
export const UPLOAD_TEMP_PREFIX = '.svc-upload-';

export interface UploadInput {
  body: ReadableStream<Uint8Array> | null;
  contentType: string | null;
  /** Real path of the directory the file goes into, and of its scope root. */
  dir: string;
  rootReal: string;
  /** The directory relative to the scope root ('' for the root), for messages. */
  rel: string;
  /** Largest file accepted, and largest request body read (file plus multipart framing). */
  maxFileBytes: number;
  maxBodyBytes: number;
}

export interface Uploaded {
  name: string;
  size: number;
  /** True when a file of that name was replaced. */
  replaced: boolean;
}

const invalid = (message: string) => new ApiError('VALIDATION_FAILED', message);
const conflict = (message: string) => new ApiError('VALIDATION_FAILED', message, 409);

/**
 * Receives a `multipart/form-data` upload into a directory, streamed: each chunk is written to
 * a temp file beside the final name as it arrives (memory stays at a chunk or two whatever the
 * size), then fsynced and renamed over the final name, so readers see the old file or the
 * whole new one. Past `maxFileBytes` (or a body past `maxBodyBytes`) the read stops at once
 * with PAYLOAD_TOO_LARGE; on any failure, a cut connection included, the temp file is removed
 * and nothing is left behind.
 *
 * Parts: `file` (exactly one; its filename names the file) and optionally a `filename` field
 * before it that overrides the name; other parts are skipped. A name is one plain segment
 * (PATH_TRAVERSAL otherwise). An existing file is replaced (keeping its owner and mode); a
 * new file in a folder of another user becomes that user's (atomic-write.ts placementOf); a
 * link there is written through when it stays inside the scope; a directory there is 409. The
 * temp file is created and renamed inside the folders that were checked (tenancy/fs
 * openRealFolder), so a link swapped in on the way meanwhile is refused, never followed.
 */
export async function receiveUpload(input: UploadInput): Promise<Uploaded> {
  const boundary = boundaryOf(input.contentType);
  if (boundary === null) throw invalid('send multipart/form-data (with a boundary) holding a "file" part, or JSON {"type":"directory"} to create a directory');
  if (!input.body) throw invalid('the upload has no body');
  const reader = new MultipartReader(reportCutOff(input.body), boundary, input.maxBodyBytes);
  let nameField: string | null = null;
  let staged: { temp: string; leaf: Leaf; size: number } | null = null;
  let temp: string | null = null;
  let folder: ReturnType<typeof openRealFolder> | null = null;
  try {
    for (let head = await reader.nextPart(); head !== null; head = await reader.nextPart()) {
      if (head.name === FILENAME_FIELD && head.filename === null) {
        if (staged) throw invalid(`send the "${FILENAME_FIELD}" field before the "${FILE_PART}" part`);
        nameField = parseFileName(await readField(reader), WINDOWS_RULES);
        continue;
      }
      if (head.name !== FILE_PART) continue; // other form fields are not ours: skipped
      if (staged) throw invalid(`one "${FILE_PART}" part per request`);
      const name = nameField ?? head.filename;
      if (!name) throw invalid(`the "${FILE_PART}" part has no filename; give it one or send a "${FILENAME_FIELD}" field before it`);
      const leaf = await inspectLeaf(input.rootReal, input.dir, parseFileName(name, WINDOWS_RULES), relOf(input.rel, name));
      if (leaf.targetStats?.isDirectory()) throw conflict(`${relOf(input.rel, name)} is a directory; delete it first or choose another name`);
      if (leaf.targetStats && !leaf.targetStats.isFile()) throw conflict(`${relOf(input.rel, name)} is not a regular file (a pipe, socket or device); it is not replaced`);
      folder = openRealFolder(dirname(leaf.target));
      temp = `${folder.base}/${UPLOAD_TEMP_PREFIX}${randomBytes(8).toString('hex')}.tmp`;
      const size = await streamToFile(reader, temp, input.maxFileBytes, relOf(input.rel, name));
      staged = { temp, leaf, size };
    }
    if (!staged || !folder) throw invalid(`the upload has no "${FILE_PART}" part`);
    // Check the name again: a directory (or a link out) may have appeared while bytes arrived.
    const { leaf } = staged;
    const now = await inspectLeaf(input.rootReal, leaf.dir, leaf.name, relOf(input.rel, leaf.name));
    if (now.targetStats && !now.targetStats.isFile()) throw conflict(`${relOf(input.rel, leaf.name)} became a directory or another non-file during the upload`);
    const target = dirname(now.target) === dirname(leaf.target) ? null : openRealFolder(dirname(now.target));
    try {
      place(staged.temp, placementOf((target ?? folder).stats, now.targetStats));
      await rename(staged.temp, `${(target ?? folder).base}/${basename(now.target)}`);
    } finally {
      target?.close();
    }
    temp = null;
    await syncDirectory(dirname(now.target));
    return { name: leaf.name, size: staged.size, replaced: now.targetStats !== null };
  } catch (error) {
    await reader.cancel();
    throw fsError(error, input.rel);
  } finally {
    if (temp) await rm(temp, { force: true }).catch(() => undefined);
    folder?.close();
  }
}

/**
 * Gives the finished temp file its owner and mode (placementOf) before it is renamed into
 * place; opened without following a link, and only while it is still the one file svc made.
 */
function place(temp: string, placement: ReturnType<typeof placementOf>): void {
  if (!placement.owner && placement.mode === null) return;
  const fd = openSync(temp, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.nlink !== 1) throw conflict('the upload\'s temp file was replaced while it was written; try again');
    if (placement.owner) fchownSync(fd, placement.owner.uid, placement.owner.gid);
    if (placement.mode !== null) fchmodSync(fd, placement.mode);
  } finally {
    closeSync(fd);
  }
}

const relOf = (dirRel: string, name: string) => (dirRel ? `${dirRel}/${name}` : name);

/**
 * Writes the current part to a new file, fsynced; PAYLOAD_TOO_LARGE as soon as it passes `max`.
 * Bun's FileSink writes each chunk straight from the buffer it is given (measured: about twice
 * the rate of FileHandle.write on a 100 MiB upload, with less garbage). The data is flushed to
 * the device in the background while the upload goes on (an fdatasync every SYNC_EVERY_BYTES,
 * on the thread pool), so the final fsync only has the tail left to wait for.
 */
async function streamToFile(reader: MultipartReader, path: string, max: number, rel: string): Promise<number> {
  let fd: number;
  try {
    fd = openSync(path, CREATE_FLAGS, 0o644);
  } catch (error) {
    throw fsError(error, rel);
  }
  const sink = Bun.file(fd).writer({ highWaterMark: SINK_BUFFER_BYTES });
  let size = 0;
  let buffered = 0;
  let unsynced = 0;
  let syncing: Promise<void> | null = null;
  let syncError: unknown = null;
  try {
    for await (const chunk of reader.body()) {
      size += chunk.byteLength;
      if (size > max) throw new ApiError('PAYLOAD_TOO_LARGE', `the file is larger than the upload limit of ${max} bytes`);
      sink.write(chunk);
      // Waiting for the file to take each megabyte keeps the request's pace to the disk's
      // (backpressure), with one write call per megabyte rather than per network chunk.
      buffered += chunk.byteLength;
      if (buffered >= SINK_BUFFER_BYTES) {
        buffered = 0;
        await sink.flush();
      }
      unsynced += chunk.byteLength;
      if (unsynced >= SYNC_EVERY_BYTES && syncing === null) {
        unsynced = 0;
        syncing = fdatasyncAsync(fd)
          .catch((error: unknown) => void (syncError = error))
          .finally(() => void (syncing = null));
      }
    }
    await sink.end();
    await syncing;
    if (syncError) throw syncError;
    await fsyncAsync(fd);
  } catch (error) {
    await Promise.resolve(sink.end()).catch(() => undefined);
    throw error;
  } finally {
    // Never close the descriptor under a sync still running on the thread pool.
    await syncing;
    closeSync(fd);
  }
  return size;
}

async function readField(reader: MultipartReader): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of reader.body()) {
    size += chunk.byteLength;
    if (size > MAX_FILENAME_FIELD_BYTES) throw invalid(`the "${FILENAME_FIELD}" field is longer than ${MAX_FILENAME_FIELD_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The request body, with a connection cut by the client (abort, network loss) turned into an
 * ApiError: the upload is refused as incomplete rather than logged as a server fault.
 */
function reportCutOff(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const source = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await source.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(invalid(`the upload was cut off before it ended (${(error as Error).message ?? 'connection closed'})`));
        }
      },
      cancel: (reason) => source.cancel(reason).catch(() => undefined),
    },
    { highWaterMark: 0 },
  );
}
