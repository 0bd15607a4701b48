import { stat } from 'node:fs/promises';
import { readBackupArchive, type BackupReadOutcome } from './backup-reader';
import { checkAgainstManifest, entryPath, MANIFEST_NAME, parseManifest, problemMessage, type FileHash } from './manifest-file';


/**
 * Re-reads the archive: its SHA-256 against `expectedChecksum` when given, each file against the
 * manifest, missing/extra files, unreadable archive. Never throws for a bad archive.
 */
export async function verifyArchive(file: string, expectedChecksum?: string): Promise<{ valid: boolean; errors: string[] }> {
  try {
    const st = await stat(file);
    if (!st.isFile()) return { valid: false, errors: [`Archive missing on disk: ${file}`] };
  } catch {
    return { valid: false, errors: [`Archive missing on disk: ${file}`] };
  }

  const errors: string[] = [];
  const held: FileHash[] = [];
  let outcome: BackupReadOutcome;
  try {
    outcome = await readBackupArchive(
      file,
      async (header, content) => {
        if (header.type !== 'file' && header.type !== 'contiguous-file') return;
        const hasher = new Bun.CryptoHasher('sha256');
        for await (const chunk of content) hasher.update(chunk);
        held.push({ path: entryPath(header.name), hash: hasher.digest('hex') });
      },
      { hashWhole: true },
    );
  } catch (error) {
    return { valid: false, errors: [`Archive unreadable: ${error instanceof Error ? error.message : String(error)}`] };
  }

  if (expectedChecksum !== undefined && expectedChecksum !== '' && outcome.checksum !== expectedChecksum.toLowerCase()) {
    errors.push(`Archive checksum mismatch (expected ${expectedChecksum.toLowerCase()}, got ${outcome.checksum})`);
  }
  if (outcome.unreadable !== undefined) {
    errors.push(`Archive unreadable: ${outcome.unreadable}`);
    return { valid: false, errors };
  }
  if (outcome.manifest === null) {
    errors.push(`Missing ${MANIFEST_NAME} entry in archive`);
    return { valid: false, errors };
  }
  for (const problem of checkAgainstManifest(parseManifest(outcome.manifest), held)) errors.push(problemMessage(problem));
  return { valid: errors.length === 0, errors };
}
