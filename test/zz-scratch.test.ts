import { test } from 'bun:test';
import { startController } from './support/controller';
import { connect } from 'node:net';
function raw(port: number, req: string): Promise<string> {
  return new Promise((res, rej) => { const s = connect(port, '127.0.0.1', () => s.write(req)); let d=''; s.on('data', (c) => d += c.toString('latin1')); s.on('end', () => res(d)); s.on('error', rej); });
}
test('probe', async () => {
  const c = await startController();
  const port = c.controller.port;
  for (const t of ['/api/config/%zz', '/api/config/%', '/api/config/%ED%A0%80', '/api/config\\..', '/api/' + 'a'.repeat(4096), '/api/' + 'a'.repeat(70000), '/api/audit?' + 'a=' + 'b'.repeat(70000), '/api/health/%ff', '/api/config/%00', '/api/x y']) {
    const out = await raw(port, `GET ${t} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${c.master}\r\nConnection: close\r\n\r\n`);
    console.log(t.slice(0, 60), '=>', JSON.stringify(out.slice(0, 400)));
  }
  await c.stop();
});
