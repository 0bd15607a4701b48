const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, PATCH';
const ALLOWED_HEADERS = 'Authorization, Content-Type';
/** Read by the dashboard after a 429. */
const EXPOSED_HEADERS = 'Retry-After';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * Cross-origin access for browsers (the web dashboard): a request from an allowed origin gets
 * that origin echoed, with credentials allowed; an empty list allows any origin (the controller
 * warns at start). Requests without an Origin header (tools, plugins, agents) get only
 * `Vary: Origin`. Every answer carries them, errors included, so a browser can read a refusal;
 * a handler sees them in its `set.headers` and may extend them (a `Vary` of its own).
 */
export class Cors {
  private readonly origins: ReadonlySet<string> | null;

  constructor(allowedOrigins: readonly string[]) {
    this.origins = allowedOrigins.length === 0 ? null : new Set(allowedOrigins);
  }

  /**
   * The headers an answer to `request` carries: always `Vary: Origin` (the answer depends on
   * it, and caches must know), the rest only for a request with an Origin.
   */
  headersFor(request: Request): Record<string, string> {
    const origin = request.headers.get('origin');
    if (origin === null) return { vary: 'Origin' };
    const headers: Record<string, string> = {
      vary: 'Origin',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': EXPOSED_HEADERS,
    };
    if (this.origins === null || this.origins.has(origin)) headers['access-control-allow-origin'] = origin;
    return headers;
  }

  /** The answer to a preflight (OPTIONS): no body, what a browser may send and for how long. */
  preflight(request: Request): Response {
    return new Response(null, {
      status: 204,
      headers: {
        ...this.headersFor(request),
        'access-control-allow-methods': ALLOWED_METHODS,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
      },
    });
  }
}
