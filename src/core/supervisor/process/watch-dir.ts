import { watch } from 'node:fs';

/**
 * Change notifications for one directory (inotify on Linux, one kernel fd shared by every
 * watcher in the process): `onChange` gets the file name, or null when the platform did not
 * say which file. Best effort: if watching fails, or fails later, this goes quiet and the
 * owner's slow poll still finds everything.
 */
export function watchDir(dir: string, onChange: (filename: string | null) => void): { close(): void } {
  try {
    const watcher = watch(dir, { persistent: true }, (_event, filename) => onChange(typeof filename === 'string' ? filename : null));
    watcher.on('error', () => watcher.close());
    return { close: () => watcher.close() };
  } catch {
    return { close: () => {} };
  }
}
