import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/write';
import { ConfigError } from '../config/load';
import { generateToken } from '../core/auth';

import type { TokenSource } from '../config/token-source';

export type { TokenSource };

/** Shorter than this, a saved token is not one svc wrote (it writes 40+ characters). */
const MIN_TOKEN_LENGTH = 16;

/**
 * The master token: SVC_API_TOKEN (already folded into config) or `[api] token`. Left blank,
 * one is generated on first start and kept owner-only in data/api-token, so dashboards,
 * proxies and backends keep working across restarts; only its first 8 characters are logged.
 * A file there that cannot be used (unreadable, too short to be a token) stops the start with
 * a ConfigError naming it: it is never overwritten, since every client holding the real token
 * would be locked out by a new one.
 */
export function resolveMasterToken(
  configured: string,
  fromEnvironment: boolean,
  dataDir: string,
): { token: string; source: TokenSource; file?: string } {
  if (configured) return { token: configured, source: fromEnvironment ? 'environment' : 'config' };
  const file = tokenFile(dataDir);
  const saved = readSavedToken(dataDir);
  if (saved.kind === 'token') return { token: saved.token, source: 'generated', file };
  if (saved.kind === 'unusable') throw new ConfigError(saved.problem);
  const token = generateToken();
  writeFileAtomic(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { token, source: 'generated', file };
}

const tokenFile = (dataDir: string) => join(dataDir, 'api-token');

export type SavedToken = { kind: 'token'; token: string } | { kind: 'absent' } | { kind: 'unusable'; unreadable: boolean; problem: string };

/** data/api-token as it is: a usable token, absent, or there but unusable (and why, in one line). */
export function readSavedToken(dataDir: string): SavedToken {
  const file = tokenFile(dataDir);
  const keep = `it is left as it is (a new token would lock out every client holding the old one). Put the right token back, set [api] token or SVC_API_TOKEN, or delete the file to have a new one generated (every client then needs the new one)`;
  let text: string;
  try {
    if (!statSync(file).isFile()) return { kind: 'unusable', unreadable: false, problem: `${file} is not a file: ${keep}` };
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'unusable', unreadable: true, problem: `${file} cannot be read (${code ?? String(error)}): give the user svc runs as read access to it; ${keep}` };
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH) {
    return { kind: 'unusable', unreadable: false, problem: `${file} holds ${token.length} character(s), not a token (svc writes 40 or more, at least ${MIN_TOKEN_LENGTH} are needed): ${keep}` };
  }
  return { kind: 'token', token };
}

/** The token a first start generated into data/api-token, if there is a usable one (never creates it; throws when it cannot be read). */
export function savedMasterToken(dataDir: string): string | null {
  const saved = readSavedToken(dataDir);
  if (saved.kind === 'unusable' && saved.unreadable) throw new Error(saved.problem);
  return saved.kind === 'token' ? saved.token : null;
}
