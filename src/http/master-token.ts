import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/write';
import { generateToken } from './auth';

export type TokenSource = 'environment' | 'config' | 'generated';

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
  const file = join(dataDir, 'api-token');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved.length >= 16) return { token: saved, source: 'generated', file };
  }
  const token = generateToken();
  writeFileAtomic(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { token, source: 'generated', file };
}
