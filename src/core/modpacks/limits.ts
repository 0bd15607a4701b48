/**
 * The bounds of modpack handling, in one place. Packs of 1 GB and more are normal; the limits
 * are there against mistakes and hostile archives, not against big packs.
 */

/** Largest pack accepted, uploaded in one piece or in chunks. */
export const MAX_PACK_BYTES = 4 * 1024 * 1024 * 1024;

/** Chunk size clients are told to use. */
export const RECOMMENDED_CHUNK_BYTES = 4 * 1024 * 1024;

/** Largest single chunk (a client may choose bigger chunks than recommended: fewer requests). */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/** A chunked upload that receives nothing for this long is abandoned and removed. */
export const UPLOAD_TTL_MS = 60 * 60 * 1000;

/** How an archive may unpack (zip bombs): entries, and bytes in total once unpacked. */
export interface ArchiveLimits {
  maxEntries: number;
  maxUnpackedBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 100_000,
  maxUnpackedBytes: 16 * 1024 * 1024 * 1024,
};

/** `modrinth.index.json` / `manifest.json` are read into memory: they list files, they are not files. */
export const MAX_INDEX_BYTES = 16 * 1024 * 1024;

/** Files a pack lists, downloaded at once. */
export const DOWNLOAD_CONCURRENCY = 6;

/**
 * An import still running after this long is answered 202 with its job id (the job goes on).
 * Below the HTTP server's 10 s idle timeout, which would otherwise cut the waiting request.
 */
export const ANSWER_WITHIN_MS = 8_000;

/**
 * A look-up reads the pack file itself (as an import would) for this long at most, counted
 * from the request; past it the host's listing answers alone. Below the 10 s idle timeout too.
 */
export const RESOLVE_INSPECT_MS = 7_000;

/** Finished jobs stay readable (GET /api/modpacks/jobs/{id}) this long. */
export const JOB_RETENTION_MS = 60 * 60 * 1000;
