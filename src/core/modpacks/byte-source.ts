import { open, stat, type FileHandle } from 'node:fs/promises';

import type { RandomReader } from '../zip/zip-directory';

export type { RandomReader };

/** The bytes of an archive, which may lie in several files one after another. */
export interface ByteSource extends RandomReader {
  readonly size: number;
  close(): Promise<void>;
}

/** Segment files kept open at once; reads are sequential, so a few suffice. */
const OPEN_SEGMENTS = 8;

/**
 * The concatenation of `paths`, read in place: a chunked upload's chunks are the archive
 * without ever being copied into one file. A read stops at the end of the segment it starts in.
 */
export async function openByteSource(paths: readonly string[]): Promise<ByteSource> {
  const sizes = await Promise.all(paths.map(async (path) => (await stat(path)).size));
  return new SegmentedSource(paths, sizes);
}

class SegmentedSource implements ByteSource {
  readonly size: number;
  private readonly starts: number[] = [];
  /** Open handles, least recently used first. */
  private readonly handles = new Map<number, FileHandle>();

  constructor(
    private readonly paths: readonly string[],
    private readonly sizes: readonly number[],
  ) {
    let at = 0;
    for (const size of sizes) {
      this.starts.push(at);
      at += size;
    }
    this.size = at;
  }

  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    if (length === 0 || position >= this.size) return { bytesRead: 0 };
    const index = this.segmentAt(position);
    const within = position - this.starts[index]!;
    const want = Math.min(length, this.sizes[index]! - within);
    const handle = await this.handle(index);
    return handle.read(buffer, offset, want, within);
  }

  async close(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
  }

  /** The last segment starting at or before `position` (empty segments are skipped over). */
  private segmentAt(position: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid]! <= position) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  private async handle(index: number): Promise<FileHandle> {
    const open_ = this.handles.get(index);
    if (open_) {
      this.handles.delete(index);
      this.handles.set(index, open_);
      return open_;
    }
    const handle = await open(this.paths[index]!, 'r');
    this.handles.set(index, handle);
    if (this.handles.size > OPEN_SEGMENTS) {
      const [oldest, stale] = this.handles.entries().next().value as [number, FileHandle];
      this.handles.delete(oldest);
      await stale.close().catch(() => undefined);
    }
    return handle;
  }
}
