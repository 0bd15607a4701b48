import { lchown, mkdir, rmdir, unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import { openRealFolder, readAll, RefusedEntry } from '../tenancy/fs';
import { placementOf, writeFileAtomicAsync } from './atomic-write';
import { fsError, notFound, openConfinedFile, realRoot, resolveExisting, resolveLeaf } from './confine';
import { decodeContent, encodeContent, type ContentEncoding } from './content';
import { listDirectory, type FileEntry } from './listing';
import { joinRel } from './path-syntax';
import { binaryByName, type ReadForm } from './read-form';
import { assertWritable, scopeNamed, type FileScope, type ScopeName } from './scopes';
import { receiveUpload } from './upload';

/** Largest file a JSON read returns (base64 grows it by a third); larger ones are sent raw. */
export const MAX_JSON_READ_BYTES = 5 * 1024 * 1024;
/** Largest upload (the spec's 100 MB, as MiB). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** Room for the multipart framing and small fields around the file in an upload's body. */
export const UPLOAD_OVERHEAD_BYTES = 1024 * 1024;

export interface Listing {
  scope: ScopeName;
  path: string;
  entries: FileEntry[];
  total: number;
}

export interface FileContent {
  scope: ScopeName;
  path: string;
  content: string;
  encoding: ContentEncoding;
  size: number;
  lastModified: string;
}

/** A file to stream as it is (the route answers with its bytes). */
export interface RawFile {
  kind: 'raw';
  /** Real path inside the scope. */
  real: string;
  name: string;
  size: number;
}

export interface Written {
  scope: ScopeName;
  path: string;
  size: number;
  created: boolean;
}

const conflict = (message: string) => new ApiError('VALIDATION_FAILED', message, 409);

/**
 * The files API over the scopes (see scopes.ts): list, read, overwrite, mkdir, upload, delete.
 * Takes checked path segments (path-syntax.ts) and never acts outside a scope (confine.ts).
 * Writes are atomic: a reader sees the old file or the whole new one.
 */
export class FileStore {
  constructor(
    private readonly scopes: ReadonlyMap<ScopeName, FileScope>,
    private readonly log: Logger,
  ) {}

  scope(name: string): FileScope {
    return scopeNamed(this.scopes, name);
  }

  /**
   * A directory's listing, or a file: as JSON content (UTF-8 text or base64) or to stream raw.
   * `form` is what the caller asked for (read-form.ts); null lets the file decide: text as
   * JSON, binary (by name or content) and files too large for JSON raw.
   */
  async read(scope: FileScope, segments: readonly string[], form: ReadForm | null = 'json'): Promise<Listing | FileContent | RawFile> {
    const path = joinRel(segments);
    if (segments.length === 0 && (await realRoot(scope.root)) === null) {
      // A scope whose folder was never created (no group yet) is empty, not missing.
      if (form === 'raw') throw new ApiError('VALIDATION_FAILED', 'the scope root is a directory; raw download is for files');
      return { scope: scope.name, path, entries: [], total: 0 };
    }
    const found = await resolveExisting(scope.root, segments);
    if (found.stats.isDirectory()) {
      if (form === 'raw') throw new ApiError('VALIDATION_FAILED', `${path || '/'} is a directory; raw download is for files`);
      const entries = await listDirectory(found.rootReal, found.real, path);
      return { scope: scope.name, path, entries, total: entries.length };
    }
    if (!found.stats.isFile()) throw new ApiError('PATH_NOT_FOUND', `${path} is not a regular file or directory`);
    // Opened without following a link or waiting on a FIFO, and checked to be the file found.
    const file = openConfinedFile(found.real, path);
    let bytes: Uint8Array;
    const stats = file.stats;
    const raw: RawFile = { kind: 'raw', real: found.real, name: segments.at(-1)!, size: stats.size };
    try {
      if (form === 'raw') return raw;
      if (form === null && (binaryByName(basename(found.real)) || file.stats.size > MAX_JSON_READ_BYTES)) return raw;
      if (file.stats.size > MAX_JSON_READ_BYTES) {
        throw new ApiError('PAYLOAD_TOO_LARGE', `${path} is ${file.stats.size} bytes; JSON reads stop at ${MAX_JSON_READ_BYTES} bytes: download it with ?raw=1`);
      }
      try {
        bytes = readAll(file.fd, MAX_JSON_READ_BYTES, path);
      } catch (error) {
        throw error instanceof RefusedEntry ? new ApiError('VALIDATION_FAILED', `${path} grew while it was read; try again`, 409) : fsError(error, path);
      }
    } finally {
      file.close();
    }
    const content = encodeContent(bytes);
    if (form === null && content.encoding === 'base64') return raw;
    return { scope: scope.name, path, ...content, size: bytes.byteLength, lastModified: stats.mtime.toISOString() };
  }

  /**
   * Creates or replaces a file whose parent exists; a link inside the scope is written through
   * (replacing the file it names). A new file in a folder of another user becomes that user's;
   * a replaced one keeps its owner and mode (see atomic-write.ts placementOf).
   */
  async write(scope: FileScope, segments: readonly string[], body: { content: string; encoding?: ContentEncoding }, actor: Actor): Promise<Written> {
    assertWritable(scope);
    const path = joinRel(segments);
    if (segments.length === 0) throw new ApiError('VALIDATION_FAILED', 'name a file under the scope root to write');
    const bytes = decodeContent(body.content, body.encoding);
    const leaf = await resolveLeaf(scope.root, segments);
    if (leaf.targetStats?.isDirectory()) throw conflict(`${path} is a directory; a PUT writes files`);
    if (leaf.targetStats && !leaf.targetStats.isFile()) throw conflict(`${path} is not a regular file (a pipe, socket or device); it is not replaced`);
    try {
      await writeFileAtomicAsync(leaf.target, bytes, leaf.targetStats);
    } catch (error) {
      throw fsError(error, path);
    }
    this.log.info({ actor, scope: scope.name, path, size: bytes.byteLength }, 'file written');
    return { scope: scope.name, path, size: bytes.byteLength, created: leaf.targetStats === null };
  }

  /** Creates one directory; its parent must exist. In a folder of another user it becomes that user's (as files do). */
  async makeDirectory(scope: FileScope, segments: readonly string[], actor: Actor): Promise<{ scope: ScopeName; path: string }> {
    assertWritable(scope);
    const path = joinRel(segments);
    if (segments.length === 0) throw conflict('the scope root already exists; name the directory to create');
    const leaf = await resolveLeaf(scope.root, segments);
    if (leaf.entry) throw conflict(`${path} already exists`);
    try {
      const folder = openRealFolder(leaf.dir);
      try {
        const made = `${folder.base}/${leaf.name}`;
        await mkdir(made, { mode: 0o755 });
        const { owner } = placementOf(folder.stats, null);
        if (owner) await lchown(made, owner.uid, owner.gid);
      } finally {
        folder.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw conflict(`${path} already exists`);
      throw fsError(error, path);
    }
    this.log.info({ actor, scope: scope.name, path }, 'directory created');
    return { scope: scope.name, path };
  }

  /** Streams a multipart upload into an existing directory (see upload.ts). */
  async upload(
    scope: FileScope,
    segments: readonly string[],
    request: { body: ReadableStream<Uint8Array> | null; contentType: string | null },
    actor: Actor,
  ): Promise<Written> {
    assertWritable(scope);
    const rel = joinRel(segments);
    const dir = await resolveExisting(scope.root, segments);
    if (!dir.stats.isDirectory()) throw conflict(`${rel} is a file; POST uploads into a directory (use PUT to replace a file's content)`);
    const uploaded = await receiveUpload({
      body: request.body,
      contentType: request.contentType,
      dir: dir.real,
      rootReal: dir.rootReal,
      rel,
      maxFileBytes: MAX_UPLOAD_BYTES,
      maxBodyBytes: MAX_UPLOAD_BYTES + UPLOAD_OVERHEAD_BYTES,
    });
    const path = rel ? `${rel}/${uploaded.name}` : uploaded.name;
    this.log.info({ actor, scope: scope.name, path, size: uploaded.size }, 'file uploaded');
    return { scope: scope.name, path, size: uploaded.size, created: !uploaded.replaced };
  }

  /**
   * Deletes a file, a link (never what it points to) or an empty directory. The scope root is
   * never deleted; a directory with entries is 409 (delete its entries first).
   */
  async remove(scope: FileScope, segments: readonly string[], actor: Actor): Promise<{ scope: ScopeName; path: string }> {
    assertWritable(scope);
    const path = joinRel(segments);
    if (segments.length === 0) throw new ApiError('VALIDATION_FAILED', `the root of the ${scope.name} scope cannot be deleted`);
    const leaf = await resolveLeaf(scope.root, segments);
    if (!leaf.entry) throw notFound(path);
    try {
      // In the folder that was checked: a link swapped in on the way meanwhile is refused.
      const folder = openRealFolder(leaf.dir);
      try {
        const entry = `${folder.base}/${leaf.name}`;
        if (leaf.entry.isDirectory()) await rmdir(entry);
        else await unlink(entry);
      } finally {
        folder.close();
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw conflict(`${path} is a directory that is not empty; delete its entries first`);
      throw fsError(error, path);
    }
    this.log.info({ actor, scope: scope.name, path }, leaf.entry.isDirectory() ? 'directory deleted' : 'file deleted');
    return { scope: scope.name, path };
  }
}
