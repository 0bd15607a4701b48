/**
 * The runtime baseline of the benchmarks: a bare Bun.serve answering the same JSON as the svc
 * controller, with nothing else (no framework, config, storage, logging or middleware).
 * Compiled by lib.ts:buildBareServer() with the same options as svc, then run as a child:
 *
 *   BARE_PORT      port on 127.0.0.1 (0 = any free one; the chosen one is printed as JSON)
 *   BARE_CONFIG    file whose content GET /api/config returns (optional)
 *   BARE_TOKEN     bearer token GET /api/config requires (optional)
 *
 * GET /api/health builds the same object as the controller's handler on every request.
 */
import { readFileSync } from 'node:fs';

const startedAt = Date.now();
const version = '0.13.0';
const configBody = process.env.BARE_CONFIG ? readFileSync(process.env.BARE_CONFIG, 'utf8') : undefined;
const expectedAuth = process.env.BARE_TOKEN ? `Bearer ${process.env.BARE_TOKEN}` : undefined;
const json = { 'content-type': 'application/json;charset=utf-8' };

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.BARE_PORT ?? 0),
  routes: {
    '/api/health': () =>
      Response.json({ status: 'ok', version, uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000), services: 0, apiEnabled: true }),
    '/api/config': (request) => {
      if (configBody === undefined) return new Response('{"success":false}', { status: 404, headers: json });
      if (expectedAuth !== undefined && request.headers.get('authorization') !== expectedAuth) {
        return new Response('{"success":false}', { status: 401, headers: json });
      }
      return new Response(configBody, { headers: json });
    },
  },
  fetch: () => new Response('{"success":false}', { status: 404, headers: json }),
});

console.log(JSON.stringify({ msg: 'bare listening', port: server.port }));

const stop = (): void => {
  void server.stop(true).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
