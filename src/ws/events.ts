import type { Kernel } from '../kernel';
import type { SocketHub } from './socket-hub';
import { specOf, type SvcEvent } from '../events/catalogue';
import type { SocketSpec } from '../http/route';
import type { Principal } from '../core/auth';
import type { Heartbeat } from './heartbeat';
import { BacklogWatch, EVENT_BACKLOG, type BacklogLimits } from './backlog-watch';
import { publishEventsTo } from './event-topic';
import { CLOSE_POLICY, socketId } from './socket-auth';
import { socketLifecycle } from './socket-lifecycle';

export { CLOSE_POLICY };

export const EVENTS_SOCKET: SocketSpec = {
  path: '/api/events',
  auth: 'service',
  summary: 'Live event stream: one JSON text frame {type, timestamp, data} per event',
  permission: 'svc.dashboard.overview',
  tenants: { proxy: 'any', backend: 'any' },
};

/**
 * Who hears what. An event declared with audience `proxy` (the auth module's magic-link
 * delivery, which carries a live login link): only the master token and the proxies' own
 * credentials (the auth plugin on the proxy delivers it) hear it, never
 * derived-token holders nor backends nor dashboard sessions. Backends' own credentials and
 * sessions also do not hear the dashboard login events, which carry other people's addresses
 * (`GET /api/audit` serves those to holders of the audit node).
 */
const TOPIC_MASTER = 'svc-events-master';
const TOPIC_MACHINE = 'svc-events';
const TOPIC_SESSION = 'svc-events-session';
const proxyOnly = (type: string) => specOf(type)?.audience === 'proxy';
const DASHBOARD_LOGINS: ReadonlySet<string> = new Set(['DASHBOARD_LOGIN_SUCCEEDED', 'DASHBOARD_LOGIN_FAILED', 'DASHBOARD_SESSION_REVOKED']);

function topicOf(who: Principal): string {
  if (who.kind === 'master' || (who.kind === 'tenant' && who.tenant?.role === 'proxy')) return TOPIC_MASTER;
  if (who.kind === 'session' || who.kind === 'tenant') return TOPIC_SESSION;
  return TOPIC_MACHINE;
}

const frameOf = (event: SvcEvent) => JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });

/**
 * GET /api/events: the bus, pushed to subscribers. Accepts the master token, the derived
 * service token, a JWT with admin or a service scope, or a dashboard session holding the
 * events node (directly or by a `wt_` ticket), in the Authorization header or in ?token=
 * (browsers cannot set headers). Anything else is closed with 1008 at once.
 *
 * Fan-out: each event is serialised once per audience and handed to Bun's native publish,
 * which writes it to every subscribed socket; a subscriber that stops reading only grows its
 * own backlog and never delays the others. That backlog is bounded (backlog-watch.ts): not
 * drained within 5 s, over 1 MiB, or among the largest when all of them pass 32 MiB, the
 * socket is cut and reconnects; a socket that reads gets every event.
 */
export function mountEventsSocket(hub: SocketHub, kernel: Kernel, heartbeat: Heartbeat, backlogLimits: BacklogLimits = EVENT_BACKLOG): { subscribers(): number } {
  const log = kernel.log.child({ area: 'events' });
  const backlog = new BacklogWatch(backlogLimits, ({ sockets, largestBytes, why }) =>
    log.warn({ sockets, largestKiB: Math.round(largestBytes / 1024) }, `${sockets} event subscriber(s) stopped reading and were cut (${why}); they reconnect`),
  );
  const master = publishEventsTo(() => hub.publisher, kernel.bus, TOPIC_MASTER, frameOf);
  const machine = publishEventsTo(() => hub.publisher, kernel.bus, TOPIC_MACHINE, (event) => (proxyOnly(event.type) ? null : frameOf(event)));
  const session = publishEventsTo(() => hub.publisher, kernel.bus, TOPIC_SESSION, (event) => (proxyOnly(event.type) || DASHBOARD_LOGINS.has(event.type) ? null : frameOf(event)));
  // Frames from subscribers are only signs of life (the lifecycle counts them); each kept socket's state is its id.
  hub.add(
    EVENTS_SOCKET.path,
    socketLifecycle(kernel.auth, heartbeat, {
      spec: EVENTS_SOCKET,
      admitted(ws, who) {
        const id = socketId(ws);
        const raw = ws.raw;
        backlog.track(id, { buffered: () => raw.getBufferedAmount(), terminate: () => raw.terminate() });
        raw.subscribe(topicOf(who));
        return id;
      },
      closed: (id) => backlog.untrack(id),
    }),
  );
  return { subscribers: () => master.subscribers() + machine.subscribers() + session.subscribers() };
}
