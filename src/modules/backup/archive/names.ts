import { lstatSync } from 'node:fs';
import { join } from 'node:path';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A unique archive file name: `<type>-<sanitized name>-<class>-<yyyyMMdd-HHmmss-SSS>[-n].tar.zst` that does not exist in `dir` (nor its `.tmp`). */
export function archiveName(dir: string, type: string, name: string, scheduleClass: string, at: Date): string {
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_.-]/g, '_');
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}-${pad(at.getMilliseconds(), 3)}`;
  const base = `${clean(type.toLowerCase())}-${clean(name)}-${clean(scheduleClass.toLowerCase())}-${stamp}`;
  for (let n = 1; ; n++) {
    const candidate = `${base}${n === 1 ? '' : `-${n}`}.tar.zst`;
    if (!existsQuiet(join(dir, candidate)) && !existsQuiet(join(dir, `${candidate}.tmp`))) return candidate;
  }
}

function existsQuiet(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
