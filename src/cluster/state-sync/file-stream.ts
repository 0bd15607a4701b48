import { open } from 'node:fs/promises';

const CHUNK = 256 * 1024;

/**
 * Opens a file and streams it, closing it at the end or when the reader goes away. Opening
 * happens now (under the caller's lock), so a canonical copy swapped a moment later cannot
 * turn the answer into a missing file: the open descriptor keeps the old bytes readable.
 */
export async function openFileStream(path: string): Promise<{ stream: ReadableStream<Uint8Array>; size: number }> {
  const handle = await open(path, 'r');
  let size: number;
  try {
    size = (await handle.stat()).size;
  } catch (error) {
    await handle.close();
    throw error;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => undefined);
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const buffer = new Uint8Array(CHUNK);
        const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) {
          await close();
          controller.close();
          return;
        }
        controller.enqueue(buffer.subarray(0, bytesRead));
      } catch (error) {
        await close();
        controller.error(error);
      }
    },
    cancel: close,
  });
  return { stream, size };
}
