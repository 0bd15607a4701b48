/**
 * A backup archive as the format defines it: the tree's entries, then the manifest as the last
 * entry. The one place that tells the trailing manifest from a file of the tree that happens to
 * be named MANIFEST.sha256 (the tree may hold one: it is archived like any other file).
 */
import type { Header } from 'tar-stream';
import { MANIFEST_NAME, MAX_MANIFEST_BYTES } from './manifest-file';
import { ArchiveUnreadableError, readTarZstd, type EntryVisitor, type ReadOptions, type ReadOutcome } from './tar-reader';

export interface BackupReadOutcome extends ReadOutcome {
  /** The trailing manifest's text; null when the archive's last entry is not a manifest. */
  manifest: string | null;
}

/** A root MANIFEST.sha256 waiting for the next entry (or the end). */
interface Held {
  header: Header;
  bytes: Buffer;
}

/** A root file entry named MANIFEST.sha256 may be the manifest (if it is the last entry). */
function mayBeManifest(header: Header): boolean {
  return header.type === 'file' && (header.name === MANIFEST_NAME || header.name === `./${MANIFEST_NAME}`);
}

async function readAll(content: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of content) parts.push(chunk);
  return Buffer.concat(parts);
}

async function* fromMemory(bytes: Buffer): AsyncGenerator<Buffer> {
  if (bytes.byteLength > 0) yield bytes;
}

/**
 * Reads `file` (see readTarZstd for the options and what it throws), handing `visit` every entry
 * but the trailing manifest, in archive order. A root MANIFEST.sha256 is held in memory until the
 * next entry shows it was not the last; it is then handed to `visit` (its content from memory)
 * before that entry. A trailing manifest larger than MAX_MANIFEST_BYTES makes the archive
 * unreadable (it was handed to `visit`, which cannot know yet).
 */
export async function readBackupArchive(file: string, visit: EntryVisitor, options: ReadOptions = {}): Promise<BackupReadOutcome> {
  let held: Held | undefined;
  let oversized = false;
  const outcome = await readTarZstd(
    file,
    async (header, content) => {
      if (held) {
        const earlier = held;
        held = undefined;
        await visit(earlier.header, fromMemory(earlier.bytes));
      }
      oversized = false;
      if (mayBeManifest(header)) {
        if ((header.size ?? 0) <= MAX_MANIFEST_BYTES) {
          held = { header, bytes: await readAll(content) };
          return;
        }
        oversized = true;
      }
      await visit(header, content);
    },
    options,
  );
  // Assigned in the visitor, which the compiler's narrowing does not follow.
  const last = held as Held | undefined;
  const manifest = last ? last.bytes.toString('utf8') : null;
  if (!oversized || outcome.unreadable !== undefined) return { ...outcome, manifest };
  const tooLarge = `${MANIFEST_NAME} is larger than ${MAX_MANIFEST_BYTES} bytes`;
  if (!options.hashWhole) throw new ArchiveUnreadableError(tooLarge);
  return { ...outcome, unreadable: tooLarge, manifest };
}

/** The archive's trailing MANIFEST.sha256 text, or null when it has none; throws ArchiveUnreadableError when the file is missing or unreadable. */
export async function readManifest(file: string): Promise<string | null> {
  const { manifest } = await readBackupArchive(file, async () => {});
  return manifest;
}
