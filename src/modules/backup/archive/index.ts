/**
 * The backup archive format, one module: a tree as tar + zstd with a trailing MANIFEST.sha256.
 * Writing (create.ts, frame-writer.ts and its threads), reading (tar-reader.ts, and
 * backup-reader.ts, the one place that tells the trailing manifest from the tree's files), the
 * manifest's text and its check (manifest-file.ts) and verification (verify.ts). Restore
 * (../restore.ts) reads through readBackupArchive and checks with manifest-file.ts.
 *
 * What the rest of the module uses:
 */
export { readManifest } from './backup-reader';
export { createArchive, type ArchiveOptions, type ArchiveResult } from './create';
export { MANIFEST_NAME } from './manifest-file';
export { archiveName } from './names';
export { forEachEntry } from './tar-reader';
export { verifyArchive } from './verify';
