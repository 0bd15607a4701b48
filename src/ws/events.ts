import type { AnyElysia } from 'elysia';
import type { Kernel } from '../kernel';
import { SERVICE_SCOPES } from '../http/auth';
import type { SocketSpec } from '../http/route';
import type { Heartbeat } from './heartbeat';
import { publishEventsTo } from './event-topic';
import { CLOSE_POLICY, socketId, tokenOf, type SocketHandle } from './socket-auth';

export { CLOSE_POLICY };

export const EVENTS_SOCKET: SocketSpec = { path: '/api/events', auth: 'service', summary: 'Live event stream: one JSON text frame {type, timestamp, data} per event' };

/** The pub/sub topic every authenticated events socket joins. */
const TOPIC = 'svc-events';

/**
 * GET /api/events: the bus, pushed to subscribers. Accepts the master token, the derived
 * service token, or a JWT with admin or a service scope, in the Authorization header or in
 * ?token= (browsers cannot set headers). Anything else is closed with 1008 at once.
 *
 * Fan-out: each event is serialised once and handed to Bun's native publish, which writes it
 * to every subscribed socket; a subscriber that stops reading only grows its own buffer
 * (see the websocket limits in http/server.ts) and never delays the others.
 */
export function mountEventsSocket(app: AnyElysia, kernel: Kernel, heartbeat: Heartbeat): { subscribers(): number } {
  // Live connections and whether each has been let in. A socket that closes while its
  // credential is still being checked is gone from the map by then, and never subscribes.
  const live = new Map<string, boolean>();
  const topic = publishEventsTo(app, kernel.bus, TOPIC, (event) => JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data }));
  app.ws(EVENTS_SOCKET.path, {
    async open(ws: SocketHandle) {
      const id = socketId(ws);
      live.set(id, false);
      const who = await kernel.auth.identify(tokenOf(ws));
      const allowed =
        who !== null &&
        who !== 'invalid' &&
        (who.kind === 'master' || who.kind === 'service' || who.scopes.has('admin') || SERVICE_SCOPES.some((s) => who.scopes.has(s)));
      if (!live.has(id)) return;
      if (!allowed) {
        ws.close(CLOSE_POLICY, who === null ? 'missing token' : 'token not accepted');
        return;
      }
      const raw = ws.raw;
      heartbeat.track(id, { ping: () => raw.ping(), terminate: () => raw.terminate() });
      raw.subscribe(TOPIC);
      live.set(id, true);
    },
    message(ws: SocketHandle) {
      heartbeat.alive(socketId(ws));
    },
    pong(ws: { data: unknown }) {
      heartbeat.alive(socketId(ws));
    },
    close(ws: SocketHandle) {
      const id = socketId(ws);
      heartbeat.untrack(id);
      live.delete(id);
    },
  });
  return topic;
}
