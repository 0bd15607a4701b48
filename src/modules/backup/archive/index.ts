/**
 * The backup archive format, one module: a tree as tar + zstd with a trailing MANIFEST.sha256.
 * Writing (create.ts, frame-writer.ts and its writer thread), reading (tar-reader.ts, and
 * backup-reader.ts for the trailing manifest), the manifest's text (manifest-file.ts) and
 * verification (verify.ts). Restore (../restore.ts) reads through readBackupArchive.
 */
export { readBackupArchive, readManifest, type BackupReadOutcome } from './backup-reader';
export { createArchive, type ArchiveOptions, type ArchiveResult } from './create';
export { checkAgainstManifest, entryPath, MANIFEST_NAME, MAX_MANIFEST_BYTES, parseManifest, problemMessage } from './manifest-file';
export { archiveName } from './names';
export { ArchiveUnreadableError, forEachEntry } from './tar-reader';
export { verifyArchive } from './verify';
