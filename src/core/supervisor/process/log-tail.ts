import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { errnoCode } from './errno';

/**
 * One read buffer for every tail in the process: drain() is synchronous and hands out views
 * that the consumer must copy before returning (LineSplitter does), so sharing is safe and 200
 * services cost 64 KiB, not 200 x 64 KiB.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/**
 * Reads what has been appended to a file since the last call, in 64 KiB chunks with pread, so a
 * burst of output costs a few syscalls rather than one per line. It does not watch anything:
 * its owner calls drain() on a change event or a poll tick. A file that shrank (truncated by
 * someone) is read again from its start.
 */
export class LogTail {
  #fd: number | undefined;
  #offset: number;
  #closed = false;

  constructor(
    private readonly path: string,
    startOffset: number,
    private readonly onBytes: (bytes: Uint8Array) => void,
  ) {
    this.#offset = startOffset;
  }

  get offset(): number {
    return this.#offset;
  }

  drain(): void {
    const fd = this.#open();
    if (fd === undefined) return;
    while (!this.#closed) {
      const n = readSync(fd, READ_BUFFER, 0, READ_BUFFER.length, this.#offset);
      if (n === 0) {
        if (fstatSync(fd).size < this.#offset) this.#offset = 0; // truncated: the next drain starts over
        return;
      }
      this.#offset += n;
      this.onBytes(READ_BUFFER.subarray(0, n));
      if (n < READ_BUFFER.length) return; // short read: at the end for now, skip the extra empty read
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number | undefined {
    if (this.#closed) return undefined;
    if (this.#fd === undefined) {
      try {
        this.#fd = openSync(this.path, 'r');
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return undefined; // not created yet: a later drain retries
        throw error;
      }
    }
    return this.#fd;
  }
}
