import { cors } from '@elysiajs/cors';

/** As one string: the plugin joins a list again on every request. */
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, PATCH';
const ALLOWED_HEADERS = ['Authorization', 'Content-Type'];
/** Read by the dashboard after a 429. */
const EXPOSED_HEADERS = ['Retry-After'];
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Cross-origin access for browsers (the web dashboard), with @elysiajs/cors from
 * `[api] allowed_origins`: a listed origin (compared whole) is echoed with credentials allowed;
 * an empty list allows any origin (the controller warns at start), echoed without
 * Allow-Credentials, so no site a browser happens to visit is ever handed credentials. Every
 * answer carries the headers, errors included, so a browser can read a refusal; a handler sees
 * them in its `set.headers` and may extend them (a `Vary` of its own).
 */
export function corsPlugin(allowedOrigins: readonly string[]) {
  const common = {
    methods: ALLOWED_METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  };
  if (allowedOrigins.length === 0) return cors({ ...common, origin: true, credentials: false });
  const listed = new Set(allowedOrigins);
  // A function, so an origin is allowed only when it is listed exactly (the plugin's own string
  // match also accepts the listed host behind any scheme).
  return cors({ ...common, origin: (request: Request) => listed.has(request.headers.get('origin') ?? ''), credentials: true });
}
