import type { Server, ServerWebSocket, WebSocketHandler } from 'bun';
import type { AnyElysia } from 'elysia';
import { websocket as elysiaSockets } from 'elysia/ws';
import { ApiError } from '../errors';
import type { SocketSpec } from '../http/route';
import type { SocketHandle } from './socket-auth';

/**
 * What each API WebSocket carries from its upgrade request (Elysia's context of the `.ws()`
 * route): a stable unique `id`, the path parameters (percent-decoded), the query and the
 * request headers (lower-case names).
 */
export interface SocketData {
  id: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string | undefined>;
  /** Set by session sockets: ends the revocation watch. */
  stopWatching?: () => void;
}

/** An endpoint's callbacks; text frames arrive as sent, binary frames decoded as UTF-8. */
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

/** Admits the upgrade request of a socket endpoint (the guard: its caller's rate budget). */
type Admit = (request: Request, params: Record<string, string>) => unknown;

interface Attached {
  handle: SocketHandle;
  endpoint: SocketEndpoint;
}

const decoder = new TextDecoder();

/**
 * The API's WebSocket endpoints as Elysia `.ws()` routes on Bun's native WebSocket server. The
 * upgrade request passes the guard (rate limits; the endpoint authenticates on open), a plain
 * GET to the same path is 426; open, pong and close reach the endpoint through Elysia's route,
 * text frames through Bun's handler as they were sent (Elysia's message parser would turn a
 * console line such as `42` or `"hi"` into a number or a string without its quotes).
 */
export class SocketHub {
  private readonly endpoints = new Map<string, SocketEndpoint>();
  private readonly attached = new WeakMap<ServerWebSocket<unknown>, Attached>();
  private server: Server<unknown> | undefined;

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

  attach(server: Server<unknown> | undefined): void {
    this.server = server;
  }

  /** Mounts the endpoint declared by `spec` on the app: its `.ws()` route and the 426 of a plain GET. */
  mount(app: AnyElysia, spec: SocketSpec, admit: Admit): void {
    const endpoint = this.endpoints.get(spec.path);
    if (!endpoint) throw new Error(`socket ${spec.path} has no endpoint`);
    // The request and parameters only: Elysia infers from what a hook reads what to prepare.
    const transform = (c: { request: Request; params: Record<string, string> }) => admit(c.request, c.params);
    app.get(
      spec.path,
      () => {
        throw new ApiError('VALIDATION_FAILED', `${spec.path} is a WebSocket endpoint: connect with Upgrade: websocket`, 426, { Upgrade: 'websocket' });
      },
      { transform } as never,
    );
    app.ws(spec.path, {
      transform,
      open: (ws: { raw: ServerWebSocket<unknown> }) => this.open(spec.path, endpoint, ws.raw),
      close: (ws: { raw: ServerWebSocket<unknown> }) => {
        const attached = this.attached.get(ws.raw);
        if (attached) attached.endpoint.close(attached.handle);
      },
      pong: (raw: ServerWebSocket<unknown>) => {
        const attached = this.attached.get(raw);
        if (attached) attached.endpoint.pong?.(attached.handle);
      },
    } as never);
  }

  /** Bun's websocket callbacks with the limits every API socket shares. */
  handler(limits: Omit<WebSocketHandler<unknown>, 'open' | 'message' | 'close' | 'pong'>): WebSocketHandler<unknown> {
    return {
      ...limits,
      open: elysiaSockets.open,
      close: elysiaSockets.close,
      drain: elysiaSockets.drain,
      ping: elysiaSockets.ping,
      pong: elysiaSockets.pong,
      message: (ws, message) => {
        const attached = this.attached.get(ws);
        attached?.endpoint.message(attached.handle, typeof message === 'string' ? message : decoder.decode(message));
      },
    } as WebSocketHandler<unknown>;
  }

  private open(path: string, endpoint: SocketEndpoint, raw: ServerWebSocket<unknown>): void {
    const handle: SocketHandle = { data: raw.data, raw, close: (code?: number, reason?: string) => raw.close(code, reason) };
    this.attached.set(raw, { handle, endpoint });
    const failed = (error: unknown) => {
      this.onError(error, path);
      raw.close(1011, 'internal error');
    };
    try {
      const opened = endpoint.open(handle);
      if (opened instanceof Promise) opened.catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}
