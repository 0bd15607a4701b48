/**
 * The second peer of the load-balancer benchmark (lb.bench.ts): the least a Bun TCP relay can
 * do (one fixed backend, write-through, pause the source on a short write, resume on drain;
 * no health, limits, counters, idle sweep or half-close). Whatever the balancer costs beyond
 * this is its own bookkeeping; what this costs beyond direct is the price of relaying in
 * user space at all (two more copies per byte, one more process on the CPUs).
 * Not a bench itself and never loaded by `bun test`.
 *
 *   bun lb-minimal-relay.ts <backend port>     prints `listening <port>`
 */
import type { Socket } from 'bun';

const backendPort = Number(Bun.argv[2]);

interface End {
  peer: Socket<End> | null;
  /** Bytes read before the backend connected (client side only). */
  early: Uint8Array[];
  /** The part of the last chunk this socket did not take yet. */
  unwritten: Uint8Array | null;
}

const relay = {
  data(socket: Socket<End>, chunk: Uint8Array) {
    const peer = socket.data.peer;
    if (!peer) return void socket.data.early.push(chunk);
    const written = peer.write(chunk);
    if (written < chunk.length) {
      peer.data.unwritten = chunk.subarray(Math.max(0, written));
      socket.pause();
    }
  },
  drain(socket: Socket<End>) {
    const rest = socket.data.unwritten;
    if (!rest) return;
    const written = socket.write(rest);
    if (written < rest.length) return void (socket.data.unwritten = rest.subarray(Math.max(0, written)));
    socket.data.unwritten = null;
    socket.data.peer?.resume();
  },
  close(socket: Socket<End>) {
    socket.data.peer?.end();
  },
};

const listener = Bun.listen<End>({
  hostname: '127.0.0.1',
  port: 0,
  socket: {
    ...relay,
    async open(client) {
      client.data = { peer: null, early: [], unwritten: null };
      client.setNoDelay(true);
      const backend = await Bun.connect<End>({ hostname: '127.0.0.1', port: backendPort, data: { peer: client, early: [], unwritten: null }, socket: relay });
      backend.setNoDelay(true);
      client.data.peer = backend;
      const early = Buffer.concat(client.data.early.splice(0));
      if (early.length > 0) relay.data(client, early);
    },
  },
});
console.log(`listening ${listener.port}`);
