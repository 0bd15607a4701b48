import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../config/write';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface LoadedKey {
  key: SessionKey;
  /** Why the key was written this start: it was missing, or had the wrong size. Null when read. */
  regenerated: 'missing' | 'wrong-size' | null;
}

/**
 * The AES-256-GCM key that encrypts TOTP secrets (`session.key`, 32 raw bytes, mode 600).
 * Made when missing; a file of another size is replaced. Either way every TOTP enrolment made
 * under the old key can no longer be decrypted, which the caller must say plainly.
 */
export function loadSessionKey(file: string): LoadedKey {
  let regenerated: LoadedKey['regenerated'] = null;
  if (existsSync(file)) {
    const bytes = readFileSync(file);
    if (bytes.length === KEY_BYTES) {
      tightenMode(file);
      return { key: new SessionKey(bytes), regenerated };
    }
    regenerated = 'wrong-size';
  } else {
    regenerated = 'missing';
  }
  const bytes = randomBytes(KEY_BYTES);
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, bytes, { mode: 0o600 });
  tightenMode(file);
  return { key: new SessionKey(bytes), regenerated };
}

function tightenMode(file: string): void {
  if (process.platform === 'win32') return;
  chmodSync(file, 0o600);
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
