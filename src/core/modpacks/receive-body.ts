import { open, rm, type FileHandle } from 'node:fs/promises';
import { ApiError } from '../../errors';

/**
 * Who is receiving: the error code of a failed upload and the noun its messages use. The
 * defaults are the modpack's; the resource packs module passes its own.
 */
export interface ReceiveOptions {
  /** The code of an upload that broke off or hit a full disk; default MODPACK_UPLOAD_FAILED. */
  errorCode?: string;
  /** What is being written, as in "while writing the <noun>"; default "modpack". */
  noun?: string;
}

const DEFAULT_ERROR_CODE = 'MODPACK_UPLOAD_FAILED';
const DEFAULT_NOUN = 'modpack';

/**
 * Writes a request body to a new file at `path` and returns its size; on any failure the file
 * is removed. With a Content-Length (the usual case) Bun writes the body to the file natively
 * as it arrives: no chunk of it becomes a JavaScript object, so memory stays flat however large
 * the body (read through a JS stream, a 1 GB upload leaves tens of MB of 64 KiB chunks for the
 * collector at any moment). Without one (chunked transfer encoding) it is streamed through
 * receiveBody. More than `maxBytes` is PAYLOAD_TOO_LARGE; a body that breaks off is
 * MODPACK_UPLOAD_FAILED (or `options.errorCode`); a full disk 507.
 */
export async function receiveToFile(request: Request, path: string, maxBytes: number, options: ReceiveOptions = {}): Promise<number> {
  const errorCode = options.errorCode ?? DEFAULT_ERROR_CODE;
  const declared = declaredLength(request);
  try {
    if (declared === null) {
      const out = await open(path, 'w');
      try {
        return await receiveBody(request.body, out, 0, maxBytes, null, options);
      } finally {
        await out.close();
      }
    }
    if (declared > maxBytes) throw new ApiError('PAYLOAD_TOO_LARGE', `request body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`);
    const written = await Bun.write(path, request).catch((error: unknown) => {
      // System errors (errno codes) are the file's; anything else is the body breaking off.
      if (typeof (error as NodeJS.ErrnoException | null)?.code === 'string' && /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code!)) throw error;
      throw new ApiError(errorCode, `the upload was interrupted (${(error as Error).message})`);
    });
    if (written !== declared) throw new ApiError(errorCode, `the upload was interrupted: ${written} of the ${declared} bytes announced by Content-Length arrived`);
    return written;
  } catch (error) {
    await rm(path, { force: true });
    throw diskError(error, options);
  }
}

/** Request bytes are gathered up to this much before one write: fewer system calls, bounded memory. */
const WRITE_BATCH = 1024 * 1024;

/**
 * Streams a request body into `out` from `position`, never holding more than ~1 MiB of it.
 * More than `maxBytes` is PAYLOAD_TOO_LARGE; a body that breaks off (the client went away, or
 * fewer bytes than its Content-Length) is MODPACK_UPLOAD_FAILED (or `options.errorCode`).
 * Returns the bytes written; after a failure some may have been written, and the caller undoes them.
 */
export async function receiveBody(
  body: ReadableStream<Uint8Array> | null,
  out: FileHandle,
  position: number,
  maxBytes: number,
  declaredLength: number | null,
  options: ReceiveOptions = {},
): Promise<number> {
  const errorCode = options.errorCode ?? DEFAULT_ERROR_CODE;
  if (!body) return 0;
  const reader = body.getReader();
  let received = 0;
  let batch: Uint8Array[] = [];
  let batched = 0;
  let at = position;
  const flush = async () => {
    if (batched === 0) return;
    const buffers = batch;
    batch = [];
    const size = batched;
    batched = 0;
    try {
      let written = (await out.writev(buffers, at)).bytesWritten;
      // A short write is rare (signals, odd file systems): finish it piece by piece.
      if (written < size) {
        const rest = Buffer.concat(buffers).subarray(written);
        for (let off = 0; off < rest.length; ) off += (await out.write(rest, off, rest.length - off, at + written + off)).bytesWritten;
        written = size;
      }
      at += written;
    } catch (error) {
      throw diskError(error, options);
    }
  };
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new ApiError(errorCode, `the upload was interrupted after ${received} bytes (${(error as Error).message})`);
      }
      if (chunk.done) break;
      received += chunk.value.length;
      if (received > maxBytes) throw new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${maxBytes} bytes`);
      batch.push(chunk.value);
      batched += chunk.value.length;
      if (batched >= WRITE_BATCH) await flush();
    }
    await flush();
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  if (declaredLength !== null && received !== declaredLength) {
    throw new ApiError(errorCode, `the upload was interrupted: ${received} of the ${declaredLength} bytes announced by Content-Length arrived`);
  }
  return received;
}

/** A full disk is the operator's to fix (507); other I/O errors stay what they are. */
export function diskError(error: unknown, options: ReceiveOptions = {}): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new ApiError(options.errorCode ?? DEFAULT_ERROR_CODE, `no space left on the controller's disk (${code}) while writing the ${options.noun ?? DEFAULT_NOUN}`, 507);
  }
  return error;
}

/** The Content-Length of a request, or null when absent or not a plain number. */
export function declaredLength(request: Request): number | null {
  const raw = request.headers.get('content-length');
  return raw !== null && /^\d+$/.test(raw) ? Number(raw) : null;
}
