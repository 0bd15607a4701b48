import { test } from 'bun:test';
import { startController } from './support/controller';
test('probe', async () => {
  const c = await startController();
  const show = async (label: string, r: Response) => console.log(label, '=>', r.status, (await r.text()).slice(0, 160));
  await show('offset huge', await c.api('/api/audit?offset=99999999999999999999'));
  await show('deep prop', await c.api('/api/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"subject":' + '['.repeat(100000) + ']'.repeat(100000) + '}' }));
  for (const d of [100, 1000, 3000, 10000, 30000]) await show('deep prop ' + d, await c.api('/api/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"subject":' + '['.repeat(d) + ']'.repeat(d) + '}' }));
  for (const d of [1000, 10000, 100000]) await show('deep cfg ' + d, await c.api('/api/config', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"networkName":' + '['.repeat(d) + ']'.repeat(d) + '}' }));
  for (const d of [1000, 10000, 100000]) await show('deep extra ' + d, await c.api('/api/config', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"zzz":' + '['.repeat(d) + ']'.repeat(d) + '}' }));
  console.log(c.logs.filter((l) => l.includes('request failed')).map((l) => l.slice(0, 1500)).join('\n'));
  await c.stop();
});
