import { ApiError } from '../errors';
import type { Config } from '../config/schema';
import { isPrincipal, type Access, type Authenticator, type Identification, type Verdict } from './auth';
import { DEFAULT_BODY_LIMIT, type AnyRoute, type SocketSpec } from './route';
import { RouteTable, type Match } from './route-table';
import { RateLimiter } from './rate-limit';
import { bearerOf, clientIp, splitUrl } from './request';

/** What the guard established about a request, for the body parser and the handler. */
export interface RequestFacts {
  route?: AnyRoute;
  who: Identification;
  ip: string;
}

const UNAUTHORIZED_MESSAGE = 'missing bearer token: send Authorization: Bearer <token>';

/**
 * Everything decided about a request before its body is read, in one place: which endpoint
 * it is for, who is calling, the global rate limits, the route's auth level and its body size
 * (a route's own tighter limit is spent at its handler: takeRouteBudget). Refusals are thrown
 * as ApiError; the error renderer turns them into the error body.
 */
export class RequestGuard {
  private readonly table: RouteTable;
  private readonly facts = new WeakMap<Request, RequestFacts>();
  private readonly publicLimit: RateLimiter;
  private readonly serviceLimit: RateLimiter;
  private readonly routeLimits = new Map<AnyRoute, RateLimiter>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(
    routes: readonly AnyRoute[],
    sockets: readonly SocketSpec[],
    private readonly api: Config['api'],
    private readonly auth: Authenticator,
  ) {
    this.table = new RouteTable(routes, sockets);
    this.publicLimit = new RateLimiter(api.rate_limit);
    this.serviceLimit = new RateLimiter(api.service_rate_limit);
    for (const route of routes) if (route.rateLimit) this.routeLimits.set(route, new RateLimiter(route.rateLimit.max, route.rateLimit.windowMs));
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async check(request: Request, socketAddress: string | undefined): Promise<void> {
    // CORS preflights carry no credentials and are answered by the CORS layer, which runs first
    // so that every refusal below still carries the CORS headers a browser needs to read it.
    if (request.method === 'OPTIONS') return;
    const { pathname, search } = splitUrl(request.url);
    const endpoint = this.table.match(request.method, pathname);
    const ip = clientIp(request, socketAddress, this.api.trust_forwarded_for);
    const queryToken = endpoint?.kind === 'socket' || (endpoint?.kind === 'route' && endpoint.route.queryToken === true);
    const token = bearerOf(request) ?? (queryToken ? new URLSearchParams(search).get('token') : null);
    const identified = this.auth.identify(token);
    const who = identified instanceof Promise ? await identified : identified;
    this.facts.set(request, { route: endpoint?.kind === 'route' ? endpoint.route : undefined, who, ip });

    const budget = this.budgetOf(endpoint, who);
    const taken = (budget === 'public' ? this.publicLimit : this.serviceLimit).take(budget === 'public' || budget === 'trusted' ? ip : budget.key);
    if (!taken.ok) throw tooMany(taken.retryAfterSeconds, budget === 'public' ? this.api.rate_limit : this.api.service_rate_limit);
    if (endpoint?.kind !== 'route') return; // unknown routes 404 later; sockets authenticate on open
    const route = endpoint.route;
    // The route's own, tighter limit is taken later (takeRouteBudget), once the caller is let in.
    this.enforce(route, who, endpoint.params);

    const length = Number(request.headers.get('content-length') ?? 0);
    const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    if (length > limit) throw new ApiError('PAYLOAD_TOO_LARGE', `request body of ${length} bytes exceeds the limit of ${limit} bytes`);
  }

  /**
   * Spends one request of the route's own limit (the stress routes' 5/min). Taken just before
   * the handler runs, after auth and body validation: refused callers and malformed bodies never
   * use up the budget of the admin behind the same address, and a body over the limit stays a 413.
   */
  takeRouteBudget(route: AnyRoute, ip: string): void {
    const taken = this.routeLimits.get(route)?.take(ip);
    if (taken && !taken.ok) throw tooMany(taken.retryAfterSeconds, route.rateLimit!.max);
  }

  /** The endpoint the request names, strictly (one URL per resource): what the server dispatches on. */
  match(method: string, pathname: string): Match | undefined {
    return this.table.match(method, pathname, true);
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
  private budgetOf(endpoint: Match | undefined, who: Identification): 'public' | 'trusted' | { key: string } {
    if (!isPrincipal(who)) return 'public';
    if (who.kind === 'master' || who.kind === 'service' || who.kind === 'cluster') return 'trusted';
    if (who.kind === 'node') return { key: `node:${who.node}` };
    if (!endpoint) return 'public';
    const access = endpoint.kind === 'route' ? accessOf(endpoint.route) : socketAccessOf(endpoint.socket);
    if (access.auth === 'public' || !this.auth.authorize(who, access, endpoint.params).ok) return 'public';
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
