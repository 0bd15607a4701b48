/** A TCP port on 127.0.0.1 that nothing listens on now (for a config that needs a fixed one). */
export function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}
