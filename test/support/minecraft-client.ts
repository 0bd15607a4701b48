import { createHash } from 'node:crypto';
import type { Client } from 'minecraft-protocol';
import { waitFor } from './controller';

/**
 * Waits until a real `minecraft-protocol` client has received every packet in `packets`
 * (e.g. `login`, `spawn_position`), or fails at once with why the connection broke. The error
 * listener stays for the client's whole life: an 'error' without one would throw when a server
 * stops or is killed and resets its sockets.
 */
export async function waitForPackets(client: Client, packets: readonly string[], options: { what: string; failure: string; timeoutMs: number }): Promise<void> {
  const seen = new Set<string>();
  let failure: string | undefined;
  client.on('packet', (_data, meta) => {
    if (packets.includes(meta.name)) seen.add(meta.name);
  });
  client.on('error', (error) => {
    failure ??= error.message;
  });
  client.once('end', (reason) => {
    failure ??= `connection ended: ${reason}`;
  });
  await waitFor(
    () => {
      const done = seen.size === packets.length;
      if (!done && failure !== undefined) throw new Error(`${options.failure}: ${failure}`);
      return done;
    },
    { timeoutMs: options.timeoutMs, what: options.what },
  );
}

/** The uuid an offline-mode server gives a name: a v3 uuid of "OfflinePlayer:<name>", dashed. */
export function offlineUuid(name: string): string {
  const hash = createHash('md5').update(`OfflinePlayer:${name}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x30;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
