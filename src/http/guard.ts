import { ApiError } from '../errors';
import type { Config } from '../config/schema';
import { isPrincipal, type Access, type Authenticator, type Identification, type Verdict } from '../core/auth';
import { DEFAULT_BODY_LIMIT, type AnyRoute, type SocketSpec } from './route';
import { RateLimiter } from './rate-limit';
import { bearerOf, clientIp, splitUrl } from './request';

/** What a request is for: a declared route, a WebSocket endpoint, or nothing declared (404). */
export type Endpoint = { kind: 'route'; route: AnyRoute } | { kind: 'socket'; socket: SocketSpec } | undefined;

/** What the guard established about a request, for the body parser, the handler and the metrics. */
export interface RequestFacts {
  route?: AnyRoute;
  socket?: SocketSpec;
  who: Identification;
  /** The caller's address (see clientIp), worked out at its first use. */
  readonly ip: string;
}

/**
 * Where a request's socket comes from. Asking Bun (server.requestIP) costs about as much as
 * a fifth of a bare request, so it is asked only when something needs the address: a rate
 * limit that is on, a route's own limit, a handler that reads ctx.ip.
 */
export type SocketAddress = () => string | undefined;

class AdmittedRequest implements RequestFacts {
  private address: string | undefined;

  constructor(
    readonly route: AnyRoute | undefined,
    readonly socket: SocketSpec | undefined,
    readonly who: Identification,
    private readonly request: Request,
    private readonly socketAddress: SocketAddress,
    private readonly trustForwardedFor: boolean,
  ) {}

  get ip(): string {
    return (this.address ??= clientIp(this.request, this.socketAddress(), this.trustForwardedFor));
  }
}

const UNAUTHORIZED_MESSAGE = 'missing bearer token: send Authorization: Bearer <token>';

/**
 * Everything decided about a request before its body is read, in one pass: who is calling, the
 * global rate limits, the route's auth level (its permission node, tenants and the rest, through
 * the authenticator) and its body size (a route's own tighter limit is spent at its handler:
 * takeRouteBudget). Each route's hook calls admit() with the route Elysia matched, ahead of the
 * body; WebSocket endpoints are admitted for the rate limits only (they authenticate on open);
 * requests no route answers spend the public budget (admitUnmatched). Refusals are thrown as
 * ApiError; the API's onError turns them into the error body.
 */
export class RequestGuard {
  private readonly facts = new WeakMap<Request, RequestFacts>();
  private readonly publicLimit: RateLimiter;
  private readonly serviceLimit: RateLimiter;
  private readonly routeLimits = new Map<AnyRoute, RateLimiter>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(
    routes: readonly AnyRoute[],
    private readonly api: Config['api'],
    private readonly auth: Authenticator,
  ) {
    this.publicLimit = new RateLimiter(api.rate_limit);
    this.serviceLimit = new RateLimiter(api.service_rate_limit);
    for (const route of routes) if (route.rateLimit) this.routeLimits.set(route, new RateLimiter(route.rateLimit.max, route.rateLimit.windowMs));
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  /**
   * Admits a request to `endpoint` (params: its path parameters, for a tenant's `own` reach):
   * the caller's token from the Authorization header (or `?token=` where the endpoint takes
   * one), the rate limit, then the route's level and body size. Synchronous unless the token
   * is a JWT or a session, which are checked asynchronously.
   */
  admit(endpoint: Endpoint, request: Request, socketAddress: SocketAddress, params?: Readonly<Record<string, string>>): RequestFacts | Promise<RequestFacts> {
    const queryToken = endpoint?.kind === 'socket' || (endpoint?.kind === 'route' && endpoint.route.queryToken === true);
    const token = bearerOf(request) ?? (queryToken ? new URLSearchParams(splitUrl(request.url).search).get('token') : null);
    const identified = this.auth.identify(token);
    if (identified instanceof Promise) return identified.then((who) => this.decide(endpoint, request, who, socketAddress, params));
    return this.decide(endpoint, request, identified, socketAddress, params);
  }

  private decide(endpoint: Endpoint, request: Request, who: Identification, socketAddress: SocketAddress, params: Readonly<Record<string, string>> | undefined): RequestFacts {
    const facts = new AdmittedRequest(endpoint?.kind === 'route' ? endpoint.route : undefined, endpoint?.kind === 'socket' ? endpoint.socket : undefined, who, request, socketAddress, this.api.trust_forwarded_for);
    this.facts.set(request, facts);
    const budget = this.budgetOf(endpoint, who, params);
    const limiter = budget === 'public' ? this.publicLimit : this.serviceLimit;
    if (limiter.enabled) {
      const taken = limiter.take(budget === 'public' || budget === 'trusted' ? facts.ip : budget.key);
      if (!taken.ok) throw tooMany(taken.retryAfterSeconds, budget === 'public' ? this.api.rate_limit : this.api.service_rate_limit);
    }
    if (endpoint?.kind !== 'route') return facts; // unknown routes are 404; sockets authenticate on open
    const route = endpoint.route;
    // The route's own, tighter limit is taken later (takeRouteBudget), once the caller is let in.
    this.enforce(route, who, params);

    if (route.method === 'GET') return facts; // no body is read for a GET route
    const length = Number(request.headers.get('content-length') ?? 0);
    const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    if (length > limit) throw new ApiError('PAYLOAD_TOO_LARGE', `request body of ${length} bytes exceeds the limit of ${limit} bytes`);
    return facts;
  }

  /**
   * Spends one request of the route's own limit (the stress routes' 5/min). Taken just before
   * the handler runs, after auth and body validation: refused callers and malformed bodies never
   * use up the budget of the admin behind the same address, and a body over the limit stays a 413.
   */
  takeRouteBudget(route: AnyRoute, facts: RequestFacts): void {
    const limiter = this.routeLimits.get(route);
    if (!limiter?.enabled) return;
    const taken = limiter.take(facts.ip);
    if (!taken.ok) throw tooMany(taken.retryAfterSeconds, route.rateLimit!.max);
  }

  factsOf(request: Request): RequestFacts | undefined {
    return this.facts.get(request);
  }

  /** Refuses a caller the route's level (or, for a session, its node; for a service, its reach) does not admit. */
  enforce(route: AnyRoute, who: Identification, params?: Readonly<Record<string, string>>): void {
    const verdict = this.auth.authorize(who, accessOf(route), params);
    if (!verdict.ok) throw refusalError(verdict, route.auth);
  }

  /**
   * Which rate budget a request spends. Proxies, backends and agents often share one address:
   * holders of the master, derived service and cluster tokens spend the larger service budget
   * per IP (the public budget is there to slow down callers without a valid credential). A
   * game server's own credential spends a service budget of its own, keyed by its name, so one
   * server flooding the API cannot starve the others on its machine. A dashboard session is a
   * person whose dashboard polls several routes at once: it spends the service budget, but only
   * on endpoints it may call — anything else, public routes included, costs the public budget.
   */
  private budgetOf(endpoint: Endpoint, who: Identification, params: Readonly<Record<string, string>> | undefined): 'public' | 'trusted' | { key: string } {
    if (!isPrincipal(who)) return 'public';
    if (who.kind === 'master' || who.kind === 'service' || who.kind === 'cluster') return 'trusted';
    if (who.kind === 'node') return { key: `node:${who.node}` };
    if (!endpoint) return 'public';
    const access = endpoint.kind === 'route' ? accessOf(endpoint.route) : socketAccessOf(endpoint.socket);
    if (access.auth === 'public' || !this.auth.authorize(who, access, params).ok) return 'public';
    if (who.kind === 'tenant') return { key: `service:${who.tenant!.service}` };
    if (who.kind === 'session') return 'trusted';
    // A JWT below admin: the service budget on the bulk upload routes it may call.
    return endpoint.kind === 'route' && endpoint.route.budget === 'bulk' ? 'trusted' : 'public';
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    this.publicLimit.sweep();
    this.serviceLimit.sweep();
    for (const limiter of this.routeLimits.values()) limiter.sweep();
  }
}

const accesses = new WeakMap<AnyRoute, Access>();

/** What a route asks of its callers, for the authenticator (worked out once per route). */
export function accessOf(route: AnyRoute): Access {
  let access = accesses.get(route);
  if (!access) {
    access = describeAccess(route);
    accesses.set(route, access);
  }
  return access;
}

function describeAccess(route: AnyRoute): Access {
  return {
    auth: route.auth,
    scopes: route.scopes,
    permission: route.permission,
    machineOnly: route.machineOnly,
    enrolmentOpen: route.path.startsWith('/api/auth/') || route.path.startsWith('/api/profile/'),
    reads: route.method === 'GET',
    tenants: route.tenants,
    speaksForPlayers: route.speaksForPlayers,
    enrolment: route.enrolment,
  };
}

/** What a WebSocket asks of its callers (they only read). */
export function socketAccessOf(socket: SocketSpec): Access {
  return { auth: socket.auth, permission: socket.permission, tenants: socket.tenants, reads: true };
}

/** The error body of a refused caller: what is wrong and what would be accepted. */
export function refusalError(verdict: Exclude<Verdict, { ok: true }>, level: string): ApiError {
  switch (verdict.reason) {
    case 'unauthorized':
      return new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    case 'invalid':
      return new ApiError('AUTH_FAILED', 'the bearer token is not valid (wrong, expired or malformed)');
    case 'session-expired':
      return new ApiError('AUTH_SESSION_EXPIRED', 'the dashboard session has expired: log in again');
    case 'session-revoked':
      return new ApiError('AUTH_SESSION_INVALID', 'the dashboard session was logged out: log in again');
    case 'forbidden':
      return new ApiError('FORBIDDEN', `this route needs ${level} access; the presented token does not grant it`);
    case 'machine-only':
      return new ApiError('FORBIDDEN', 'this route is for API tokens (proxies, plugins, agents); a dashboard session cannot call it');
    case 'needs-session':
      return new ApiError('FORBIDDEN', 'this route belongs to a dashboard session (log in to the dashboard); API tokens have no dashboard identity');
    case 'totp-required':
      return new ApiError('AUTH_TOTP_REQUIRED', 'admins must enrol in two-factor authentication first: POST /api/profile/totp/enroll, then /confirm', 403);
    case 'missing-node':
      return new ApiError('FORBIDDEN', `Missing permission: ${verdict.node} (this dashboard session does not hold it)`);
    case 'read-only':
      return new ApiError('FORBIDDEN', 'this route changes something: the token holds read scopes only (a write needs services:write, or the scope the route names)');
    case 'players-only':
      return new ApiError('FORBIDDEN', 'this route speaks for players (their logins, events or commands): only a proxy’s credential, the shared service token or an admin token may call it');
    case 'node-only':
      return new ApiError('FORBIDDEN', 'the cluster token only enrols a node: this route takes the node\'s own secret (svc agent enrols and keeps it in data/)');
    case 'tenant-route':
      return new ApiError('FORBIDDEN', `this route is not open to a ${verdict.tenant.role} server’s own credential (${verdict.tenant.service}); an admin token or a dashboard session with the node can call it`);
    case 'tenant-other':
      return new ApiError('FORBIDDEN', `a server’s own credential (${verdict.tenant.service}) may call this route for its own service only`);
  }
}

function tooMany(retryAfterSeconds: number, max: number): ApiError {
  return new ApiError('RATE_LIMITED', `rate limit of ${max} requests per minute exceeded; retry in ${retryAfterSeconds} s`, 429, {
    'Retry-After': String(retryAfterSeconds),
  });
}
