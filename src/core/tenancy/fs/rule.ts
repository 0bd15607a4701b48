import { constants, type Stats } from 'node:fs';

/*
 * How svc reads and writes inside a directory a game server controls: a service's work dir, a
 * dedicated service's directory. The server runs third-party code and may have planted links
 * (`server.properties -> /etc/shadow`, `plugins -> /etc`), hard links, FIFOs, or trees nested
 * deeper than any path can name, while svc itself often runs as root. One rule, everywhere
 * (provisioning, patches, deploy back, state sync, log reads, modpack installs):
 *
 * - Reading: svc hands on (into a template, a canonical copy, a manifest, a patched file, a log
 *   answer) only regular files with a single link, reached without passing any symbolic link.
 *   Links, to a file or a folder, pointing inside or outside, are skipped and named in the log
 *   (they are never copied either, not even links that stay inside: one rule, no resolving);
 *   so are FIFOs, sockets, devices (never opened: a FIFO would block the reader for good), files
 *   with other hard links (their bytes may be a file elsewhere) and folders nested deeper than
 *   MAX_DEPTH.
 * - Writing: nothing is written into an existing entry. A file is created under a fresh name
 *   (O_EXCL, O_NOFOLLOW) in the real folder and renamed over its entry, which replaces a link,
 *   a FIFO or a hard-linked file instead of writing to what it stands for. A link or a file
 *   where a folder is needed is refused (or replaced, where the caller says so), never followed.
 *   Entries svc creates in a folder that belongs to another user (a service's own uid) are
 *   given to that user, when svc runs as root, so the server can still rewrite them.
 *
 * On Linux every folder is opened with O_NOFOLLOW, one level at a time from the root, and used
 * through its /proc/self/fd entry: a link swapped in by a still-running process between a check
 * and the act is never followed, because no path is looked up again from the top. Elsewhere
 * (no /proc) the same checks are made with lstat on every level, which a race could beat; those
 * platforms run servers without per-service isolation, as the controller's own user, so such a
 * server could reach the same files directly anyway.
 */

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
export const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

/** Opening for reading: never through a final link, never waiting on a FIFO, never adopting a terminal. */
export const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
export const FOLDER_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
export const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

/** Folders nested deeper than this (relative to the directory's root) are left alone. */
export const MAX_DEPTH = 128;
/** Entries one walk lists at most: a tree larger than this fails the operation instead of exhausting memory. */
export const MAX_WALK_ENTRIES = 2_000_000;
export type Refusal = 'link' | 'special' | 'hardlinked' | 'not-a-folder' | 'too-deep' | 'too-large';

/** Why an entry is refused, in words for skip reports and errors. */
export const WHY: Record<Refusal, string> = {
  link: 'a symbolic link (svc never follows links in a service directory)',
  special: 'not a regular file (a folder, FIFO, socket or device)',
  hardlinked: 'a file with other hard links (its bytes may be another file elsewhere)',
  'not-a-folder': 'not a folder',
  'too-deep': `nested deeper than ${MAX_DEPTH} folders`,
  'too-large': 'larger than svc reads for this',
};

/** An entry svc will not read or pass through, by the rule above. `rel` names the entry at fault. */
export class RefusedEntry extends Error {
  readonly code = 'ESVCREFUSED';

  constructor(
    readonly rel: string,
    readonly refusal: Refusal,
  ) {
    super(`${rel || '.'} is ${WHY[refusal]}`);
    this.name = 'RefusedEntry';
  }

  /** The reason in a few words, for skip reports. */
  get reason(): string {
    return WHY[this.refusal];
  }
}

export interface OpenedFile {
  readonly fd: number;
  /** fstat of the open file: a regular file. */
  readonly stats: Stats;
  /**
   * A path naming exactly this open file, for APIs that take paths (copyFile, Bun.file): its
   * /proc/self/fd entry on Linux, else the checked path. Valid until `close`.
   */
  readonly path: string;
  close(): void;
}

/** A folder of a tree, pinned while a caller works in it. Its `base` joins with a name to reach an entry. */
export interface TenantFolder {
  readonly rel: string;
  readonly base: string;
}

/** `existing`: must be there. `create`: missing levels made, a link or file in the way refused. `replace`: that, but a link or file in the way removed. */
export type FolderMode = 'existing' | 'create' | 'replace';

export interface TenantTreeOptions {
  /**
   * Accept regular files that have other hard links. Off for service directories; on only for
   * trees svc alone fills (state-sync canonical copies, seeded with hard links of each other).
   */
  hardlinks?: boolean;
  /** Give created entries the owner of their folder when it is another user and svc is root (default on). */
  adoptOwner?: boolean;
  /** Create the root folder (and its parents) when missing. */
  create?: boolean;
}
