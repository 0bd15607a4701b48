/**
 * The framework baseline: a bare Elysia app on Bun.serve with as many routes as the svc
 * controller serves (the same methods and paths, read from its OpenAPI document), each answering
 * a constant, and GET /api/health and GET /api/config answering the same JSON as bare-server.ts.
 * No schema, guard, CORS or bearer plugin: what Elysia itself costs at start and per request.
 * Compiled by lib.ts:buildBareServer() with the same options as svc, then run as a child:
 *
 *   BARE_PORT      port on 127.0.0.1 (0 = any free one; the chosen one is printed as JSON)
 *   BARE_ROUTES    JSON file of [method, path] pairs (Elysia's path syntax) to mount besides the two
 *   BARE_CONFIG    file whose content GET /api/config returns (optional)
 *   BARE_TOKEN     bearer token GET /api/config requires (optional)
 */
import { readFileSync } from 'node:fs';
import { Elysia } from 'elysia';

const startedAt = Date.now();
const version = '0.13.0';
const configBody = process.env.BARE_CONFIG ? readFileSync(process.env.BARE_CONFIG, 'utf8') : undefined;
const expectedAuth = process.env.BARE_TOKEN ? `Bearer ${process.env.BARE_TOKEN}` : undefined;
const routes = process.env.BARE_ROUTES ? (JSON.parse(readFileSync(process.env.BARE_ROUTES, 'utf8')) as [string, string][]) : [];
const json = { 'content-type': 'application/json;charset=utf-8' };

const app = new Elysia({ strictPath: true })
  .get('/api/health', () => ({ status: 'ok', version, uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000), services: 0, apiEnabled: true }))
  .get('/api/config', ({ request }) => {
    if (configBody === undefined) return new Response('{"success":false}', { status: 404, headers: json });
    if (expectedAuth !== undefined && request.headers.get('authorization') !== expectedAuth) return new Response('{"success":false}', { status: 401, headers: json });
    return new Response(configBody, { headers: json });
  });
for (const [method, path] of routes) {
  if (path === '/api/health' || path === '/api/config') continue;
  app.route(method, path, () => ({ success: true }));
}
app.listen({ hostname: '127.0.0.1', port: Number(process.env.BARE_PORT ?? 0), development: false });

console.log(JSON.stringify({ msg: 'bare listening', port: app.server!.port, routes: app.routes.length }));

const stop = (): void => {
  void app.stop(true).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
