import type { Authenticator, Principal } from '../core/auth';
import type { SocketSpec } from '../http/route';
import { socketAccessOf } from '../http/guard';

/**
 * The parts of a socket the API's WebSockets use (socket-hub.ts makes one per socket): its
 * `data` (whose `id` is stable), the Bun socket itself as `raw`, and close.
 */
export interface SocketHandle {
  data: unknown;
  raw: { ping(): unknown; terminate(): void; send(text: string): unknown; subscribe(topic: string): void; getBufferedAmount(): number };
  close(code?: number, reason?: string): void;
}

/** Close code for a failed or missing credential (policy violation). */
export const CLOSE_POLICY = 1008;

export const socketId = (ws: { data: unknown }): string => (ws.data as { id: string }).id;

/** The token of a socket request: `Authorization: Bearer` header, else `?token=` (browsers). */
export function tokenOf(ws: { data: unknown }): string | null {
  return presentedToken(ws).token;
}

/** The token and where it came from: a URL may carry tickets and machine tokens, never a session token. */
function presentedToken(ws: { data: unknown }): { token: string | null; fromQuery: boolean } {
  const data = ws.data as { query: Record<string, string | undefined>; headers: Record<string, string | undefined> };
  const header = data.headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  if (header) return { token: header, fromQuery: false };
  const query = data.query.token;
  return { token: typeof query === 'string' ? query : null, fromQuery: true };
}

/**
 * Admits a socket whose credential the socket's spec accepts: an API token by the spec's level,
 * a dashboard session (or its single-use `wt_` ticket) by the spec's node. Otherwise closes it
 * with 1008 saying why, unless it already went while the credential was checked. A session's
 * socket is closed (1008) the moment that session is revoked.
 */
export async function admitSocket(
  ws: SocketHandle,
  auth: Pick<Authenticator, 'identifySocket' | 'authorize' | 'watchSession'>,
  spec: SocketSpec,
  stillOpen: () => boolean,
): Promise<Principal | null> {
  const { token, fromQuery } = presentedToken(ws);
  const who = await auth.identifySocket(token, fromQuery);
  if (!stillOpen()) return null;
  const verdict = auth.authorize(who, socketAccessOf(spec), (ws.data as { params?: Record<string, string> }).params);
  if (!verdict.ok) {
    ws.close(CLOSE_POLICY, closeReason(verdict.reason, 'node' in verdict ? verdict.node : undefined));
    return null;
  }
  const principal = who as Principal;
  const session = principal.session;
  if (session) (ws.data as { stopWatching?: () => void }).stopWatching = auth.watchSession(session.id, () => ws.close(CLOSE_POLICY, 'dashboard session logged out'));
  return principal;
}

/** Ends the revocation watch of a session's socket (call on close). */
export function forgetSocket(ws: { data: unknown }): void {
  (ws.data as { stopWatching?: () => void }).stopWatching?.();
}

function closeReason(reason: string, node?: string): string {
  switch (reason) {
    case 'unauthorized':
      return 'missing token';
    case 'missing-node':
      return `missing permission: ${node}`;
    case 'machine-only':
      return 'not for dashboard sessions';
    case 'totp-required':
      return 'enrol in two-factor authentication first';
    case 'session-expired':
      return 'session expired';
    case 'session-revoked':
      return 'session logged out';
    case 'forbidden':
      return 'token not accepted here';
    default:
      return 'token not accepted';
  }
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
