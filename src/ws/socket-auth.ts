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
