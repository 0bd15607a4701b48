/**
 * A console's WebSocket that comes back by itself. A browser cannot set headers on a socket and
 * a token must never sit in a URL, so each connection first fetches a single-use `wt_` ticket
 * (GET /api/ws-ticket) and passes that in ?token=, as live.ts does for /api/events. A dropped
 * connection is opened again after 1 s, 2 s, … up to 10 s; `reconnectNow` skips the wait (the
 * page heard that the service is back). A refusal of the credential (1008) is final: retrying
 * cannot change it, the operator must sign in with another token. The frames travel through
 * a worker (socket-transport.ts), so a flood of them does not hold up the page.
 */
import { api, ApiFailure } from '../api';
import { openTransport, type Transport } from './socket-transport';

export type SocketStatus =
  | { kind: 'connecting' }
  | { kind: 'open' }
  | { kind: 'waiting'; reason: string; retryInMs: number }
  | { kind: 'refused'; reason: string };

export interface TicketSocketOptions {
  /** The socket's path, e.g. /api/console/stream. */
  path: string;
  onOpen?: (send: (data: string) => void) => void;
  onMessage: (data: string) => void;
  onStatus?: (status: SocketStatus) => void;
}

export interface TicketSocket {
  /** Sends when open; false when it is not (the caller says so to the operator). */
  send(data: string): boolean;
  reconnectNow(): void;
  close(): void;
}

/** The close code of a refused credential. */
const CLOSE_POLICY = 1008;
const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 10_000;
/**
 * A connection that lasted this long starts the waits again from the first; one closed sooner
 * (a service console refused at once: the service has no process) keeps backing off.
 */
const STEADY_MS = 5_000;

export function openTicketSocket(options: TicketSocketOptions): TicketSocket {
  /** The open connection's way to send, and when it opened; null while there is none. */
  let connection: { transport: Transport; open: boolean; openedAt: number } | null = null;
  let closed = false;
  /** Between asking for a ticket and having a connection. */
  let opening = false;
  let retryMs = FIRST_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const status = (s: SocketStatus) => options.onStatus?.(s);

  const retry = (reason: string) => {
    if (closed) return;
    clearTimeout(timer);
    status({ kind: 'waiting', reason, retryInMs: retryMs });
    timer = setTimeout(() => void connect(), retryMs);
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  };

  const connect = async () => {
    clearTimeout(timer);
    if (closed) return;
    status({ kind: 'connecting' });
    opening = true;
    let ticket: string;
    try {
      ticket = (await api<{ ticket: string }>('/api/ws-ticket')).ticket;
    } catch (error) {
      opening = false;
      return retry(error instanceof ApiFailure ? error.message : 'the controller cannot be reached');
    }
    opening = false;
    if (closed) return;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${scheme}//${location.host}${options.path}?token=${encodeURIComponent(ticket)}`;
    const current: { transport: Transport; open: boolean; openedAt: number } = {
      open: false,
      openedAt: 0,
      transport: openTransport(url, {
        open: () => {
          if (connection !== current) return;
          current.open = true;
          current.openedAt = performance.now();
          status({ kind: 'open' });
          options.onOpen?.((data) => current.transport.send(data));
        },
        data: (items) => {
          if (connection !== current) return;
          for (const item of items) options.onMessage(item);
        },
        closed: (code, reason) => {
          if (connection !== current) return;
          connection = null;
          if (closed) return;
          if (current.open && performance.now() - current.openedAt >= STEADY_MS) retryMs = FIRST_RETRY_MS;
          const why = reason || (code === 1006 ? 'the connection was lost' : `closed (${code})`);
          if (code === CLOSE_POLICY) return status({ kind: 'refused', reason: why });
          retry(why);
        },
      }),
    };
    connection = current;
  };

  void connect();
  return {
    send(data) {
      if (!connection?.open) return false;
      connection.transport.send(data);
      return true;
    },
    reconnectNow() {
      if (closed || connection || opening) return;
      retryMs = FIRST_RETRY_MS;
      void connect();
    },
    close() {
      closed = true;
      clearTimeout(timer);
      const current = connection;
      connection = null;
      current?.transport.close();
    },
  };
}
