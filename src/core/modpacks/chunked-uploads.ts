import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../errors';
import { diskError, receiveToFile } from './receive-body';
import { monotonicNow } from '../time/monotonic';

export const UPLOAD_TARGETS = ['group', 'dedicated'] as const;
export type UploadTarget = (typeof UPLOAD_TARGETS)[number];

export const UPLOAD_ID_PATTERN = '^[a-f0-9]{32}$';

interface Upload {
  id: string;
  /** Named at init; null: not named (the dashboard's init), so either finalize may take it. */
  target: UploadTarget | null;
  /** `<uploads>/<id>/`: one file per chunk, `<index>.part`. */
  dir: string;
  filename: string;
  /** Announced at init; finalize insists on them when given. */
  expectedBytes: number | null;
  expectedChunks: number | null;
  bytes: number;
  chunks: number;
  /** Last use, on the monotonic clock. */
  touchedAt: number;
  /** A chunk is arriving, or a finalize is judging the upload. */
  busy: boolean;
}

export interface UploadView {
  uploadId: string;
  /** An upload started without a target shows the default, group. */
  target: UploadTarget;
  chunks: number;
  bytes: number;
  expiresAt: string;
}

/** An upload handed to a finalize: its chunk files, in order, are the pack. */
export interface ClaimedUpload {
  parts: string[];
  filename: string;
  bytes: number;
  /** Unregisters the upload; its files now belong to the caller (`dir` removes them). */
  take(): { dir: string };
  /** Gives the upload back, to be finalized again. */
  release(): void;
}

export interface ChunkedUploadsOptions {
  /** Where chunks are written (`data/modpacks/uploads`); emptied at start. */
  dir: string;
  /** An upload idle this long is removed. */
  ttlMs: number;
  maxBytes: number;
  maxChunkBytes: number;
  /** The clock idle time is measured on (monotonic; tests pass a fake). */
  now?: () => number;
}

/**
 * Chunked uploads of modpacks. Each chunk is written straight from its request into a file of
 * its own (by Bun, natively: never held in memory), and the chunk files read one after another
 * are the pack: nothing is copied to join them. Chunks are numbered from 0 and must arrive one
 * after another: a repeated or skipped index, or a chunk while another is still arriving, is
 * CHUNKED_UPLOAD_INVALID; a chunk that breaks off is dropped whole, so the client may send that
 * index again. An upload that receives nothing for `ttlMs` is removed, and so is everything
 * here when the controller starts (uploads do not survive it).
 */
export class ChunkedUploads {
  private readonly uploads = new Map<string, Upload>();
  private readonly now: () => number;

  constructor(private readonly options: ChunkedUploadsOptions) {
    this.now = options.now ?? monotonicNow;
  }

  /** Removes what an earlier run left. */
  reset(): void {
    mkdirSync(this.options.dir, { recursive: true });
    for (const entry of readdirSync(this.options.dir)) rmSync(join(this.options.dir, entry), { recursive: true, force: true });
    this.uploads.clear();
  }

  /**
   * Starts an upload for `target`, or for either (null: finalized as a group or as a dedicated
   * service, whichever finalize claims it). `expectedBytes` and `expectedChunks`, when given,
   * are insisted on at finalize, and no chunk past `expectedChunks` is taken.
   */
  async init(target: UploadTarget | null, filename: string, expectedBytes: number | null, expectedChunks: number | null = null): Promise<UploadView> {
    if (expectedBytes !== null && expectedBytes > this.options.maxBytes) throw new ApiError('PAYLOAD_TOO_LARGE', `a modpack of ${expectedBytes} bytes exceeds the limit of ${this.options.maxBytes} bytes`);
    const id = randomBytes(16).toString('hex');
    const dir = join(this.options.dir, id);
    await mkdir(dir, { recursive: true }).catch((error: unknown) => {
      throw diskError(error);
    });
    const upload: Upload = { id, target, dir, filename, expectedBytes, expectedChunks, bytes: 0, chunks: 0, touchedAt: this.now(), busy: false };
    this.uploads.set(id, upload);
    return this.view(upload);
  }

  /** Stores chunk `index` from the request's body. */
  async append(id: string, index: number, request: Request): Promise<UploadView> {
    const upload = this.require(id);
    if (upload.busy) throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id}: a chunk is still arriving or a finalize is running; send chunks one after another`);
    if (upload.expectedChunks !== null && index >= upload.expectedChunks) {
      throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id}: chunk ${index} is past the ${upload.expectedChunks} chunk(s) announced at init (indexes 0 to ${upload.expectedChunks - 1})`);
    }
    if (index !== upload.chunks) {
      const what = index < upload.chunks ? `chunk ${index} was already received (a duplicate)` : `chunk ${index} arrived out of order`;
      throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id}: ${what}; the next chunk is ${upload.chunks} (${upload.bytes} bytes received so far)`);
    }
    const room = this.options.maxBytes - upload.bytes;
    const limit = Math.min(this.options.maxChunkBytes, room);
    upload.busy = true;
    upload.touchedAt = this.now();
    const part = this.partPath(upload, index);
    try {
      const received = await receiveToFile(request, part, limit).catch((error: unknown) => {
        if (error instanceof ApiError && error.errorCode === 'PAYLOAD_TOO_LARGE' && limit === room) {
          throw new ApiError('PAYLOAD_TOO_LARGE', `upload ${id}: this chunk takes the modpack past the limit of ${this.options.maxBytes} bytes`);
        }
        throw error;
      });
      if (received === 0) {
        await rm(part, { force: true });
        throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id}: chunk ${index} is empty`);
      }
      upload.bytes += received;
      upload.chunks += 1;
      return this.view(upload);
    } finally {
      upload.busy = false;
      upload.touchedAt = this.now();
    }
  }

  /**
   * Claims an upload for finalizing into `target`: no chunk is accepted while it is claimed.
   * A mismatch with the target named at init is CHUNKED_UPLOAD_INVALID (400).
   */
  claim(id: string, target: UploadTarget): ClaimedUpload {
    const upload = this.require(id);
    if (upload.target !== null && upload.target !== target) {
      const route = upload.target === 'group' ? 'POST /api/modpacks/upload/finalize' : 'POST /api/dedicated/modpack/upload/finalize';
      throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id} was started for target "${upload.target}" and cannot be finalized as "${target}"; finalize it with ${route}`);
    }
    if (upload.busy) throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id}: a chunk is still arriving or a finalize is running`);
    if (upload.chunks === 0) throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id} has received no chunk`);
    if (upload.expectedChunks !== null && upload.chunks !== upload.expectedChunks) {
      throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id} has ${upload.chunks} of the ${upload.expectedChunks} chunk(s) announced at init; send the rest first`);
    }
    if (upload.expectedBytes !== null && upload.bytes !== upload.expectedBytes) {
      throw new ApiError('CHUNKED_UPLOAD_INVALID', `upload ${id} has ${upload.bytes} of the ${upload.expectedBytes} bytes announced at init; send the rest first`);
    }
    upload.busy = true;
    const done = () => {
      upload.busy = false;
      upload.touchedAt = this.now();
    };
    return {
      parts: Array.from({ length: upload.chunks }, (_, i) => this.partPath(upload, i)),
      filename: upload.filename,
      bytes: upload.bytes,
      take: () => {
        done();
        this.uploads.delete(id);
        return { dir: upload.dir };
      },
      release: done,
    };
  }

  /** Removes uploads idle for longer than the TTL; returns how many. */
  async sweep(): Promise<number> {
    const cutoff = this.now() - this.options.ttlMs;
    let removed = 0;
    for (const upload of [...this.uploads.values()]) {
      if (upload.busy || upload.touchedAt > cutoff) continue;
      this.uploads.delete(upload.id);
      await rm(upload.dir, { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  get size(): number {
    return this.uploads.size;
  }

  private partPath(upload: Upload, index: number): string {
    return join(upload.dir, `${index}.part`);
  }

  private require(id: string): Upload {
    const upload = this.uploads.get(id);
    if (!upload) throw new ApiError('CHUNKED_UPLOAD_NOT_FOUND', `no chunked upload ${id} (never started, already finalized, or expired after ${Math.round(this.options.ttlMs / 60000)} minutes without a chunk)`);
    return upload;
  }

  private view(upload: Upload): UploadView {
    return { uploadId: upload.id, target: upload.target ?? 'group', chunks: upload.chunks, bytes: upload.bytes, expiresAt: new Date(Date.now() + upload.touchedAt + this.options.ttlMs - this.now()).toISOString() };
  }
}
