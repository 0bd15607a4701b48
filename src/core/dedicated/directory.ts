import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';
import { SOFTWARE, type SoftwareName } from '../software/kinds';
import { setProperties } from '../templates/properties-text';
import { acceptEula } from '../templates/patches';

/**
 * A dedicated service's directory at creation: made if missing (never emptied: it may hold
 * the world of an earlier config of the same name), `eula.txt` accepted and `server.properties`
 * given the port. Other files and keys are left as they are. A proxy gets its files at its
 * first start (velocity.toml needs the network's state).
 */
export function provisionDedicatedDirectory(dir: string, config: { port: number; software: SoftwareName }): void {
  mkdirSync(dir, { recursive: true });
  if (SOFTWARE[config.software].isProxy) return;
  acceptEula(dir);
  setServerPort(dir, config.port);
}

/** `server-port` only, every other line kept; written when it changes. */
export function setServerPort(dir: string, port: number): void {
  const path = join(dir, 'server.properties');
  let before: string | null = null;
  try {
    before = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const after = setProperties(before ?? '', { 'server-port': String(port) });
  if (after !== before) writeFileAtomic(path, after);
}
