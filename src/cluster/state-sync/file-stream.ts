import { read } from 'node:fs';
import { promisify } from 'node:util';
import { openRegular, type OpenedFile } from '../../core/tenancy/fs';

const CHUNK = 256 * 1024;
const readAsync = promisify(read);

/**
 * Opens a file and streams it, closing it at the end or when the reader goes away. Opening
 * happens now (under the caller's lock), so a canonical copy swapped a moment later cannot
 * turn the answer into a missing file: the open descriptor keeps the old bytes readable. The
 * open never follows a link at the end nor waits on a FIFO: anything but a regular file is
 * refused (tenancy/fs RefusedEntry), a missing one is ENOENT.
 */
export async function openFileStream(path: string): Promise<{ stream: ReadableStream<Uint8Array>; size: number }> {
  const file = openRegular(path);
  if (file === null) throw Object.assign(new Error(`${path} does not exist`), { code: 'ENOENT' });
  return { stream: streamOpened(file), size: file.stats.size };
}

/** The bytes of an open file as a pull stream (one chunk per pull); the file is closed when the stream ends, fails or is cancelled. */
export function streamOpened(file: OpenedFile): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const buffer = new Uint8Array(CHUNK);
        const { bytesRead } = await readAsync(file.fd, buffer, 0, CHUNK, null);
        if (bytesRead === 0) {
          file.close();
          controller.close();
          return;
        }
        controller.enqueue(buffer.subarray(0, bytesRead));
      } catch (error) {
        file.close();
        controller.error(error);
      }
    },
    cancel: () => file.close(),
  });
}
