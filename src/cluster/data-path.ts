import type { ApiHandler } from '../http/api-handler';

/**
 * The agents' data routes, served on the cluster server's TLS port as well as on the API port,
 * so templates and state reach an agent over the certificate it pinned (and nothing else):
 *
 *   GET  /api/templates/:name/download, /api/templates/:name/hash
 *   GET  /api/services/:name/state/manifest, /api/services/:name/state/file/*
 *   POST /api/services/:name/state/sync
 *
 * The cluster server hands these paths to the API's own dispatch (guard, auth, schemas, error
 * bodies unchanged); every other path there stays a 404. Only the shape of the path is matched
 * here: the route table decides the rest (methods, names, traversal).
 */
const DATA_PATHS = [/^\/api\/templates\/[^/]+\/(download|hash)$/, /^\/api\/services\/[^/]+\/state\/(manifest|sync|file\/.+)$/];

export function isAgentDataPath(pathname: string): boolean {
  return DATA_PATHS.some((pattern) => pattern.test(pathname));
}

/** Hands a data request to the API; 503 with the error body while the API is not listening (the cluster starts first). */
export function serveDataPath(request: Request, ip: string | undefined, api: ApiHandler | undefined): Promise<Response> | Response {
  // Agents reach this port directly (a proxy that ended TLS would break their pin): a forwarded
  // address here is only the caller's claim, never its address for the rate limits.
  request.headers.delete('x-forwarded-for');
  if (api) return api(request, ip);
  return Response.json(
    { success: false, message: "the controller's API is not serving yet (it starts after the cluster server, and [api] enabled = false never starts it); retry shortly", error: 'SERVICE_UNAVAILABLE' },
    { status: 503, headers: { 'retry-after': '1' } },
  );
}
