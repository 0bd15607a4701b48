/**
 * The archive writer thread: tar blocks in, zstd frames out, hashed (SHA-256 of the archive)
 * and written in block order to the archive's fd. See archive.ts (ArchiveWriter) for why this
 * is a thread and how blocks flow; the messages are in archive-writer-protocol.ts.
 *
 * `workers` zstd streams ("lanes", each a context on Bun's thread pool, kept for the whole
 * archive) take the blocks round robin; each block is followed by a ZSTD_e_end flush, so it
 * comes out as one complete frame (Bun's own multi-threaded zstd, ZSTD_c_nbWorkers, is broken:
 * ERR_STREAM_PUSH_AFTER_EOF). A lane emits a block's output before that block's flush calls
 * back, so the chunks seen since the previous callback are exactly that frame. Every
 * `syncEvery` bytes an fdatasync flushes what is written so far (the final fsync then has
 * little left), and it blocks this thread, not a thread-pool one. Every `gcEvery` bytes a full
 * collection frees zlib's output chunks, which the collector would otherwise free late.
 */
import { fdatasyncSync, fsyncSync, writeSync } from 'node:fs';
import zlib from 'node:zlib';
import type { FromWriter, ToWriter } from './archive-writer-protocol';

declare const self: Worker;

interface Lane {
  compress(view: Uint8Array): Promise<Buffer[]>;
  close(): void;
}

const hasher = new Bun.CryptoHasher('sha256');
let fd = -1;
let syncEvery = 0;
let gcEvery = 0;
const lanes: Lane[] = [];
let nextLane = 0;
let size = 0;
let sinceSync = 0;
let sinceGc = 0;
let failure: string | null = null;
let stopped = false;
let finishing = false;
let draining = false;
/** Blocks in arrival order, each with its frame to come. */
const queue: { buffer: ArrayBuffer; output: Promise<Buffer[]> }[] = [];

const send = (message: FromWriter, transfer: ArrayBuffer[] = []) => self.postMessage(message, transfer);

function fail(error: unknown): void {
  if (failure !== null) return;
  failure = String((error as Error | undefined)?.message ?? error);
  send({ op: 'failed', message: failure });
}

function makeLane(level: number, chunkSize: number): Lane {
  const stream = zlib.createZstdCompress({
    chunkSize,
    params: { [zlib.constants.ZSTD_c_compressionLevel]: level, [zlib.constants.ZSTD_c_checksumFlag]: 1 },
  });
  let chunks: Buffer[] = [];
  const waiters: { resolve: (frame: Buffer[]) => void; reject: (error: unknown) => void }[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('error', (error) => {
    fail(error);
    for (const waiter of waiters.splice(0)) waiter.reject(error);
  });
  return {
    compress(view) {
      return new Promise((resolve, reject) => {
        waiters.push({ resolve, reject });
        stream.write(view);
        stream.flush(zlib.constants.ZSTD_e_end, () => {
          const waiter = waiters.shift();
          if (!waiter) return;
          const frame = chunks;
          chunks = [];
          waiter.resolve(frame);
        });
      });
    },
    close: () => void stream.destroy(),
  };
}

/** Writes finished frames in block order and gives their buffers back. */
async function drain(): Promise<void> {
  if (draining) return;
  draining = true;
  while (queue.length > 0) {
    const item = queue[0]!;
    let frame: Buffer[] = [];
    try {
      frame = await item.output;
    } catch (error) {
      fail(error);
    }
    queue.shift();
    if (failure === null && !stopped) {
      try {
        for (const chunk of frame) {
          hasher.update(chunk);
          let offset = 0;
          while (offset < chunk.byteLength) offset += writeSync(fd, chunk, offset, chunk.byteLength - offset);
          size += chunk.byteLength;
          sinceSync += chunk.byteLength;
          sinceGc += chunk.byteLength;
        }
        if (sinceSync >= syncEvery) {
          sinceSync = 0;
          fdatasyncSync(fd);
        }
        if (sinceGc >= gcEvery) {
          sinceGc = 0;
          Bun.gc(true);
        }
      } catch (error) {
        fail(error);
      }
    }
    send({ op: 'free', buffer: item.buffer }, [item.buffer]);
  }
  draining = false;
  if (finishing) complete();
}

function complete(): void {
  if (stopped) return;
  stopped = true;
  for (const lane of lanes) lane.close();
  if (failure === null) {
    try {
      fsyncSync(fd);
    } catch (error) {
      fail(error);
    }
  }
  if (failure === null) send({ op: 'done', checksum: hasher.digest('hex'), size });
}

self.onmessage = (event: MessageEvent<ToWriter>) => {
  const m = event.data;
  switch (m.op) {
    case 'init':
      fd = m.fd;
      syncEvery = m.syncEvery;
      gcEvery = m.gcEvery;
      for (let i = 0; i < m.workers; i++) lanes.push(makeLane(m.level, m.chunkSize));
      return;
    case 'block': {
      const view = new Uint8Array(m.buffer, 0, m.length);
      const output = failure === null && !stopped ? lanes[nextLane++ % lanes.length]!.compress(view) : Promise.resolve([]);
      output.catch(() => undefined);
      queue.push({ buffer: m.buffer, output });
      void drain();
      return;
    }
    case 'finish':
      finishing = true;
      if (!draining && queue.length === 0) complete();
      return;
    case 'stop':
      // Nothing is written after this message: writes happen on this thread, between messages.
      stopped = true;
      for (const lane of lanes) lane.close();
      send({ op: 'stopped' });
      return;
  }
};
