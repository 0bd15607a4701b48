import type { Server } from 'bun';
import type { TSchema } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { bearer } from '@elysiajs/bearer';
import { startupFirstResponse } from '../startup-trace';
import { ApiError } from '../errors';
import type { Kernel } from '../kernel';
import type { SocketHub } from '../ws/socket-hub';
import { parseBody } from './body';
import { corsPlugin } from './cors';
import { RequestGuard, type Endpoint } from './guard';
import { isPrincipal } from '../core/auth';
import { errorRenderer } from './render-error';
import { acknowledgedWrites } from '../storage/write-scope';
import { RequestMetrics, UNMATCHED_ROUTE } from './request-metrics';
import { splitUrl } from './request';
import { mountDashboard } from '../dashboard/mount';
import { DEFAULT_BODY_LIMIT, type AnyRoute, type SocketSpec } from './route';
import { SERVER_BODY_CEILING, type ApiHandler } from './api-handler';

export interface HttpOptions {
  routes: readonly AnyRoute[];
  sockets: readonly SocketSpec[];
  /** The WebSocket endpoints of `sockets`, by path. */
  hub: SocketHub;
  hostname: string;
  port: number;
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

/**
 * A connection that sends nothing for this long is closed: headers and bodies trickled in
 * (slowloris) are cut here, as are idle keep-alive connections. While a route's handler works
 * there is no idle timeout at all (see the route handler): its answer comes when its work is
 * done, however long the work's own bounds allow (a stop: the drain, `stop`, 30 s, the kill and
 * its 10 s), so every answer the spec gives reaches its caller, a 409 SERVICE_STOP_FAILED included.
 */
export const REQUEST_IDLE_SECONDS = 10;

/**
 * The bearer token handlers see, from the Authorization header only. @elysiajs/bearer also
 * looks in the query string (`?access_token=` by default): the name it is given here is a lone
 * UTF-16 surrogate, which no query key can decode to (a URL decodes to well-formed text or is
 * kept as its ASCII escapes), so a token in a URL is never taken.
 */
const NEVER_A_QUERY_KEY = '\uD800';

/** The per-request context of Elysia the API's hooks read (only what they read). */
interface Context {
  request: Request;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  bearer?: string;
  set: { status?: number | string; headers: Record<string, string | number> };
}

/** The path parameters of a route without any (Elysia leaves them out on static paths). */
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** What the body hook hands on for a request without a body, so Elysia's own parsers leave it alone. */
const NO_BODY = Symbol('no body');

/**
 * The API server: one Elysia app on Bun.serve. Every declared route is an Elysia route with its
 * TypeBox schemas (params, query, body, response: Elysia validates and keeps only the declared
 * keys); every WebSocket endpoint an Elysia `.ws()` route. Ahead of the body, each route's own
 * hook runs the guard once (endpoint, caller, rate limits, auth level, permission node, tenants,
 * body size) and our size-capped body parser; @elysiajs/cors answers preflights and adds the
 * CORS headers, @elysiajs/bearer hands handlers the token; one onError renders every failure
 * as the spec's error body. Around the app: the duration histogram by route template, the idle
 * timeout lifted while a handler works, and HEAD answered by the GET route (Bun leaves out the
 * body; Elysia's own HEAD would read a download through to count it).
 */
export function createHttpServer(kernel: Kernel, options: HttpOptions): { server: Server<unknown>; guard: RequestGuard; handle: ApiHandler } {
  const { config, auth, log, bus } = kernel;
  const guard = new RequestGuard(options.routes, config.api, auth);
  const durations = new RequestMetrics(kernel.metrics);
  const renderError = errorRenderer(log.child({ area: 'http' }), bus, kernel.dir);
  const httpLog = log.child({ area: 'http' });
  const { hub } = options;
  /** Requests handed over from another listener (the cluster port), with the caller's address there. */
  const handedOver = new WeakMap<Request, string | undefined>();
  let server: Server<unknown> | undefined;

  const addressOf = (request: Request): string | undefined => (handedOver.has(request) ? handedOver.get(request) : server?.requestIP(request)?.address);
  const admit = (endpoint: Endpoint, request: Request, params?: Record<string, string>) => guard.admit(endpoint, request, () => addressOf(request), params);

  const app = new Elysia({ strictPath: true, encodeSchema: false })
    .use(corsPlugin(config.api.allowed_origins))
    .use(bearer({ extract: { header: 'Bearer', query: NEVER_A_QUERY_KEY, body: NEVER_A_QUERY_KEY } }))
    .onError(async ({ error, request }) => {
      // The caller hung up before its body was read (an upload cut short): nobody to answer and
      // nothing broken here, so neither an ERROR nor an API_ERROR.
      if (clientWentAway(error, request)) {
        httpLog.info({ method: request.method, path: splitUrl(request.url).pathname }, 'the client went away before its request body was read');
        return new Response(null, { status: CLIENT_GONE });
      }
      let failure: unknown = error;
      // No route answers: the request still spends its caller's rate budget (a scan is slowed down).
      if ((error as { code?: unknown }).code === 'NOT_FOUND' && !guard.factsOf(request)) {
        try {
          await admit(undefined, request);
        } catch (refused) {
          failure = refused;
        }
      }
      const failed = renderError(failure, request);
      return Response.json(failed.body, { status: failed.status, headers: failed.headers });
    });

  for (const route of options.routes) mountRoute(app, route);
  for (const socket of options.sockets) hub.mount(app, socket, (request, params) => admit({ kind: 'socket', socket }, request, params));
  // The page names the modules this run loaded: the app shows their pages, and the game-account
  // sign-in when `auth` is among them.
  const dashboardFeatures = kernel.modules
    .list()
    .filter((m) => m.status === 'active')
    .map((m) => m.id)
    .sort();
  if (config.dashboard.enabled) mountDashboard(app, (request) => admit(undefined, request), dashboardFeatures);

  function mountRoute(target: typeof app, route: AnyRoute): void {
    const endpoint: Endpoint = { kind: 'route', route };
    const bodyLimit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    // Not async: a synchronous route answers without a promise of its own (see acknowledgedWrites).
    const handler = (c: Context) => {
      const facts = guard.factsOf(c.request);
      // Fail closed: no handler runs for a request its route's guard did not admit.
      if (facts?.route !== route) throw new ApiError('FORBIDDEN', 'this request was not admitted by its route');
      guard.takeRouteBudget(route, facts);
      // Everything the caller sends has arrived: from here the answer takes as long as the work
      // (see REQUEST_IDLE_SECONDS); the fetch handler restores the idle timeout once it is ready.
      if (!handedOver.has(c.request)) server?.timeout(c.request, 0);
      const principal = isPrincipal(facts.who) ? facts.who : null;
      const body = c.body === NO_BODY ? undefined : c.body;
      // Acknowledged only when all it wrote was written, the records of its events included.
      return acknowledgedWrites(() =>
        route.handler({
          params: c.params ?? NO_PARAMS,
          query: c.query,
          body,
          principal,
          actor: principal?.actor ?? 'system',
          get ip() {
            return facts.ip; // asked of Bun only by a handler that reads it
          },
          set: c.set,
          request: c.request,
          bearer: c.bearer,
        }),
      );
    };
    const hooks: Record<string, unknown> = {};
    if (route.params) hooks.params = forElysia(route.params);
    if (route.query) hooks.query = forElysia(route.query);
    if (route.body) hooks.body = forElysia(route.body);
    hooks.response = responsesForElysia(route.response);
    const segments = route.path.split('/');
    if (route.method === 'GET') {
      // No body to read: the guard runs before validation.
      hooks.transform = (c: Context) => admit(endpoint, c.request, keepMalformedEscapes(segments, c.params, c.request));
    } else {
      // The guard runs before the body is read, then our size-capped parser (a raw-body route
      // reads its stream itself). An empty body reaches validation as no body at all.
      hooks.parse = async (c: Context) => {
        await admit(endpoint, c.request, keepMalformedEscapes(segments, c.params, c.request));
        if (route.rawBody) return NO_BODY;
        return (await parseBody(c.request, bodyLimit, route.body)) ?? NO_BODY;
      };
      hooks.transform = (c: Context) => {
        if (c.body === NO_BODY) c.body = undefined;
      };
    }
    target.route(route.method, route.path, handler as never, hooks as never);
  }

  const fetch = app.fetch;
  /** Counts an answer (or passes on an upgrade); kept apart so a synchronous answer needs no promise. */
  const answered = (request: Request, response: Response, arrivedAt: number): Response | undefined => {
    const facts = guard.factsOf(request);
    // An upgrade to a WebSocket is a connection, not a request: Bun has taken the socket over.
    if (facts?.socket && response.status < 300 && request.headers.get('upgrade') === 'websocket') return undefined;
    if (request.method === 'OPTIONS') return response;
    // By route template; a WebSocket endpoint's refusals, like paths no route answers, are `unmatched`.
    durations.observe(facts?.route?.path ?? UNMATCHED_ROUTE, response.status, (performance.now() - arrivedAt) / 1000);
    return response;
  };
  const answer = (request: Request): Response | undefined | Promise<Response | undefined> => {
    const arrivedAt = performance.now();
    const response = fetch(request);
    return response instanceof Promise ? response.then((done) => answered(request, done, arrivedAt)) : answered(request, response, arrivedAt);
  };
  /** The keep-alive connection idles under the normal limit again once its answer is ready. */
  const sent = (request: Request, response: Response | undefined, bunServer: Server<unknown>): Response | undefined => {
    if (response === undefined) return undefined;
    bunServer.timeout(request, REQUEST_IDLE_SECONDS);
    startupFirstResponse();
    return response;
  };

  server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    maxRequestBodySize: SERVER_BODY_CEILING,
    // Never share the port with another process (SO_REUSEPORT would silently split traffic
    // between two controllers).
    reusePort: false,
    development: false,
    idleTimeout: REQUEST_IDLE_SECONDS,
    websocket: hub.handler(SOCKET_LIMITS),
    fetch(request, bunServer) {
      // HEAD is the GET route's answer without its body (Bun leaves the body out).
      const asked = request.method === 'HEAD' ? headAsGet(request, bunServer, handedOver) : request;
      const response = answer(asked);
      return response instanceof Promise ? response.then((done) => sent(request, done, bunServer)) : sent(request, response, bunServer);
    },
  });
  // Elysia's WebSocket routes upgrade on the app's server.
  app.server = server as never;
  hub.attach(server);
  const handle: ApiHandler = async (request, ip) => {
    handedOver.set(request, ip);
    const response = await answer(request);
    // Never undefined without an upgrade; the fallback only satisfies the type.
    return response ?? Response.json({ success: false, message: 'not a WebSocket endpoint here', error: 'ROUTE_NOT_FOUND' }, { status: 404 });
  };
  return { server, guard, handle };
}

/**
 * A path parameter whose percent-escapes do not decode (`100%`, `%c0%af`) is null in Elysia's
 * params: it is put back as sent, for its schema (or the handler's lookup) to judge.
 */
function keepMalformedEscapes(segments: readonly string[], params: Record<string, string>, request: Request): Record<string, string> {
  if (params === undefined) return params;
  for (const key in params) {
    if (params[key] !== null) continue;
    const index = segments.indexOf(`:${key}`);
    const sent = splitUrl(request.url).pathname.split('/');
    params[key] = index < 0 ? (sent.slice(segments.length - 1).join('/')) : (sent[index] ?? '');
  }
  return params;
}

/** A GET request standing for a HEAD one, counted under the caller's own address. */
function headAsGet(request: Request, server: Server<unknown>, handedOver: WeakMap<Request, string | undefined>): Request {
  const get = new Request(request.url, { method: 'GET', headers: request.headers, signal: request.signal });
  handedOver.set(get, server.requestIP(request)?.address);
  return get;
}

/**
 * Elysia marks the top-level object of a schema it is handed (additionalProperties): it gets a
 * copy, so the route's own schema, and the OpenAPI document generated from it, stay as declared.
 */
function forElysia(schema: TSchema): TSchema {
  return { ...schema };
}

function responsesForElysia(responses: Record<number, TSchema>): Record<number, TSchema> {
  const copy: Record<number, TSchema> = {};
  for (const status of Object.keys(responses)) copy[Number(status)] = forElysia(responses[Number(status)]!);
  return copy;
}

/** The status an answer nobody will read is counted under (nginx's "client closed request"). */
const CLIENT_GONE = 499;

/** The request's body stream failed because the client closed the connection. */
function clientWentAway(error: unknown, request: Request): boolean {
  if (!request.signal.aborted) return false;
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    if (current.name === 'AbortError') return true;
  }
  return false;
}
