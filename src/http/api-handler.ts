/*
 * What a listener that hands requests to the API shares with it (the cluster server's TLS port
 * serves the agents' data routes through the API's dispatch). Apart from server.ts, which
 * builds the API from the kernel, so such a listener never imports the kernel that holds it.
 */

/** Largest body Bun itself accepts; each route's own limit is enforced below it. */
export const SERVER_BODY_CEILING = 1024 * 1024 * 1024;

/**
 * The API's own dispatch for a request that arrived elsewhere (the cluster server's TLS port
 * hands it the agents' data routes): the same guard, schemas, handlers, error bodies and
 * request metrics; never a WebSocket upgrade. `ip` is the caller's socket address.
 */
export type ApiHandler = (request: Request, ip: string | undefined) => Promise<Response>;
