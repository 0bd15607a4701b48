import { mkdirSync } from 'node:fs';
import { SOFTWARE, type SoftwareName } from '../software/kinds';
import { acceptEula, setServerProperties } from '../templates/patches';

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

/**
 * `server-port` only, every other line kept; written when it changes. The directory is the
 * server's: the file is read and replaced by the tenant rule (tenancy/fs), so a
 * `server.properties` link is replaced, never read or written through.
 */
export function setServerPort(dir: string, port: number): void {
  setServerProperties(dir, { 'server-port': String(port) });
}
