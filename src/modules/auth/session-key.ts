import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants as fsConstants, copyFileSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { syncDirectory, writeFileAtomic } from '../../config/write';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Where the key lives by default: under data/ (with the database and the API token), owner-only.
 * Not under config/: config backups, which a dashboard session may be allowed to fetch, must
 * never carry the key that opens the TOTP secrets sealed in the database.
 */
export const SESSION_KEY_FILE = 'data/auth/session.key';
/** Where svc up to 0.13 kept it; every auth.toml written then names this path. */
export const LEGACY_SESSION_KEY_FILE = 'config/modules/auth/session.key';

export interface LoadedKey {
  key: SessionKey;
  /** The key was missing and was made this start (every earlier TOTP enrolment is unreadable). Null when read. */
  regenerated: 'missing' | null;
  /** The old location the key was moved from this start, if it was. */
  movedFrom: string | null;
  /** A key file still at the old location beside the one in use (a restored config backup, say): not read, to be deleted. */
  strayLegacy: string | null;
}

/** The key file cannot be used as it is; the module refuses to start rather than replace it. */
export class SessionKeyError extends Error {}

export interface KeyLocation {
  /** The key file in use (absolute). */
  file: string;
  /** The pre-0.14 default location (absolute), migrated from when the default is in use. */
  legacy: string;
  /** The key sits at the default location, in a folder of its own that svc keeps owner-only. */
  ownFolder: boolean;
}

/**
 * The key file `[security] token_encryption_key_file` names, relative to the controller's
 * folder. The old default (`config/modules/auth/session.key`, which auth.toml files written by
 * earlier versions spell out) means the new default: the key moves to data/auth/.
 */
export function sessionKeyLocation(dir: string, configured: string): KeyLocation {
  const trimmed = configured.trim();
  const legacy = join(dir, LEGACY_SESSION_KEY_FILE);
  const defaulted = trimmed === '' || resolve(dir, trimmed) === legacy || resolve(dir, trimmed) === join(dir, SESSION_KEY_FILE);
  if (defaulted) return { file: join(dir, SESSION_KEY_FILE), legacy, ownFolder: true };
  return { file: isAbsolute(trimmed) ? trimmed : resolve(dir, trimmed), legacy, ownFolder: false };
}

/**
 * The AES-256-GCM key that encrypts TOTP secrets (32 raw bytes, mode 600, in an owner-only
 * folder when at the default location).
 * - At the old location and not yet at the default one: moved (hard link, then the old name
 *   removed; a copy on another file system), so an interrupted move leaves a working key. A
 *   key file the operator placed elsewhere is never filled from the old location.
 * - Missing: made, and every TOTP enrolment made under the lost key can no longer be
 *   decrypted, which the caller must say plainly.
 * - Present but not 32 bytes: refused with SessionKeyError. A key that exists is never
 *   replaced: the enrolments sealed under it would be lost for good.
 */
export function loadSessionKey(location: KeyLocation | string): LoadedKey {
  const where: KeyLocation = typeof location === 'string' ? { file: location, legacy: location, ownFolder: false } : location;
  const { file, legacy } = where;
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (where.ownFolder) tightenMode(folder, 0o700);
  let movedFrom: string | null = null;
  let strayLegacy: string | null = null;
  if (legacy !== file && existsSync(legacy)) {
    // Only the default place inherits the old default's key; a path the operator chose is theirs.
    if (!existsSync(file) && where.ownFolder) {
      checkSize(readFileSync(legacy), legacy);
      moveWithoutReplacing(legacy, file);
      movedFrom = legacy;
    } else if (existsSync(file) && readFileSync(legacy).equals(readFileSync(file))) {
      // What an interrupted move leaves: the same key under both names.
      rmSync(legacy, { force: true });
    } else {
      strayLegacy = legacy;
    }
  }
  if (existsSync(file)) {
    const bytes = readFileSync(file);
    checkSize(bytes, file);
    tightenMode(file, 0o600);
    return { key: new SessionKey(bytes), regenerated: null, movedFrom, strayLegacy };
  }
  const bytes = randomBytes(KEY_BYTES);
  writeFileAtomic(file, bytes, { mode: 0o600 });
  tightenMode(file, 0o600);
  return { key: new SessionKey(bytes), regenerated: 'missing', movedFrom, strayLegacy };
}

function checkSize(bytes: Buffer, file: string): void {
  if (bytes.length === KEY_BYTES) return;
  throw new SessionKeyError(
    `${file} holds ${bytes.length} bytes, not the ${KEY_BYTES} of a session.key: it is not a key svc wrote, and it is not replaced ` +
      '(TOTP enrolments sealed under the real key would be lost for good). Put the right key back from your backup, ' +
      'or, to start over, delete the file: a new key is made at the next start and every player with TOTP must enrol again',
  );
}

/**
 * Gives `from` the name `to` without ever replacing a file already there: a hard link (atomic;
 * refused when `to` exists), or, across file systems, a copy written beside `to` and linked
 * into place; then the old name goes. A crash in between leaves the same key under both names,
 * which the next start tidies up.
 */
function moveWithoutReplacing(from: string, to: string): void {
  if (!linkedInPlace(from, to)) {
    // Another file system (or none with hard links): a private copy beside `to`, synced, put in place.
    const tmp = `${to}.${process.pid}.moving`;
    rmSync(tmp, { force: true });
    try {
      copyFileSync(from, tmp, fsConstants.COPYFILE_EXCL);
      tightenMode(tmp, 0o600);
      const fd = openSync(tmp, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (!linkedInPlace(tmp, to)) {
        if (existsSync(to)) throw new SessionKeyError(`${to} appeared while ${from} was being moved there; remove one of them and restart`);
        renameSync(tmp, to);
      }
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  tightenMode(to, 0o600);
  syncDirectory(dirname(to));
  unlinkSync(from);
  syncDirectory(dirname(from));
}

/** Hard-links `from` as `to`: true when done, false when this file system cannot; never replaces `to`. */
function linkedInPlace(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new SessionKeyError(`${to} appeared while ${from} was being moved there; remove one of them and restart`);
    return false;
  }
}

function tightenMode(path: string, mode: number): void {
  if (process.platform === 'win32') return;
  if ((statSync(path).mode & 0o777) !== mode) chmodSync(path, mode);
}

/** Seals and opens small secrets: a random 12-byte nonce, then the ciphertext, then the tag. */
export class SessionKey {
  constructor(private readonly bytes: Buffer) {}

  seal(plain: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.bytes, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]);
  }

  /** The plain text, or null when the box was sealed with another key or was altered. */
  open(sealed: Uint8Array): string | null {
    const box = Buffer.from(sealed);
    if (box.length < NONCE_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.bytes, box.subarray(0, NONCE_BYTES));
      decipher.setAuthTag(box.subarray(box.length - TAG_BYTES));
      return Buffer.concat([decipher.update(box.subarray(NONCE_BYTES, box.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
