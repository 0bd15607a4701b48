import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { errnoCode } from './errno';

/** Stdin bytes a server that is not reading may have waiting, beyond the 64 KiB pipe buffer. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
const RETRY_MS = 5;

/**
 * Writes to the server's stdin FIFO without ever blocking the controller. The FIFO is opened
 * write-only and non-blocking: the wrapper holds it read-write, so a reader always exists while
 * the wrapper lives (ENXIO means it does not). When the pipe is full (EAGAIN, or a partial
 * write) the rest is queued and retried on a timer, in order.
 */
export class FifoWriter {
  #fd: number | undefined;
  #queue: Buffer[] = [];
  #queuedBytes = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(private readonly path: string) {}

  /** Throws when the FIFO has no reader (the process has ended) or too much is already queued. */
  write(bytes: Uint8Array): void {
    if (this.#closed) throw new Error('stdin writer is closed');
    if (this.#queuedBytes + bytes.length > MAX_QUEUED_BYTES) {
      throw new Error(`the server is not reading stdin: ${this.#queuedBytes} bytes already queued`);
    }
    this.#queue.push(Buffer.from(bytes));
    this.#queuedBytes += bytes.length;
    if (this.#retry === undefined) this.#flush();
  }

  close(): void {
    this.#closed = true;
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#queue = [];
    this.#queuedBytes = 0;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #flush(): void {
    const fd = this.#open();
    for (let head = this.#queue[0]; head !== undefined; head = this.#queue[0]) {
      let written: number;
      try {
        written = writeSync(fd, head);
      } catch (error) {
        if (errnoCode(error) === 'EAGAIN') return this.#scheduleRetry();
        this.#queue = [];
        this.#queuedBytes = 0;
        throw new Error(`cannot write to ${this.path}: ${errnoCode(error) === 'EPIPE' ? 'the process has ended' : String(error)}`);
      }
      this.#queuedBytes -= written;
      if (written < head.length) this.#queue[0] = head.subarray(written);
      else this.#queue.shift();
    }
  }

  #scheduleRetry(): void {
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      try {
        this.#flush();
      } catch {
        // Nobody to tell: the process ended with input still queued; `exited` reports the end.
      }
    }, RETRY_MS);
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    try {
      this.#fd = openSync(this.path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      this.#queue = [];
      this.#queuedBytes = 0;
      const code = errnoCode(error);
      throw new Error(`cannot open ${this.path}: ${code === 'ENXIO' || code === 'ENOENT' ? 'the process has ended' : String(error)}`);
    }
    return this.#fd;
  }
}
