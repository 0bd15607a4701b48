import { read } from 'node:fs';
import { promisify } from 'node:util';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { openRegular, RefusedEntry, type OpenedFile } from '../core/tenancy/fs';

const readAsync = promisify(read);
const CHUNK = 256 * 1024;

/** Already-compressed formats are stored; the rest deflated quickly. */
const STORED = /\.(jar|zip|gz|png|jpg|ogg|mca|dat|xz|zst)$/i;

/**
 * A streamed ZIP of `files` (archive path → file on disk), entries in name order. Pulled: the
 * next piece of a file is read only when the reader has taken the last one, so memory stays
 * flat however large the template and however slow the agent. fflate writes the zip because
 * nothing built into the runtime does (loaded only when a template is served).
 *
 * Each file is opened as it is reached, without following a link and without waiting on a
 * FIFO: one that is gone, or is no longer a regular file, is left out of the archive.
 */
export function zipStream(files: Map<string, string>): ReadableStream<Uint8Array> {
  const pieces = zipPieces([...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await pieces.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
}

async function* zipPieces(entries: [string, string][]): AsyncGenerator<Uint8Array> {
  let out: Uint8Array[] = [];
  let failure: unknown = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else out.push(chunk);
  });
  const drain = function* () {
    if (failure) throw failure;
    const ready = out;
    out = [];
    yield* ready;
  };
  for (const [rel, path] of entries) {
    const file = openOrSkip(path);
    if (file === null) continue;
    try {
      const entry = STORED.test(rel) ? new ZipPassThrough(rel) : new ZipDeflate(rel, { level: 1 });
      zip.add(entry);
      let pending: Uint8Array | null = null;
      for (;;) {
        const buffer = new Uint8Array(CHUNK);
        const { bytesRead } = await readAsync(file.fd, buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        if (pending) entry.push(pending, false);
        pending = buffer.subarray(0, bytesRead);
        yield* drain();
      }
      entry.push(pending ?? new Uint8Array(0), true);
      yield* drain();
    } finally {
      file.close();
    }
  }
  zip.end();
  yield* drain();
}

function openOrSkip(path: string): OpenedFile | null {
  try {
    return openRegular(path);
  } catch (error) {
    if (error instanceof RefusedEntry) return null;
    throw error;
  }
}
