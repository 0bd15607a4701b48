import type { Static, TSchema } from '@sinclair/typebox';
import type { Actor } from '../events/catalogue';
import type { AuthLevel, Principal, Scope, TenantReach } from '../core/auth';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type In<S> = S extends TSchema ? Static<S> : undefined;

/** What a handler sees: validated values and the caller, never the server's request context. */
export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The authenticated caller; null on public routes called without a token. */
  principal: Principal | null;
  /** Attribution for events and the audit log. */
  actor: Actor;
  ip: string;
  set: { status?: number | string; headers: Record<string, string | number> };
  request: Request;
  /**
   * The bearer token of the Authorization header, as @elysiajs/bearer reads it (never one from
   * the query string or the body); the guard has already identified the caller from it.
   */
  bearer?: string;
}

/** What every route declares besides its input schemas and handler. */
interface RouteMeta {
  method: HttpMethod;
  /** `/api/groups/:name` (a named segment, percent-decoded), `*` for the rest of the path (as sent). */
  path: string;
  auth: AuthLevel;
  /**
   * The permission node a dashboard session needs here (`svc.dashboard.players.view`); API
   * tokens pass on their auth level alone. A session holding `svc.dashboard.admin` or `*`
   * passes every node. A non-public route without one admits only admin sessions (fail closed).
   * Listed in the OpenAPI document as `x-svc-permission`.
   */
  permission?: string;
  /**
   * Only machines (API tokens) may call this route: a dashboard session is refused whatever
   * nodes it holds. For routes that act on behalf of any player or feed the controller's
   * picture of the network (login-code minting, proxy events, command execution for a
   * `caller`, plugin look-ups): a browser session has no business there (`x-svc-machine-only`).
   */
  machineOnly?: true;
  /**
   * Which per-service credentials (a game server's own `SVC_API_TOKEN`, see core/tenancy) may
   * call this service-level route, by role: `any` for every target, `own` only for the calling
   * service's own `:name`. Absent: no service credential passes. The list follows what the
   * reference plugins call (REFERENCE-MODULES §10); `x-svc-tenants` in the OpenAPI document.
   */
  tenants?: TenantReach;
  /**
   * The route asserts what players do or mints their logins (proxy events, login codes, a
   * command for a `caller`): only callers trusted to speak for players pass — a proxy's own
   * credential, the shared derived token, the master token and admin. Backends' credentials,
   * scoped JWTs and dashboard sessions are refused (`x-svc-speaks-for-players`).
   */
  speaksForPlayers?: true;
  /**
   * A cluster route the cluster token itself opens (`x-svc-enrolment`): the bootstrap an agent
   * reads before it has enrolled. Every other cluster route takes an enrolled node's own secret
   * (the cluster token only enrols a node).
   */
  enrolment?: true;
  /** JWT scopes that open this route beyond what its level implies (e.g. `config:read`). */
  scopes?: readonly Scope[];
  summary: string;
  tag: string;
  /** Response schemas by status; the OpenAPI document and tests rely on them. */
  response: Record<number, TSchema>;
  /** Largest accepted request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /**
   * Also accept the token as `?token=` (legacy cluster callers: template download and state
   * sync). The header wins when both are present.
   */
  queryToken?: boolean;
  /**
   * The handler reads `request.body` itself as a stream (large uploads: state sync); the body
   * parser leaves it alone, and the handler enforces `bodyLimit` on what it reads (the guard
   * still refuses a Content-Length over it). Its content type is listed in the OpenAPI document.
   */
  rawBody?: { contentType: string };
  /**
   * `bulk`: a transfer split over many requests (chunked uploads). Authenticated callers spend
   * the larger service budget here instead of the public 120/min, which a 1 GB upload in 4 MB
   * chunks would exceed on its own; unauthenticated requests still count as public.
   */
  budget?: 'bulk';
  /** A tighter limit for this route, per client IP, on top of the global one. */
  rateLimit?: { max: number; windowMs: number };
}

/**
 * Schemas: query and path parameters use http/t.ts's `t` (its numbers and booleans decode the
 * strings a URL carries); bodies use exact JSON types (plain TypeBox `Type` for numbers).
 */
export interface RouteSpec<P extends TSchema | undefined, Q extends TSchema | undefined, B extends TSchema | undefined> extends RouteMeta {
  params?: P;
  query?: Q;
  body?: B;
  handler: (ctx: RouteContext<In<P>, In<Q>, In<B>>) => unknown;
}

/** A declared route with its types erased, as the kernel stores it. */
export interface AnyRoute extends RouteMeta {
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  handler: (ctx: RouteContext<unknown, unknown, unknown>) => unknown;
}

/** Declares a route; the handler's params/query/body types come from the schemas. */
export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(spec: RouteSpec<P, Q, B>): AnyRoute {
  return spec as unknown as AnyRoute;
}

/** A WebSocket endpoint, listed beside routes so auth and rate limits know it. */
export interface SocketSpec {
  path: string;
  auth: AuthLevel;
  summary: string;
  /** The node a dashboard session (or its `wt_` ticket) needs to open it; as for routes. */
  permission?: string;
  /** Which per-service credentials may open it; as for routes. */
  tenants?: TenantReach;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
