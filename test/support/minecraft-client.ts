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
