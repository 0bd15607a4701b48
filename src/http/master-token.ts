import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/write';
import { generateToken } from './auth';

import type { TokenSource } from '../config/token-source';

export type { TokenSource };

/**
 * The master token: SVC_API_TOKEN (already folded into config) or `[api] token`. Left blank,
 * one is generated on first start and kept owner-only in data/api-token, so dashboards,
 * proxies and backends keep working across restarts; only its first 8 characters are logged.
 */
export function resolveMasterToken(
  configured: string,
  fromEnvironment: boolean,
  dataDir: string,
): { token: string; source: TokenSource; file?: string } {
  if (configured) return { token: configured, source: fromEnvironment ? 'environment' : 'config' };
  const file = tokenFile(dataDir);
  const saved = savedMasterToken(dataDir);
  if (saved) return { token: saved, source: 'generated', file };
  const token = generateToken();
  writeFileAtomic(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { token, source: 'generated', file };
}

const tokenFile = (dataDir: string) => join(dataDir, 'api-token');

/** The token a first start generated into data/api-token, if there is a usable one (never creates it). */
export function savedMasterToken(dataDir: string): string | null {
  const file = tokenFile(dataDir);
  if (!existsSync(file)) return null;
  const saved = readFileSync(file, 'utf8').trim();
  return saved.length >= 16 ? saved : null;
}
