/**
 * The svc executable this process runs from, or null when it runs from source under `bun`
 * (then there is no binary of ours to replace). Read once at load: after an update renames a
 * new file over it, the kernel would name the old one "(deleted)".
 */
export const RUNNING_BINARY: string | null = isCompiledExecutable() ? process.execPath : null;

function isCompiledExecutable(): boolean {
  // A compiled Bun executable serves its own sources from an embedded file system.
  return Bun.main.startsWith('/$bunfs/') || /^[A-Z]:[\\/]~BUN[\\/]/.test(Bun.main);
}
