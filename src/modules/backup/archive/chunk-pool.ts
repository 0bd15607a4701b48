/** Read size for file content: the pool's buffers are this large. */
export const READ_BYTES = 1024 * 1024;

/**
 * Read buffers, reused once the tar bytes they carry have been copied into a frame block. Fresh
 * memory is expensive (page faults, and a garbage collector that frees it late: resident memory
 * grows by what was allocated since the last collection), so the steady state allocates none.
 */
export class ChunkPool {
  private readonly free: Buffer[] = [];
  private readonly mine = new WeakSet<ArrayBufferLike>();

  take(): Buffer {
    const reused = this.free.pop();
    if (reused) return reused;
    const fresh = Buffer.from(new ArrayBuffer(READ_BYTES));
    this.mine.add(fresh.buffer);
    return fresh;
  }

  /** Takes back a buffer handed out by take() (or a view from its start); ignores anything else. */
  release(view: Uint8Array): void {
    if (view.byteOffset === 0 && this.mine.has(view.buffer)) this.free.push(Buffer.from(view.buffer));
  }
}
