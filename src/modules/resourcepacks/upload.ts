import { lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { link, open, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { syncDirectory } from '../../core/files/atomic-write';
import { ApiError } from '../../errors';
import { declaredLength, diskError, receiveToFile, type ReceiveOptions } from '../../core/modpacks/receive-body';

/** What an upload left on disk: the final file, its SHA-1 (40 lower-case hex) and its size in bytes. */
export interface ReceivedPack {
  file: string;
  sha1: string;
  size: number;
}

const FAILED = 'RESOURCE_PACK_UPLOAD_FAILED';
const RECEIVE: ReceiveOptions = { errorCode: FAILED, noun: 'resource pack' };

/** The pack directory is the controller's; group members may read it, nobody else. */
const DIR_MODE = 0o750;
const FILE_MODE = 0o640;

/** The file suffix of an upload in progress; what sweepPartFiles removes. */
const PART_SUFFIX = '.zip.part';

/** The hash pass reads the file back in blocks of this size, through one buffer reused throughout. */
const HASH_BLOCK = 1024 * 1024;

/** The end-of-central-directory record: 22 bytes plus a comment of at most 65,535. */
const EOCD_SIZE = 22;
const EOCD_SEARCH = EOCD_SIZE + 0xffff;
const LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04] as const;
const EOCD_SIGNATURE = [0x50, 0x4b, 0x05, 0x06] as const;

/** Errors of link(2) that mean "this file system has no hard links", not "something is wrong". */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/**
 * Streams the request body into `<dir>/<packUuid>.zip`: first into `<dir>/<packUuid>.zip.part`,
 * then fsync, then rename, then fsync of the directory; returns the final path, the SHA-1 and
 * the size. `dir` is created (0750) when missing.
 *
 * - A Content-Length over `maxBytes` is PAYLOAD_TOO_LARGE before a byte is read or a file made;
 *   without one (chunked transfer) the limit holds while streaming and stops the upload at once.
 * - With a Content-Length, Bun writes the body to the file natively (no chunk becomes a JS
 *   object), and the SHA-1 is computed in a second pass through one reused 1 MiB buffer: memory
 *   stays flat whatever the size.
 * - The body must look like a zip: a local file header (`PK\x03\x04`) at the start and an
 *   end-of-central-directory record (`PK\x05\x06`) in the last 65,557 bytes. Otherwise, an empty
 *   body included, RESOURCE_PACK_UPLOAD_FAILED (422) saying what is missing. Only the head and
 *   the tail are read for this.
 * - A body that breaks off before its Content-Length is RESOURCE_PACK_UPLOAD_FAILED (422,
 *   "interrupted"); a full disk is RESOURCE_PACK_UPLOAD_FAILED with 507; other I/O errors are
 *   RESOURCE_PACK_UPLOAD_FAILED with 503 (step and error code, no paths).
 * - On any failure nothing is left: neither the part file nor the final file. A final file
 *   that already exists is never replaced (RESOURCE_PACK_ALREADY_EXISTS, 409): the part file is
 *   created exclusively and moved with link(2), which refuses to overwrite.
 */
export async function receivePack(request: Request, dir: string, packUuid: string, maxBytes: number): Promise<ReceivedPack> {
  // The uuid is the controller's own, never the client's; still, it must name a file in `dir`.
  if (!/^[A-Za-z0-9-]+$/.test(packUuid)) throw new Error(`receivePack: "${packUuid}" is not a pack uuid`);
  const declared = declaredLength(request);
  if (declared !== null && declared > maxBytes) {
    throw new ApiError('PAYLOAD_TOO_LARGE', `request body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`);
  }
  const file = join(dir, `${packUuid}.zip`);
  const part = `${file}.part`;
  try {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (error) {
    throw ioError(error, 'creating the pack directory (data/resourcepacks)');
  }
  if (exists(file)) throw alreadyExists(file);
  // Claim the part file exclusively: a second upload under the same uuid must not share it, and
  // must not remove it when it fails.
  try {
    await (await open(part, 'wx', FILE_MODE)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ApiError('RESOURCE_PACK_ALREADY_EXISTS', `an upload to ${basename(part)} is already in progress`);
    throw ioError(error, `creating ${basename(part)}`);
  }
  let placed = false;
  try {
    // receiveToFile removes `part` itself when the body fails; the rm below covers the rest.
    const size = await receiveToFile(request, part, maxBytes, RECEIVE);
    const handle = await open(part, 'r+');
    let sha1: string;
    try {
      await checkZip(handle, size);
      sha1 = await hashFile(handle, size);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await place(part, file);
    placed = true;
    await syncDirectory(dir);
    return { file, sha1, size };
  } catch (error) {
    await rm(part, { force: true }).catch(() => undefined);
    if (placed) await rm(file, { force: true }).catch(() => undefined);
    if (error instanceof ApiError) throw error;
    throw ioError(error, `writing ${basename(file)}`);
  }
}

/**
 * Removes the `*.zip.part` files left in `dir` by a controller that died mid-upload, and
 * nothing else; returns how many. Call it when no upload can be running (at start). A missing
 * `dir` has none.
 */
export function sweepPartFiles(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(PART_SUFFIX)) continue;
    const path = join(dir, name);
    // A directory or a symlink by that name is not ours to remove.
    if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) continue;
    rmSync(path, { force: true });
    removed++;
  }
  return removed;
}

/** Refuses a body that is not a zip, reading only its first 4 bytes and its last ≤ 65,557. */
async function checkZip(handle: FileHandle, size: number): Promise<void> {
  if (size === 0) throw notZip('the body is empty');
  const head = Buffer.alloc(LOCAL_HEADER.length);
  const headRead = (await handle.read(head, 0, head.length, 0)).bytesRead;
  if (headRead < head.length || !LOCAL_HEADER.every((b, i) => head[i] === b)) {
    throw notZip(`it does not start with a local file header (PK\\x03\\x04)`);
  }
  const tailLength = Math.min(size, EOCD_SEARCH);
  const tail = Buffer.alloc(tailLength);
  const tailRead = (await handle.read(tail, 0, tailLength, size - tailLength)).bytesRead;
  // The record is 22 bytes long, so its signature starts at least 22 bytes before the end;
  // search backwards, as unzippers do, since the comment may contain anything.
  for (let at = tailRead - EOCD_SIZE; at >= 0; at--) {
    if (EOCD_SIGNATURE.every((b, i) => tail[at + i] === b)) return;
  }
  throw notZip(`it has no end-of-central-directory record (PK\\x05\\x06) in its last ${EOCD_SEARCH} bytes`);
}

/** SHA-1 of the first `size` bytes of the file, read through one reused buffer. */
async function hashFile(handle: FileHandle, size: number): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha1');
  const buffer = Buffer.allocUnsafe(Math.min(HASH_BLOCK, Math.max(size, 1)));
  let position = 0;
  while (position < size) {
    const want = Math.min(buffer.length, size - position);
    const { bytesRead } = await handle.read(buffer, 0, want, position);
    if (bytesRead === 0) throw new ApiError(FAILED, `the received file shrank to ${position} of its ${size} bytes while it was hashed`, 503);
    hasher.update(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hasher.digest('hex');
}

/**
 * Moves `part` to `file` without ever replacing an existing `file`: link(2) fails with EEXIST
 * where rename(2) would overwrite. On a file system without hard links, rename after one more
 * existence check.
 */
async function place(part: string, file: string): Promise<void> {
  try {
    await link(part, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw alreadyExists(file);
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
    if (exists(file)) throw alreadyExists(file);
    await rename(part, file);
    return;
  }
  await unlink(part);
}

/** Anything at `path`, a dangling symlink included. */
function exists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function notZip(why: string): ApiError {
  return new ApiError(FAILED, `the upload is not a zip file: ${why}`, 422);
}

function alreadyExists(file: string): ApiError {
  return new ApiError('RESOURCE_PACK_ALREADY_EXISTS', `${basename(file)} already exists; it is left as it is`);
}

/**
 * A full disk is 507 (the operator's to fix); any other I/O error is a 503 naming the step and
 * the error code (never the controller's paths): the upload may succeed once the disk is fixed.
 */
function ioError(error: unknown, doing: string): unknown {
  const mapped = diskError(error, RECEIVE);
  if (mapped instanceof ApiError) return mapped;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return new ApiError(FAILED, `${doing} failed (${code}); check the controller's disk and try again`, 503);
  return error;
}
