/**
 * The archive's trailing MANIFEST.sha256: one line per regular file, as `sha256sum` prints it,
 * sorted by path in byte order. This is the one writer and the one reader of that text; verify,
 * the manifest route and restore all read it through here, so they agree on every line.
 */

export const MANIFEST_NAME = 'MANIFEST.sha256';

/**
 * A trailing manifest larger than this is not read into memory (it is refused as unreadable).
 * About two million files' worth of lines; createArchive holds the same lines in memory.
 */
export const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/** One file as the manifest lists it, or as the archive holds it. */
export interface FileHash {
  /** Relative path, normalised by entryPath. */
  path: string;
  /** Lowercase SHA-256 hex. */
  hash: string;
}

export interface ParsedManifest {
  /** In the order of the text. A path may be listed more than once (an archive may hold a path twice). */
  files: FileHash[];
  /** Lines that are not `<64 hex> <space or *><path>`, as they stand in the text. */
  malformed: string[];
}

/** What disagrees between the manifest and the files an archive holds. */
export type ManifestProblem =
  | { kind: 'malformed'; line: string }
  /** Listed, and the archive holds the path, but with other bytes. */
  | { kind: 'mismatch'; path: string }
  /** Listed, and the archive does not hold it. */
  | { kind: 'missing'; path: string }
  /** In the archive and not listed. */
  | { kind: 'extra'; path: string };

/** A tar entry's name as the manifest and restore compare it: '/'-separated, without empty or '.' segments. */
export function entryPath(name: string): string {
  return name
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
}

/** UTF-8 byte order, as `LC_ALL=C sort` orders the paths. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** One line as `sha256sum` prints it: a name with `\`, LF or CR is escaped and the line starts with `\`. */
function manifestLine(file: FileHash): string {
  if (!/[\\\n\r]/.test(file.path)) return `${file.hash}  ${file.path}\n`;
  const escaped = file.path.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  return `\\${file.hash}  ${escaped}\n`;
}

/** The manifest's text for `files` (sorted here, by path in byte order). */
export function manifestText(files: readonly FileHash[]): string {
  return [...files]
    .sort((a, b) => byteOrder(a.path, b.path))
    .map(manifestLine)
    .join('');
}

/**
 * Reads manifest text tolerantly: `<hex>  <path>` or `<hex> *<path>` (sha256sum's text and binary
 * marks), sha256sum's `\` escaping undone, a CR before the LF and blank lines ignored, paths
 * normalised with entryPath. Never throws: what it cannot read is in `malformed`.
 */
export function parseManifest(text: string): ParsedManifest {
  const files: FileHash[] = [];
  const malformed: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const escaped = line.startsWith('\\');
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(escaped ? line.slice(1) : line);
    const hash = match?.[1];
    const named = match?.[2];
    const path = named === undefined ? '' : entryPath(escaped ? unescape(named) : named);
    if (hash === undefined || path === '') {
      malformed.push(line);
      continue;
    }
    files.push({ path, hash: hash.toLowerCase() });
  }
  return { files, malformed };
}

function unescape(name: string): string {
  return name.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c));
}

/**
 * Every file the archive holds must be listed with its hash, and the manifest may list nothing
 * else. A path held (or listed) n times is matched n times. Problems in a stable order: malformed
 * lines, then mismatched and missing files in the manifest's order, then extra files in the
 * archive's order. None: the archive is what its manifest says.
 */
export function checkAgainstManifest(manifest: ParsedManifest, held: readonly FileHash[]): ManifestProblem[] {
  const problems: ManifestProblem[] = manifest.malformed.map((line) => ({ kind: 'malformed', line }));
  const unmatched = new Map<string, string[]>();
  for (const { path, hash } of held) unmatched.set(path, [...(unmatched.get(path) ?? []), hash]);
  const unlisted: FileHash[] = [];
  for (const listed of manifest.files) {
    const hashes = unmatched.get(listed.path) ?? [];
    const at = hashes.indexOf(listed.hash);
    if (at >= 0) hashes.splice(at, 1);
    else unlisted.push(listed);
  }
  for (const listed of unlisted) {
    // Held under this path with other bytes, or not held at all.
    const hashes = unmatched.get(listed.path) ?? [];
    if (hashes.length > 0) {
      hashes.shift();
      problems.push({ kind: 'mismatch', path: listed.path });
    } else {
      problems.push({ kind: 'missing', path: listed.path });
    }
  }
  for (const { path } of held) {
    const hashes = unmatched.get(path) ?? [];
    if (hashes.length === 0) continue;
    hashes.shift();
    problems.push({ kind: 'extra', path });
  }
  return problems;
}

/** A problem as verify lists it and restore refuses with it. */
export function problemMessage(problem: ManifestProblem): string {
  switch (problem.kind) {
    case 'malformed':
      return `Malformed ${MANIFEST_NAME} line: ${problem.line.slice(0, 200)}`;
    case 'mismatch':
      return `Checksum mismatch: ${problem.path}`;
    case 'missing':
      return `Missing file in archive: ${problem.path}`;
    case 'extra':
      return `Unexpected extra file: ${problem.path}`;
  }
}
