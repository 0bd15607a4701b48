import type { Socket, TCPSocketListener } from 'bun';

/**
 * In-process TCP servers on 127.0.0.1 (OS-chosen port) that misbehave on purpose, for the
 * failure paths a real game server will not produce on demand. Each test scripts the server
 * with `onData`, which sees every byte received so far on that connection.
 */

export interface PeerConnection {
  socket: Socket<PeerState>;
  /** Every byte the client sent so far. */
  received: Uint8Array;
  /** True once the client side closed (or the connection otherwise ended). */
  closed: boolean;
}

interface PeerState {
  conn: PeerConnection;
}

export interface ScriptedPeer {
  port: number;
  connections: PeerConnection[];
  /** Resolves when at least `count` connections have closed; rejects after `timeoutMs`. */
  waitForClosed(count: number, timeoutMs: number): Promise<void>;
  stop(): void;
}

export function startPeer(onData: (conn: PeerConnection) => void = () => {}): ScriptedPeer {
  const connections: PeerConnection[] = [];
  let waiters: (() => void)[] = [];
  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };
  const closedCount = () => connections.filter((c) => c.closed).length;
  const markClosed = (socket: Socket<PeerState>) => {
    socket.data.conn.closed = true;
    notify();
  };

  const listener: TCPSocketListener<PeerState> = Bun.listen<PeerState>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        const conn: PeerConnection = { socket, received: new Uint8Array(0), closed: false };
        socket.data = { conn };
        connections.push(conn);
      },
      data(socket, chunk) {
        const conn = socket.data.conn;
        const next = new Uint8Array(conn.received.length + chunk.length);
        next.set(conn.received);
        next.set(chunk, conn.received.length);
        conn.received = next;
        onData(conn);
      },
      close: markClosed,
      end: markClosed,
      error: markClosed,
    },
  });

  return {
    port: listener.port,
    connections,
    waitForClosed(count, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== check);
          reject(new Error(`only ${closedCount()} of ${count} connections closed within ${timeoutMs} ms`));
        }, timeoutMs);
        function check(): void {
          if (closedCount() >= count) {
            clearTimeout(timer);
            resolve();
          } else {
            waiters.push(check);
          }
        }
        check();
      });
    },
    stop() {
      listener.stop(true);
    },
  };
}

/** A port nothing listens on right now: bound by the OS, then released. */
export function closedPort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}
