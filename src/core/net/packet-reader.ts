import { decodeVarInt } from './varint';

/**
 * Reassembles length-prefixed packets from a TCP byte stream that may split or merge
 * them arbitrarily. Feed every chunk to `push`, then take whole frames with `next`.
 *
 * Contract: a frame's announced length is checked against `maxFrameBytes` as soon as the
 * length prefix is complete, before anything is buffered for it, so a hostile or confused
 * peer can make us hold at most `maxFrameBytes` plus one chunk.
 */
export class PacketReader {
  private buf: Uint8Array;
  private start = 0;
  private end = 0;

  constructor(private readonly maxFrameBytes: number) {
    this.buf = new Uint8Array(Math.min(4096, maxFrameBytes + 5));
  }

  /** Appends received bytes. Throws when a frame already announced is larger than allowed. */
  push(chunk: Uint8Array): void {
    this.ensureRoom(chunk.length);
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
    this.peekLength(); // fail on an oversized or malformed prefix now rather than after buffering
  }

  /** The next complete frame (packet id + payload, without the length prefix), or null if more bytes are needed. */
  next(): Uint8Array | null {
    const header = this.peekLength();
    if (!header) return null;
    const frameStart = this.start + header.bytes;
    const frameEnd = frameStart + header.value;
    if (frameEnd > this.end) return null;
    this.start = frameEnd;
    return this.buf.slice(frameStart, frameEnd);
  }

  /** Bytes received but not yet returned as frames. */
  get buffered(): number {
    return this.end - this.start;
  }

  private peekLength(): { value: number; bytes: number } | null {
    const header = decodeVarInt(this.buf, this.start, this.end);
    if (!header) return null;
    if (header.value <= 0) throw new Error(`invalid packet length ${header.value}`);
    if (header.value > this.maxFrameBytes) {
      throw new Error(`packet of ${header.value} bytes exceeds the ${this.maxFrameBytes}-byte limit`);
    }
    return header;
  }

  /** Makes room for `extra` bytes after `end`: compacts consumed bytes away, grows by doubling when still short. */
  private ensureRoom(extra: number): void {
    if (this.end + extra <= this.buf.length) return;
    const live = this.end - this.start;
    if (live + extra <= this.buf.length) {
      this.buf.copyWithin(0, this.start, this.end);
    } else {
      let size = this.buf.length;
      while (size < live + extra) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.buf.subarray(this.start, this.end));
      this.buf = grown;
    }
    this.start = 0;
    this.end = live;
  }
}
