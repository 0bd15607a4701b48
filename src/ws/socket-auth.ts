import type { Authenticator } from '../http/auth';

/**
 * The parts of a socket the API's WebSockets use. Elysia hands open/message/close its wrapper
 * but ping/pong the raw Bun socket; both carry the same `data`, whose `id` is stable.
 */
export interface SocketHandle {
  data: unknown;
  raw: { ping(): unknown; terminate(): void; send(text: string): unknown; subscribe(topic: string): void };
  close(code?: number, reason?: string): void;
}

/** Close code for a failed or missing credential (policy violation). */
export const CLOSE_POLICY = 1008;

export const socketId = (ws: { data: unknown }): string => (ws.data as { id: string }).id;

/** The token of a socket request: `Authorization: Bearer` header, else `?token=` (browsers). */
export function tokenOf(ws: { data: unknown }): string | null {
  const data = ws.data as { query: Record<string, string | undefined>; headers: Record<string, string | undefined> };
  const header = data.headers.authorization;
  return header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim() ?? data.query.token ?? null;
}

/**
 * Admits a socket that presented an admin credential (master token or admin JWT). Otherwise
 * closes it with 1008 saying why, unless it already went while the credential was checked.
 */
export async function admitAdmin(ws: SocketHandle, auth: Pick<Authenticator, 'identify'>, stillOpen: () => boolean): Promise<boolean> {
  const who = await auth.identify(tokenOf(ws));
  if (!stillOpen()) return false;
  if (who !== null && who !== 'invalid' && who.scopes.has('admin')) return true;
  ws.close(CLOSE_POLICY, who === null ? 'missing token' : 'admin token required');
  return false;
}

/**
 * Frames sockets send while their credential is still being checked. Clients write as soon as
 * the socket opens (the console's hello, a typed line), which can be before `admitAdmin` has
 * answered (an admin JWT is verified asynchronously). Those frames are kept, at most `max` per
 * socket, and handed back in order once it is admitted; a refused socket's are dropped.
 */
export class EarlyFrames {
  private readonly held = new Map<string, unknown[]>();

  constructor(private readonly max = 64) {}

  /** The socket's credential is being checked from now on. */
  begin(id: string): void {
    this.held.set(id, []);
  }

  /** Whether the socket is still being checked (false once it closed meanwhile). */
  pending(id: string): boolean {
    return this.held.has(id);
  }

  /** Keeps a frame of a socket being checked; false when the socket is not being checked. */
  hold(id: string, message: unknown): boolean {
    const frames = this.held.get(id);
    if (!frames) return false;
    if (frames.length < this.max) frames.push(message);
    return true;
  }

  /** The check is over (or the socket closed): the frames it sent meanwhile, in order. */
  end(id: string): unknown[] {
    const frames = this.held.get(id) ?? [];
    this.held.delete(id);
    return frames;
  }
}
