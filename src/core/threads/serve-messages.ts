/**
 * A worker's side of its messages (worker-thread.ts starts it): `handle` gets each message in
 * order and answers through `reply`. Call once, at the top of a `*.worker.ts` file.
 */
import type { Transfer } from './worker-thread';

declare const self: Worker;

export function serveMessages<In, Out>(handle: (message: In, reply: (answer: Out, transfer?: Transfer) => void) => void): void {
  const reply = (answer: Out, transfer: Transfer = []): void => self.postMessage(answer, transfer);
  self.onmessage = (event: MessageEvent<In>) => handle(event.data, reply);
}
