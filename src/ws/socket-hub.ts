import type { Server, ServerWebSocket, WebSocketHandler } from 'bun';
import type { SocketHandle } from './socket-auth';

/** What each API WebSocket carries from its upgrade request. */
export interface SocketData {
  /** Stable and unique for the socket's life. */
  id: string;
  path: string;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  /** Request headers, lower-case names. */
  headers: Record<string, string | undefined>;
  /** The handle the endpoint's callbacks receive. */
  handle?: SocketHandle;
  stopWatching?: () => void;
}

/** An endpoint's callbacks; text frames arrive as text, binary frames decoded as UTF-8. */
export interface SocketEndpoint {
  open(ws: SocketHandle): void | Promise<void>;
  message(ws: SocketHandle, message: string): void;
  pong?(ws: SocketHandle): void;
  close(ws: SocketHandle): void;
}

/** The parts of Bun's server the event fan-out uses. */
export interface Publisher {
  publish(topic: string, data: string): number;
  subscriberCount(topic: string): number;
}

const decoder = new TextDecoder();
let nextSocket = 0;

/**
 * The API's WebSocket endpoints on Bun's native WebSocket server: the HTTP server upgrades a
 * request to a socket endpoint's path (its guard has counted it; the endpoint authenticates on
 * open) and every callback is routed to that endpoint by the path stored on the socket.
 */
export class SocketHub {
  private readonly endpoints = new Map<string, SocketEndpoint>();
  private server: Server<SocketData> | undefined;

  /** `onError`: an endpoint's open failed (the socket is closed with 1011). */
  constructor(private readonly onError: (error: unknown, path: string) => void) {}

  /** `path` as declared in the endpoint's SocketSpec. */
  add(path: string, endpoint: SocketEndpoint): void {
    if (this.endpoints.has(path)) throw new Error(`socket ${path} declared twice`);
    this.endpoints.set(path, endpoint);
  }

  /** The running server, for topic publishing; null before listen and after stop. */
  get publisher(): Publisher | null {
    return this.server ?? null;
  }

  attach(server: Server<SocketData> | undefined): void {
    this.server = server;
  }

  /** Upgrades the request to the endpoint declared at `path`; false when it is no upgrade request. */
  upgrade(server: Server<SocketData>, request: Request, path: string, params: Record<string, string>, query: Record<string, string | string[]>): boolean {
    if (!this.endpoints.has(path)) return false;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    nextSocket += 1;
    return server.upgrade(request, { data: { id: `ws-${nextSocket}`, path, params, query, headers } });
  }

  /** Bun's websocket callbacks, with the limits every API socket shares. */
  handler(limits: Omit<WebSocketHandler<SocketData>, 'open' | 'message' | 'close' | 'pong'>): WebSocketHandler<SocketData> {
    const endpointOf = (ws: ServerWebSocket<SocketData>) => this.endpoints.get(ws.data.path);
    const handleOf = (ws: ServerWebSocket<SocketData>): SocketHandle => {
      ws.data.handle ??= { data: ws.data, raw: ws, close: (code?: number, reason?: string) => ws.close(code, reason) };
      return ws.data.handle;
    };
    return {
      ...limits,
      open: (ws) => {
        const failed = (error: unknown) => {
          this.onError(error, ws.data.path);
          ws.close(1011, 'internal error');
        };
        try {
          const opened = endpointOf(ws)?.open(handleOf(ws));
          if (opened instanceof Promise) opened.catch(failed);
        } catch (error) {
          failed(error);
        }
      },
      message: (ws, message) => {
        endpointOf(ws)?.message(handleOf(ws), typeof message === 'string' ? message : decoder.decode(message));
      },
      pong: (ws) => {
        endpointOf(ws)?.pong?.(handleOf(ws));
      },
      close: (ws) => {
        endpointOf(ws)?.close(handleOf(ws));
      },
    };
  }
}
