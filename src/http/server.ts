import { startupFirstResponse } from '../startup-trace';
import { Elysia, type AnyElysia } from 'elysia';
import { cors } from '@elysiajs/cors';
import type { Kernel } from '../kernel';
import { parseBody } from './body';
import { RequestGuard } from './guard';
import { isPrincipal } from './auth';
import { errorRenderer } from './render-error';
import { RequestMetrics, responseStatus, UNMATCHED_ROUTE } from './request-metrics';
import { DEFAULT_BODY_LIMIT, type AnyRoute, type SocketSpec } from './route';

export interface HttpOptions {
  routes: readonly AnyRoute[];
  sockets: readonly SocketSpec[];
  /** Mounts the WebSocket endpoints on the app. */
  mountSockets: (app: AnyElysia) => void;
}

/**
 * Limits of every API WebSocket. Frames are capped at the spec's 64 KiB. A peer that stops
 * reading has its outgoing frames buffered (the spec promises no event is dropped), up to
 * 64 MiB; past that the socket is closed rather than frames silently lost or memory given
 * away without end, and the client reconnects as the spec recommends.
 */
const SOCKET_LIMITS = {
  maxPayloadLength: 64 * 1024,
  idleTimeout: 120,
  sendPings: false,
  backpressureLimit: 64 * 1024 * 1024,
  closeOnBackpressureLimit: true,
};

/** Largest body Bun itself accepts; each route's own limit is enforced below it. */
export const SERVER_BODY_CEILING = 1024 * 1024 * 1024;

/** The framework's per-request context, carrying the request's arrival time for the duration histogram. */
type Timed = { arrivedAt?: number };

/** The parts of the after-response context the duration histogram reads. */
type AnsweredContext = Timed & {
  request: Request;
  set: { status?: number | string };
  response?: unknown;
  /** The framework's error code when the request failed (`NOT_FOUND`: no route matched). */
  code?: unknown;
};

/**
 * The Elysia root: CORS, the guard ahead of parsing (endpoint, caller, rate limits, auth
 * level, body size), one size-capped body parser, one error renderer for every non-2xx, and
 * the declared routes and sockets. The guard is returned so the caller can stop its timer.
 * Every answered request (CORS preflights and WebSocket upgrades aside) is timed into
 * `svc_http_request_duration_seconds` by its route template, as the guard matched it.
 */
export function createHttpApp(kernel: Kernel, options: HttpOptions): { app: AnyElysia; guard: RequestGuard } {
  const { config, auth, log, bus } = kernel;
  const guard = new RequestGuard(options.routes, options.sockets, config.api, auth);
  const origins = config.api.allowed_origins;
  const durations = new RequestMetrics(kernel.metrics);
  // strictPath: one URL per resource; `/api/groups/` is not `/api/groups`.
  const app = new Elysia({ strictPath: true, websocket: SOCKET_LIMITS })
    // First of all hooks, so the time includes CORS and the guard.
    .onRequest((c) => {
      (c as Timed).arrivedAt = performance.now();
    })
    .use(
      cors({
        origin: origins.length === 0 ? true : [...origins],
        methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],
        allowedHeaders: ['Authorization', 'Content-Type'],
        exposeHeaders: ['Retry-After'],
        credentials: true,
        maxAge: 600,
      }),
    )
    .onRequest(async ({ request, server }) => guard.check(request, server?.requestIP(request)?.address))
    .onParse(async ({ request }) => {
      const route = guard.factsOf(request)?.route;
      // null (not undefined) stops the framework's own parsers too: the handler streams the body.
      if (route?.rawBody) return null;
      return parseBody(request, route?.bodyLimit ?? DEFAULT_BODY_LIMIT, route?.body);
    })
    .onError(errorRenderer(log.child({ area: 'http' }), bus))
    // Runs just after the response is produced (the framework defers it with setImmediate); a
    // streamed body is not waited for, so its time is the time to the response head.
    .onAfterResponse((context) => {
      const c = context as unknown as AnsweredContext;
      const arrivedAt = c.arrivedAt;
      if (arrivedAt === undefined || c.request.method === 'OPTIONS') return;
      // The template the guard matched; the framework's 404 is `unmatched` even where the
      // guard's table, laxer about a trailing slash, found a route.
      const notFound = c.code === 'NOT_FOUND';
      let route = notFound ? undefined : guard.factsOf(c.request)?.route?.path;
      if (route === undefined) {
        // A WebSocket upgrade (to a socket endpoint, not a route) is a connection, not a request.
        if (!notFound && c.request.headers.has('upgrade')) return;
        route = UNMATCHED_ROUTE;
      }
      durations.observe(route, responseStatus(c.response, c.set.status), (performance.now() - arrivedAt) / 1000);
      startupFirstResponse();
    });

  for (const route of options.routes) mountRoute(app, route, guard);
  options.mountSockets(app);
  return { app, guard };
}

type HandlerContext = {
  params: unknown;
  query: unknown;
  body: unknown;
  set: { status?: number | string; headers: Record<string, string | number> };
  request: Request;
};

function mountRoute(app: AnyElysia, route: AnyRoute, guard: RequestGuard): void {
  const hooks: Record<string, unknown> = { response: route.response, detail: { summary: route.summary, tags: [route.tag] } };
  if (route.params) hooks.params = route.params;
  if (route.query) hooks.query = route.query;
  if (route.body) hooks.body = route.body;
  const handler = (c: HandlerContext) => {
    const facts = guard.factsOf(c.request);
    // Fail closed: the framework may reach this handler by a spelling the guard's table did
    // not resolve to this route (HEAD, a trailing slash, percent-encoding); check again here.
    if (facts?.route !== route) guard.enforce(route, facts?.who ?? null);
    guard.takeRouteBudget(route, facts?.ip ?? 'unknown');
    const principal = facts && isPrincipal(facts.who) ? facts.who : null;
    return route.handler({
      params: c.params,
      query: c.query,
      body: c.body,
      principal,
      actor: principal?.actor ?? 'system',
      ip: facts?.ip ?? 'unknown',
      set: c.set,
      request: c.request,
    });
  };
  app.route(route.method, route.path, handler as never, hooks as never);
}
