/**
 * How a GET of a file answers: `json` ({scope, path, content, encoding, size, lastModified})
 * or `raw` (the file's own bytes, as a download).
 *
 * The caller decides when it says so: `?raw=1|true` → raw, `?raw=0|false` → JSON, else an
 * `Accept` naming application/json (explicitly, not through a wildcard) → JSON. Otherwise the
 * file decides (what the dashboard relies on: its editor, its Download button and its image
 * preview all send the same plain GET): text → JSON; binary → raw. Binary is a known binary
 * extension (images, svg included, archives, jars, worlds, databases), a NUL byte in the first
 * 8 KiB or invalid UTF-8; a file too large for the JSON form is sent raw too.
 */
export type ReadForm = 'json' | 'raw';

export type RawFlag = '1' | 'true' | '0' | 'false';

/**
 * Files served raw whatever their first bytes look like: the dashboard previews these as
 * images (svg is UTF-8 text, yet an image) or offers them as downloads.
 */
const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  // images (the dashboard's image preview)
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'bmp', 'ico', 'avif', 'tif', 'tiff',
  // archives and executables
  'jar', 'zip', 'gz', 'tgz', 'tar', 'rar', '7z', 'xz', 'bz2', 'zst', 'mrpack', 'class', 'so', 'dll', 'exe', 'dylib',
  // Minecraft worlds and data
  'dat', 'dat_old', 'mca', 'mcr', 'nbt', 'schematic', 'schem', 'litematic',
  // databases
  'db', 'sqlite', 'sqlite3', 'mv.db',
  // media and fonts
  'ogg', 'mp3', 'wav', 'mp4', 'webm', 'pdf', 'ttf', 'otf', 'woff', 'woff2',
]);

/** What the caller asked for, or null when it left it to the file. */
export function askedForm(raw: RawFlag | undefined, accept: string | null): ReadForm | null {
  if (raw === '1' || raw === 'true') return 'raw';
  if (raw === '0' || raw === 'false') return 'json';
  return acceptedTypes(accept).has('application/json') ? 'json' : null;
}

/** True when the file's name alone says it is binary. */
export function binaryByName(name: string): boolean {
  const lower = name.toLowerCase();
  const dot = lower.lastIndexOf('.');
  if (dot <= 0) return false;
  if (BINARY_EXTENSIONS.has(lower.slice(dot + 1))) return true;
  // Two-part extensions (`mv.db`, H2's database file).
  const second = lower.lastIndexOf('.', dot - 1);
  return second > 0 && BINARY_EXTENSIONS.has(lower.slice(second + 1));
}

/** Media types an Accept header lists with a q above 0 (wildcards kept as written). */
function acceptedTypes(accept: string | null): Set<string> {
  const types = new Set<string>();
  if (!accept) return types;
  for (const item of accept.split(',').slice(0, 32)) {
    const [type, ...params] = item.split(';').map((p) => p.trim().toLowerCase());
    if (!type) continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    types.add(type);
  }
  return types;
}
