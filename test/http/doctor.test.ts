import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readJson, startController, type TestController } from '../support/controller';
import type { SvcModule } from '../../src/modules/module';
import { ok } from '../../src/core/doctor/model';

/** GET /api/doctor on a running controller: the sections in order, module sections after, always 200. */
const probeModule: SvcModule = {
  id: 'probe',
  name: 'Probe',
  version: '1.0.0',
  description: 'adds doctor sections',
  doctorChecks: () => [
    { name: 'Probe', run: () => [ok('the probe is happy')] },
    { name: 'Probe broken', run: () => { throw new Error('the probe check blew up'); } },
  ],
};

let c: TestController;
beforeAll(async () => {
  c = await startController({ modules: [probeModule] });
});
afterAll(() => c.stop());

describe('GET /api/doctor', () => {
  test('every section in order, modules last; a throwing module check is a FAIL, still 200', async () => {
    const res = await c.api('/api/doctor');
    expect(res.status).toBe(200);
    const report = await readJson(res);
    expect(report.sections.map((s: { name: string }) => s.name)).toEqual(['Environment', 'Configuration', 'Storage', 'Database', 'Services', 'Cluster', 'Probe', 'Probe broken']);
    expect(report.sections[3].findings).toEqual([{ level: 'OK', message: expect.stringMatching(/\/data\/svc\.db passes quick_check \(\d+\.\d MiB/), hint: null }]);
    expect(report.sections[6].findings[0].message).toBe('the probe is happy');
    expect(report.sections[7].findings[0]).toMatchObject({ level: 'FAIL', message: 'the Probe broken check itself failed: the probe check blew up' });
    expect(report.status).toBe('fail');
    expect(report.failCount).toBeGreaterThanOrEqual(1);
  });

  test('a single-node install: the cluster note is an OK finding; no level outside what the dashboard renders', async () => {
    const report = await readJson(await c.api('/api/doctor'));
    const levels = new Set<string>(report.sections.flatMap((s: { findings: { level: string }[] }) => s.findings.map((f) => f.level)));
    for (const level of levels) expect(['OK', 'WARN', 'FAIL']).toContain(level);
    expect(report.sections[5].findings).toEqual([{ level: 'OK', message: 'the cluster is not enabled: every service runs on this machine', hint: null }]);
  });

  test('admin only', async () => {
    expect((await c.api('/api/doctor', { token: c.service })).status).toBe(403);
    expect((await c.api('/api/doctor', { token: null })).status).toBe(401);
  });
});
