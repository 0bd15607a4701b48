import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startController, waitFor, type TestController } from '../support/controller';

/**
 * Deploy-on-stop end to end: a real fake-paper instance of a group with deployOnStop, files
 * written into its work dir while it runs (as a server does), then a stop: new and changed
 * files reach the group's first template, excluded ones do not, and SERVICE_DEPLOYED says how
 * many. A deploy that cannot be done leaves the template as it was and warns.
 */
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
let c: TestController;
const events: { type: string; data: Record<string, string> }[] = [];

const group = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  software: 'CUSTOM',
  version: '1.21.1',
  jarName: 'server.jar',
  startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'],
  minInstances: 0,
  maxInstances: 1,
  deployOnStop: true,
  ...extra,
});

async function runAndStop(name: string, write: (workDir: string) => void): Promise<void> {
  expect((await c.api(`/api/services/${name}/start`, { method: 'POST' })).status).toBe(201);
  const service = `${name}-1`;
  await waitFor(() => c.controller.kernel.services.get(service)?.state === 'READY', { what: `${service} READY`, timeoutMs: 10_000 });
  write(c.controller.kernel.services.get(service)!.workDir);
  expect((await c.api(`/api/services/${service}/stop`, { method: 'POST' })).status).toBe(200);
  await waitFor(() => events.some((e) => e.type === 'SERVICE_STOPPED' && e.data.service === service), { what: `${service} stopped` });
}

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000 }, scaling: { tickMs: 60_000 } });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
});
afterAll(() => c.stop());

describe('deploy-on stop (real processes)', () => {
  test('new and changed files go back into the first template; excludes and unchanged files do not', async () => {
    const template = join(c.controller.kernel.paths.templates, 'Survival');
    mkdirSync(join(template, 'plugins'), { recursive: true });
    writeFileSync(join(template, 'plugins', 'config.yml'), 'difficulty: easy\n');
    writeFileSync(join(template, 'untouched.txt'), 'same\n');
    expect((await c.api('/api/groups', { method: 'POST', json: group('Survival', { deployExcludes: ['logs', '*.tmp', 'cache'] }) })).status).toBe(201);
    await runAndStop('Survival', (workDir) => {
      mkdirSync(join(workDir, 'world'), { recursive: true });
      writeFileSync(join(workDir, 'world', 'level.dat'), 'a new world');
      writeFileSync(join(workDir, 'plugins', 'config.yml'), 'difficulty: hard\n');
      writeFileSync(join(workDir, 'scratch.tmp'), 'never deployed');
      mkdirSync(join(workDir, 'cache'), { recursive: true });
      writeFileSync(join(workDir, 'cache', 'blob'), 'never deployed');
    });
    const deployed = events.find((e) => e.type === 'SERVICE_DEPLOYED');
    expect(deployed?.data).toMatchObject({ service: 'Survival-1', group: 'Survival' });
    expect(readFileSync(join(template, 'world', 'level.dat'), 'utf8')).toBe('a new world');
    expect(readFileSync(join(template, 'plugins', 'config.yml'), 'utf8')).toBe('difficulty: hard\n');
    expect(readFileSync(join(template, 'untouched.txt'), 'utf8')).toBe('same\n');
    for (const excluded of ['scratch.tmp', 'cache', 'logs', '.svc']) expect(existsSync(join(template, excluded))).toBe(false);
    // SERVICE_DEPLOYED comes before SERVICE_STOPPED (the reference order: deploy, then STOPPED).
    const order = events.filter((e) => e.data.service === 'Survival-1').map((e) => e.type);
    expect(order.indexOf('SERVICE_DEPLOYED')).toBeLessThan(order.indexOf('SERVICE_STOPPED'));
    // The count covers what changed: level.dat, config.yml and the files the instance wrote at boot
    // (eula.txt, server.properties patches) — never the excluded ones.
    expect(Number(deployed!.data.filesChanged)).toBeGreaterThanOrEqual(2);
  });

  test('a deploy that cannot be done leaves the template untouched and warns', async () => {
    const template = join(c.controller.kernel.paths.templates, 'Broken');
    // The template holds a folder where the instance will write a file of the same name.
    mkdirSync(join(template, 'clash'), { recursive: true });
    writeFileSync(join(template, 'clash', 'inside.txt'), 'kept');
    writeFileSync(join(template, 'keep.txt'), 'original');
    expect((await c.api('/api/groups', { method: 'POST', json: group('Broken') })).status).toBe(201);
    await runAndStop('Broken', (workDir) => {
      writeFileSync(join(workDir, 'keep.txt'), 'changed');
      // provisioning copied the folder; the server replaces it with a file
      const clash = join(workDir, 'clash');
      rmSync(clash, { recursive: true });
      writeFileSync(clash, 'now a file');
    });
    expect(events.some((e) => e.type === 'SERVICE_DEPLOYED' && e.data.service === 'Broken-1')).toBe(false);
    const warning = events.find((e) => e.type === 'API_WARNING' && e.data.message?.includes('Broken-1'));
    expect(warning?.data.message).toContain('the template is unchanged');
    expect(readFileSync(join(template, 'keep.txt'), 'utf8')).toBe('original');
    expect(readFileSync(join(template, 'clash', 'inside.txt'), 'utf8')).toBe('kept');
  });
});
