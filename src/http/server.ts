import { Elysia, type AnyElysia } from 'elysia';
import { cors } from '@elysiajs/cors';
import { ApiError, errorBody } from '../errors';
import type { Kernel } from '../kernel';
import type { Identification } from './auth';
import { DEFAULT_BODY_LIMIT, type AnyRoute, type SocketSpec } from './route';
import { RouteTable } from './route-table';
import { RateLimiter } from './rate-limit';
import { validationMessage } from './validation';

/** Per-request facts the guard established, read by the handler wrapper. */
interface RequestFacts {
  route?: AnyRoute;
  who: Identification;
  ip: string;
}

export interface HttpOptions {
  routes: readonly AnyRoute[];
  sockets: readonly SocketSpec[];
  /** Mounts the WebSocket endpoints on the app. */
  mountSockets: (app: AnyElysia) => void;
}

/** Largest body Bun itself accepts; each route's own limit is enforced below it. */
export const SERVER_BODY_CEILING = 1024 * 1024 * 1024;

const MAX_JSON_DEPTH = 32;

const UNAUTHORIZED_MESSAGE = 'missing bearer token: send Authorization: Bearer <token>';

/**
 * The Elysia root: one guard ahead of parsing (route lookup, credential, rate limit, auth
 * level, body size), one parser with a size cap, one error renderer for every non-2xx.
 */
export function createHttpApp(kernel: Kernel, options: HttpOptions): AnyElysia {
  const { config, auth, log } = kernel;
  const httpLog = log.child({ area: 'http' });
  const table = new RouteTable(options.routes, options.sockets);
  const facts = new WeakMap<Request, RequestFacts>();
  const publicLimit = new RateLimiter(config.api.rate_limit);
  const serviceLimit = new RateLimiter(config.api.service_rate_limit);
  const routeLimits = new Map<AnyRoute, RateLimiter>();
  for (const route of options.routes) if (route.rateLimit) routeLimits.set(route, new RateLimiter(route.rateLimit.max, route.rateLimit.windowMs));
  const sweeper = setInterval(() => {
    publicLimit.sweep();
    serviceLimit.sweep();
    for (const limiter of routeLimits.values()) limiter.sweep();
  }, 60_000);
  sweeper.unref();

  const origins = config.api.allowed_origins;
  const app = new Elysia({ websocket: { maxPayloadLength: 64 * 1024, idleTimeout: 120, sendPings: false } })
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
    .onRequest(async ({ request, server }) => {
      if (request.method === 'OPTIONS') return;
      const { pathname, search } = splitUrl(request.url);
      const endpoint = table.match(request.method, pathname);
      const ip = clientIp(request, server?.requestIP(request)?.address, config.api.trust_forwarded_for);
      const token = bearerOf(request) ?? (endpoint?.kind === 'socket' ? new URLSearchParams(search).get('token') : null);
      const identified = auth.identify(token);
      const who = identified instanceof Promise ? await identified : identified;
      facts.set(request, { route: endpoint?.kind === 'route' ? endpoint.route : undefined, who, ip });

      // Proxies, backends and agents often share one address: they get their own budget.
      const trusted = who !== null && who !== 'invalid' && (who.kind === 'service' || who.kind === 'cluster');
      const budget = (trusted ? serviceLimit : publicLimit).take(ip);
      if (!budget.ok) throw tooMany(budget.retryAfterSeconds, trusted ? config.api.service_rate_limit : config.api.rate_limit);
      if (endpoint?.kind !== 'route') return; // unknown routes 404 later; sockets authenticate on open
      const route = endpoint.route;
      const routeLimit = routeLimits.get(route)?.take(ip);
      if (routeLimit && !routeLimit.ok) throw tooMany(routeLimit.retryAfterSeconds, route.rateLimit!.max);

      enforce(route, who);

      const length = Number(request.headers.get('content-length') ?? 0);
      const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
      if (length > limit) throw new ApiError('PAYLOAD_TOO_LARGE', `request body of ${length} bytes exceeds the limit of ${limit} bytes`);
    })
    .onParse(async ({ request }) => {
      const route = facts.get(request)?.route;
      const limit = route?.bodyLimit ?? DEFAULT_BODY_LIMIT;
      const text = await readLimited(request, limit);
      if (text.length === 0) return undefined;
      const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type === 'application/json' || type.endsWith('+json') || type === '') {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (error) {
          if (error instanceof RangeError) throw new ApiError('VALIDATION_FAILED', `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
          throw new ApiError('VALIDATION_FAILED', `request body is not valid JSON: ${(error as Error).message}`);
        }
        // Deep nesting buys an attacker quadratic work in validation; no API body nests this far.
        if (nestingExceeds(value, MAX_JSON_DEPTH)) {
          throw new ApiError('VALIDATION_FAILED', `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
        }
        // Bodies are JSON objects; say so plainly rather than letting a bare null read as "no body".
        if ((typeof value !== 'object' || value === null || Array.isArray(value)) && route?.body?.type === 'object') {
          throw new ApiError('VALIDATION_FAILED', `request body must be a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)?.slice(0, 40)}`);
        }
        return value;
      }
      if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
      if (type.startsWith('text/')) return text;
      throw new ApiError('VALIDATION_FAILED', `unsupported Content-Type ${type}: send application/json`);
    })
    .onError(({ code, error: thrown, request, set }) => {
      let error: unknown = thrown;
      // A throw inside the body parser reaches here wrapped in the framework's ParseError.
      if (code === 'PARSE' && (error as Error).cause instanceof ApiError) error = (error as Error).cause as ApiError;
      if (error instanceof ApiError) {
        set.status = error.status;
        Object.assign(set.headers, error.headers);
        return errorBody(error.errorCode, error.message);
      }
      if (code === 'VALIDATION') {
        if ((error as { type?: string }).type === 'response') return internal(error, request, set);
        set.status = 400;
        return errorBody('VALIDATION_FAILED', validationMessage(error as Parameters<typeof validationMessage>[0]));
      }
      if (code === 'PARSE') {
        set.status = 400;
        return errorBody('VALIDATION_FAILED', 'request body could not be parsed; send JSON with Content-Type: application/json');
      }
      if (code === 'NOT_FOUND') {
        set.status = 404;
        return errorBody('ROUTE_NOT_FOUND', `no route ${request.method} ${splitUrl(request.url).pathname}`);
      }
      if (code === 'INVALID_COOKIE_SIGNATURE' || code === 'INVALID_FILE_TYPE') {
        set.status = 400;
        return errorBody('VALIDATION_FAILED', String((error as Error).message));
      }
      return internal(error, request, set);
    });

  function internal(error: unknown, request: Request, set: { status?: number | string }) {
    const ref = crypto.randomUUID().slice(0, 8);
    const path = splitUrl(request.url).pathname;
    httpLog.error({ err: error, ref, method: request.method, path }, 'request failed');
    // Subscribers learn that something broke and where; the details stay in the log.
    kernel.bus.publish('API_ERROR', { error: `INTERNAL_ERROR ref ${ref}: ${request.method} ${path}` });
    set.status = 500;
    return errorBody('INTERNAL_ERROR', `internal error (ref ${ref}); the controller log has the details`);
  }

  /** Refuses a caller the route's level does not admit. */
  function enforce(route: AnyRoute, who: Identification): void {
    const verdict = auth.authorize(who, route.auth, route.scopes);
    if (verdict === 'unauthorized') throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    if (verdict === 'invalid') throw new ApiError('AUTH_FAILED', 'the bearer token is not valid (wrong, expired or malformed)');
    if (verdict === 'forbidden') throw new ApiError('FORBIDDEN', `this route needs ${route.auth} access; the presented token does not grant it`);
  }

  for (const route of options.routes) mountRoute(app, route, facts, enforce);
  options.mountSockets(app);
  return app;
}

function mountRoute(
  app: AnyElysia,
  route: AnyRoute,
  facts: WeakMap<Request, RequestFacts>,
  enforce: (route: AnyRoute, who: Identification) => void,
): void {
  const hooks: Record<string, unknown> = { response: route.response, detail: { summary: route.summary, tags: [route.tag] } };
  if (route.params) hooks.params = route.params;
  if (route.query) hooks.query = route.query;
  if (route.body) hooks.body = route.body;
  app.route(
    route.method,
    route.path,
    ((c: { params: unknown; query: unknown; body: unknown; set: { status?: number | string; headers: Record<string, string | number> }; request: Request }) => {
      const f = facts.get(c.request);
      // Fail closed: the framework may reach this handler by a spelling the guard's table did
      // not resolve to this route (HEAD, a trailing slash, percent-encoding); check again here.
      if (f?.route !== route) enforce(route, f?.who ?? null);
      const principal = f && f.who !== 'invalid' ? f.who : null;
      return route.handler({
        params: c.params,
        query: c.query,
        body: c.body,
        principal,
        actor: principal?.actor ?? 'system',
        ip: f?.ip ?? 'unknown',
        set: c.set,
        request: c.request,
      });
    }) as never,
    hooks as never,
  );
}

function tooMany(retryAfterSeconds: number, max: number): ApiError {
  return new ApiError('RATE_LIMITED', `rate limit of ${max} requests per minute exceeded; retry in ${retryAfterSeconds} s`, 429, {
    'Retry-After': String(retryAfterSeconds),
  });
}

function bearerOf(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (!header) return null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1]!.trim() : '';
}

/**
 * The client address for rate limiting. Behind a trusted reverse proxy the right-most
 * X-Forwarded-For entry is the one that proxy saw; entries to its left are client-supplied.
 */
export function clientIp(request: Request, socketAddress: string | undefined, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const forwarded = request.headers.get('x-forwarded-for');
    const last = forwarded?.split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last) return last;
  }
  return socketAddress ?? 'unknown';
}

/** Reads a request body as text, failing with 413 as soon as it passes the limit. */
async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** True when a parsed JSON value nests arrays/objects deeper than `limit` (checked without recursion). */
export function nestingExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Path and query of a request URL without building a URL object (hot path). The path stays
 * percent-encoded, as the router sees it.
 */
export function splitUrl(url: string): { pathname: string; search: string } {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return { pathname: '/', search: '' };
  const query = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  const end = query >= 0 ? query : hash >= 0 ? hash : url.length;
  return { pathname: url.slice(start, end), search: query >= 0 ? url.slice(query + 1, hash > query ? hash : url.length) : '' };
}
