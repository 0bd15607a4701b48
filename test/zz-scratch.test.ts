import { test } from 'bun:test';
import { startController } from './support/controller';
import { connect } from 'node:net';
function raw(port: number, req: string): Promise<string> {
  return new Promise((res, rej) => { const s = connect(port, '127.0.0.1', () => s.write(req)); let d=''; s.on('data', (c) => d += c.toString('latin1')); s.on('end', () => res(d)); s.on('error', rej); });
}
test('probe', async () => {
  const c = await startController();
  let r = await c.api('/api/config', { token: null, method: 'HEAD' });
  console.log('HEAD', r.status, [...r.headers]);
  r = await c.api('/api/config', { token: null, method: 'OPTIONS' });
  console.log('OPTIONS', r.status, await r.text());
  const port = c.controller.port;
  for (const t of ['/api/config', '/api/health/../config', '/api/%2e%2e/api/config', '/api/config/.', '/api/./config', 'http://127.0.0.1/api/config', '/api/config#x', '/api/config/%2e', '/api/config%00', '/api/config/x/..']) {
    const out = await raw(port, `GET ${t} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    console.log(t, '=>', out.split('\r\n')[0], out.slice(out.indexOf('\r\n\r\n')+4, out.indexOf('\r\n\r\n')+120));
  }
  const out = await raw(port, `get /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  console.log('lower get', out.slice(0, 300));
  await c.stop();
});
