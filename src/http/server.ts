import type { Server } from 'bun';
import { startupFirstResponse } from '../startup-trace';
import { ApiError } from '../errors';
import type { Kernel } from '../kernel';
import type { SocketData, SocketHub } from '../ws/socket-hub';
import { parseBody } from './body';
import { Cors } from './cors';
import { RequestGuard } from './guard';
import { isPrincipal } from './auth';
import { errorRenderer } from './render-error';
import { acknowledgedWrites } from '../storage/write-scope';
import { parseQuery, splitUrl } from './request';
import { RequestMetrics, UNMATCHED_ROUTE } from './request-metrics';
import { statusOf, toResponse, withHeaders, type ResponseSet } from './respond';
import { DEFAULT_BODY_LIMIT, type AnyRoute, type SocketSpec } from './route';
import { validatePart, validateResponse } from './route-validator';

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
 * there is no idle timeout at all (see run()): its answer comes when its work is done, however
 * long the work's own bounds allow (a stop: the drain, `stop`, 30 s, the kill and its 10 s),
 * so every answer the spec gives reaches its caller, a 409 SERVICE_STOP_FAILED included.
 */
export const REQUEST_IDLE_SECONDS = 10;

/** Largest body Bun itself accepts; each route's own limit is enforced below it. */
export const SERVER_BODY_CEILING = 1024 * 1024 * 1024;

/** Methods whose requests carry no body to read. */
const BODILESS = new Set(['GET', 'HEAD']);

/**
 * The API's own dispatch for a request that arrived elsewhere (the cluster server's TLS port
 * hands it the agents' data routes): the same guard, schemas, handlers, error bodies and
 * request metrics; never a WebSocket upgrade. `ip` is the caller's socket address.
 */
export type ApiHandler = (request: Request, ip: string | undefined) => Promise<Response>;

/**
 * The API server, straight on Bun.serve: CORS, the guard ahead of parsing (endpoint, caller,
 * rate limits, auth level, body size), the strict route match, one size-capped body parser,
 * validation of parameters, query and body against the route's schemas (each compiled on first
 * use, so nothing is built per route at start), the handler, its answer checked against the
 * route's response schema, and one error renderer for every non-2xx. Every answered request
 * (CORS preflights and WebSocket upgrades aside) is timed into
 * `svc_http_request_duration_seconds` by its route template.
 */
export function createHttpServer(kernel: Kernel, options: HttpOptions): { server: Server<SocketData>; guard: RequestGuard; handle: ApiHandler } {
  const { config, auth, log, bus } = kernel;
  const guard = new RequestGuard(options.routes, options.sockets, config.api, auth);
  const cors = new Cors(config.api.allowed_origins);
  const durations = new RequestMetrics(kernel.metrics);
  const renderError = errorRenderer(log.child({ area: 'http' }), bus, kernel.dir);
  const { hub } = options;
  const httpLog = log.child({ area: 'http' });

  /** `server` is null for a request handed over from another listener (no upgrade there). */
  async function answer(request: Request, ip: string | undefined, server: Server<SocketData> | null, corsHeaders: Record<string, string>): Promise<{ response: Response | undefined; route: string }> {
    const { pathname, search } = splitUrl(request.url);
    let route: AnyRoute | undefined;
    try {
      await guard.check(request, ip);
      const match = guard.match(request.method, pathname);
      if (match?.kind === 'socket') {
        const upgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
        if (upgrade && server && hub.upgrade(server, request, match.socket.path, match.params, parseQuery(search))) return { response: undefined, route: match.socket.path };
        throw new ApiError('VALIDATION_FAILED', `${match.socket.path} is a WebSocket endpoint: connect with Upgrade: websocket`, 426, { Upgrade: 'websocket' });
      }
      if (!match) throw new ApiError('ROUTE_NOT_FOUND', `no route ${request.method} ${pathname}`);
      route = match.route;
      return { response: await run(route, match.params, search, request, corsHeaders, server), route: route.path };
    } catch (error) {
      // The caller hung up before its body was read (an upload cut short): nobody to answer and
      // nothing broken here, so neither an ERROR nor an API_ERROR.
      if (clientWentAway(error, request)) {
        httpLog.info({ method: request.method, path: pathname }, 'the client went away before its request body was read');
        return { response: new Response(null, { status: CLIENT_GONE }), route: route?.path ?? UNMATCHED_ROUTE };
      }
      const failed = renderError(error, request);
      const notFound = error instanceof ApiError && error.errorCode === 'ROUTE_NOT_FOUND';
      // A refusal before the strict match still counts under the route the guard recognised.
      const label = route?.path ?? (notFound ? undefined : guard.factsOf(request)?.route?.path);
      return { response: Response.json(failed.body, { status: failed.status, headers: failed.headers }), route: label ?? UNMATCHED_ROUTE };
    }
  }

  async function run(route: AnyRoute, rawParams: Record<string, string>, search: string, request: Request, corsHeaders: Record<string, string>, server: Server<SocketData> | null): Promise<Response> {
    const facts = guard.factsOf(request);
    // Fail closed: the strict match may name a route the guard's lenient table resolved
    // differently (it never should); check this route's level again.
    if (facts?.route !== route) guard.enforce(route, facts?.who ?? null, rawParams);
    let body: unknown;
    if (!BODILESS.has(request.method) && !route.rawBody) body = await parseBody(request, route.bodyLimit ?? DEFAULT_BODY_LIMIT, route.body);
    const params = route.params ? validatePart('params', route.params, rawParams, true) : rawParams;
    const rawQuery = parseQuery(search, listKeysOf(route));
    const query = route.query ? validatePart('query', route.query, rawQuery, true) : rawQuery;
    if (route.body) body = validatePart('body', route.body, body, false);
    guard.takeRouteBudget(route, facts?.ip ?? 'unknown');
    // Everything the caller sends has arrived: from here the answer takes as long as the work
    // (see REQUEST_IDLE_SECONDS); fetch() restores the idle timeout once the answer is ready.
    server?.timeout(request, 0);
    const principal = facts && isPrincipal(facts.who) ? facts.who : null;
    const set: ResponseSet = { headers: { ...corsHeaders } };
    // Acknowledged only when all it wrote was written, the records of its events included.
    const value = await acknowledgedWrites(() => route.handler({ params, query, body, principal, actor: principal?.actor ?? 'system', ip: facts?.ip ?? 'unknown', set, request }));
    if (value instanceof Response) return toResponse(value, set);
    return toResponse(validateResponse(route, statusOf(set), value), set);
  }

  const server = Bun.serve<SocketData>({
    hostname: options.hostname,
    port: options.port,
    maxRequestBodySize: SERVER_BODY_CEILING,
    // Never share the port with another process (SO_REUSEPORT would silently split traffic
    // between two controllers).
    reusePort: false,
    development: false,
    idleTimeout: REQUEST_IDLE_SECONDS,
    websocket: hub.handler(SOCKET_LIMITS),
    async fetch(request, server) {
      if (request.method === 'OPTIONS') return cors.preflight(request);
      const arrivedAt = performance.now();
      const corsHeaders = cors.headersFor(request);
      const answered = await answer(request, server.requestIP(request)?.address, server, corsHeaders);
      if (answered.response === undefined) return undefined;
      server.timeout(request, REQUEST_IDLE_SECONDS); // the keep-alive connection idles under the normal limit again
      const response = withHeaders(answered.response, corsHeaders);
      const route = answered.route;
      durations.observe(route, response.status, (performance.now() - arrivedAt) / 1000);
      startupFirstResponse();
      return response;
    },
  });
  hub.attach(server);
  const handle: ApiHandler = async (request, ip) => {
    const arrivedAt = performance.now();
    const answered = await answer(request, ip, null, {});
    // Never undefined without a server to upgrade on; the fallback only satisfies the type.
    const response = answered.response ?? Response.json({ success: false, message: 'not a WebSocket endpoint here', error: 'ROUTE_NOT_FOUND' }, { status: 404 });
    durations.observe(answered.route, response.status, (performance.now() - arrivedAt) / 1000);
    return response;
  };
  return { server, guard, handle };
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

const listKeys = new WeakMap<AnyRoute, ReadonlySet<string>>();

/** The query keys a route takes as lists (a repeated key gives every value). */
function listKeysOf(route: AnyRoute): ReadonlySet<string> | undefined {
  if (!route.query) return undefined;
  let keys = listKeys.get(route);
  if (!keys) {
    const properties = (route.query as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
    keys = new Set(Object.keys(properties).filter((key) => properties[key]!.type === 'array'));
    listKeys.set(route, keys);
  }
  return keys;
}
