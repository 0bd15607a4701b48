/**
 * The archive writer thread: zstd frames in (in archive order), hashed (the archive's SHA-256)
 * and written to the archive's fd. See frame-writer.ts (ArchiveWriter) for why this is a thread and
 * how frames flow; the messages are in writer-protocol.ts.
 *
 * The fdatasyncs on the way are the syncer thread's (frame-writer.ts); this thread only fsyncs at the
 * end. Every `gcEvery` bytes a full collection frees the transferred frames, which the collector
 * would otherwise free late.
 */
import { fsyncSync, writeSync } from 'node:fs';
import { serveMessages } from '../../../core/threads/serve-messages';
import type { FromWriter, ToWriter } from './writer-protocol';

const hasher = new Bun.CryptoHasher('sha256');
let fd = -1;
let gcEvery = 0;
let size = 0;
let sinceGc = 0;
let failed = false;
let stopped = false;
let send: (message: FromWriter) => void = () => {};

function write(frame: Uint8Array): void {
  hasher.update(frame);
  let offset = 0;
  while (offset < frame.byteLength) offset += writeSync(fd, frame, offset, frame.byteLength - offset);
  size += frame.byteLength;
  sinceGc += frame.byteLength;
  if (sinceGc >= gcEvery) {
    sinceGc = 0;
    Bun.gc(true);
  }
}

function fail(error: unknown): void {
  if (failed) return;
  failed = true;
  send({ op: 'failed', message: String((error as Error | undefined)?.message ?? error) });
}

serveMessages<ToWriter, FromWriter>((m, reply) => {
  send = reply;
  if (stopped || failed) {
    if (m.op === 'stop') send({ op: 'stopped' });
    return;
  }
  switch (m.op) {
    case 'init':
      fd = m.fd;
      gcEvery = m.gcEvery;
      return;
    case 'frame':
      try {
        write(new Uint8Array(m.buffer, 0, m.length));
        send({ op: 'written', bytes: m.length });
      } catch (error) {
        fail(error);
      }
      return;
    case 'finish':
      try {
        fsyncSync(fd);
        stopped = true;
        send({ op: 'done', checksum: hasher.digest('hex'), size });
      } catch (error) {
        fail(error);
      }
      return;
    case 'stop':
      // Nothing is written after this message: writes happen on this thread, between messages.
      stopped = true;
      send({ op: 'stopped' });
      return;
  }
});
