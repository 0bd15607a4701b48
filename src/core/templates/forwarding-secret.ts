import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';

/** File under the data dir holding the network's forwarding secret. */
export const FORWARDING_SECRET_FILE = 'forwarding.secret';

/**
 * The one secret Velocity (modern forwarding) and every backend share, kept in
 * `<dataDir>/forwarding.secret` with mode 600 and generated the first time it is asked for.
 * Services started before and after a controller restart must agree on it, so it is never
 * regenerated while a usable one exists.
 *
 * Creation cannot race: the new secret is written to a private temp file and hardlinked into
 * place, which fails if another process got there first; then theirs is used.
 */
export function loadForwardingSecret(dataDir: string): string {
  const path = join(dataDir, FORWARDING_SECRET_FILE);
  const existing = readSecret(path);
  if (existing !== null) return existing;
  mkdirSync(dataDir, { recursive: true });
  const secret = generateSecret();
  const tmp = join(dataDir, `.${FORWARDING_SECRET_FILE}.${process.pid}.${Date.now()}.tmp`);
  try {
    writePrivate(tmp, secret);
    try {
      linkSync(tmp, path);
      return secret;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  // The file exists but held no secret (empty, whitespace): replace it, atomically.
  const raced = readSecret(path);
  if (raced !== null) return raced;
  writeFileAtomic(path, secret, { mode: 0o600 });
  return secret;
}

/** 32 random bytes as base64url: no characters that need quoting in TOML, YAML or a shell. */
function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The trimmed secret, tightening the file's mode to 600 if needed; null if absent or blank. */
function readSecret(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const secret = text.trim();
  if (secret === '') return null;
  if ((statSync(path).mode & 0o777) !== 0o600) chmodSync(path, 0o600);
  return secret;
}

function writePrivate(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    const bytes = Buffer.from(text);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
