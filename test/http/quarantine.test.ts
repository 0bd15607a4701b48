import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

/**
 * The crash-loop breaker through an in-process controller and real processes: every start path
 * stops at a quarantine (the minInstances refill with restartOnCrash = false, crash restarts, the
 * warm pool, an operator's start and restart), it outlives the controller, it is shown in
 * /api/groups, /api/status, /api/services, the doctor and the console, and only an operator
 * lifts it (the admin route or `quarantine lift`), audited with who did.
 */
const LOOP_THRESHOLD = 4;
const timing = { stopTimeoutMs: 2000, drainPollMs: 20, restart: { baseDelayMs: 10, maxDelayMs: 50, loopThreshold: LOOP_THRESHOLD, loopWindowMs: 60_000, stableAfterMs: 600_000 } };
const scaling = { tickMs: 50, upCooldownMs: 0, downCooldownMs: 60_000, warmPool: { intervalMs: 100, backoffMs: 100, maxBackoffMs: 200 } };

/** A group whose start command exits at once (sh works under any isolation). */
const crashing = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  software: 'CUSTOM',
  version: '1.21.1',
  jarName: 'server.jar',
  startCommand: ['sh', '-c', 'echo "fixture: giving up at once"; exit 3'],
  ...extra,
});

type Event = { type: string; data: Record<string, string>; actor: string };

function recorder(c: TestController) {
  const events: Event[] = [];
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data, actor: e.actor }));
  const of = (type: string, group: string) => events.filter((e) => e.type === type && (e.data.group === group || e.data.service?.startsWith(`${group}-`)));
  return { events, of };
}

const command = async (c: TestController, name: string, args: string[] = [], token?: string) => {
  const res = await c.api(`/api/commands/${name}/execute`, { method: 'POST', json: { args }, token });
  const body = await readJson(res);
  return { status: res.status, text: ((body.lines ?? []) as { text: string }[]).map((l) => l.text).join('\n'), body };
};

describe('the breaker on one controller', () => {
  let c: TestController;
  let rec: ReturnType<typeof recorder>;
  beforeAll(async () => {
    c = await startController({ timing, scaling });
    rec = recorder(c);
  });
  afterAll(() => c.stop());

  test('restartOnCrash = false: the minInstances refill of a crashing group is quarantined at the threshold, and nothing starts it any more', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: crashing('Loop', { minInstances: 1, maxInstances: 1, restartOnCrash: false }) })).status).toBe(201);
    await waitFor(() => rec.of('GROUP_QUARANTINED', 'Loop').length > 0, { what: 'Loop quarantined', timeoutMs: 20_000 });
    expect(rec.of('SERVICE_CRASHED', 'Loop')).toHaveLength(LOOP_THRESHOLD);
    expect(rec.of('SERVICE_STARTING', 'Loop')).toHaveLength(LOOP_THRESHOLD);
    expect(rec.of('GROUP_QUARANTINED', 'Loop')[0]).toMatchObject({ actor: 'system', data: { group: 'Loop', kind: 'group', reason: `crash loop: ${LOOP_THRESHOLD} crashes within 1 min`, crashes: String(LOOP_THRESHOLD), service: 'Loop-1' } });
    // Every start was the refill's (scaling), none a crash restart.
    expect(rec.of('SCALE_UP', 'Loop').length).toBeGreaterThanOrEqual(LOOP_THRESHOLD);
    const starts = rec.of('SERVICE_STARTING', 'Loop').length;
    const { kernel } = c.controller;
    for (let i = 0; i < 3; i++) {
      await kernel.scaling.tick();
      await kernel.warmPool.replenish();
    }
    expect(rec.of('SERVICE_STARTING', 'Loop').length).toBe(starts);
    expect(kernel.manager.pendingRestartsOf('Loop')).toBe(0);
  }, 30_000);

  test('shown: /api/groups (a quarantine field, null elsewhere), /api/status, /api/services, the doctor', async () => {
    await c.api('/api/groups', { method: 'POST', json: fakePaperGroup('Calm', { minInstances: 0, maxInstances: 1 }) });
    const group = await readJson(await c.api('/api/groups/Loop'));
    expect(group.quarantine).toEqual({
      reason: `crash loop: ${LOOP_THRESHOLD} crashes within 1 min`,
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      crashes: LOOP_THRESHOLD,
      lastService: 'Loop-1',
      lastExitCode: 3,
      diagnosis: expect.any(String),
      lift: '`quarantine lift Loop` in the console or `svc cli`, or DELETE /api/groups/Loop/quarantine',
    });
    const list = await readJson(await c.api('/api/groups'));
    expect(Object.fromEntries(list.groups.map((g: { name: string; quarantine: unknown }) => [g.name, g.quarantine !== null]))).toEqual({ Calm: false, Loop: true });

    const status = await readJson(await c.api('/api/status'));
    expect(Object.fromEntries(status.groups.map((g: { name: string; quarantined: boolean }) => [g.name, g.quarantined]))).toEqual({ Calm: false, Loop: true });
    const services = await readJson(await c.api('/api/services?group=Loop'));
    expect(services.services.map((s: { state: string; quarantined: boolean }) => [s.state, s.quarantined])).toEqual([['CRASHED', true]]);
    expect((await readJson(await c.api('/api/services/Loop-1'))).quarantined).toBe(true);

    const doctor = await readJson(await c.api('/api/doctor'));
    const findings = doctor.sections.find((s: { name: string }) => s.name === 'Services').findings;
    const finding = findings.find((f: { message: string }) => f.message.startsWith('group Loop is quarantined since'));
    expect(finding.level).toBe('FAIL');
    expect(finding.message).toContain(`crash loop: ${LOOP_THRESHOLD} crashes within 1 min`);
    expect(finding.message).toContain('the last crash was Loop-1 with exit code 3');
    expect(finding.hint).toContain('`logs Loop-1 --stdout`');
    expect(finding.hint).toContain('DELETE /api/groups/Loop/quarantine');
    expect(doctor.status).toBe('fail');
  });

  test('shown by the console: status, groups, quarantine list', async () => {
    const status = await command(c, 'status');
    expect(status.text).toMatch(/Loop: 0\/1 instance\(s\).*QUARANTINED/);
    expect(status.text).not.toMatch(/Calm:.*QUARANTINED/);
    expect(status.text).toContain('group Loop is quarantined since');
    const groups = await command(c, 'groups');
    expect(groups.text).toMatch(/Loop .*QUARANTINED/);
    expect(groups.text).toContain('`quarantine lift Loop`');
    const list = await command(c, 'quarantine');
    expect(list.status).toBe(200);
    expect(list.text).toContain('1 quarantined');
    expect(list.text).toMatch(/group Loop {2}since \S+ {2}crash loop: 4 crashes within 1 min; last crash: Loop-1 exit 3/);
    // Admin, like the route it stands for.
    expect((await command(c, 'quarantine', [], c.service)).status).toBe(403);
  });

  test("an operator's start is refused with GROUP_QUARANTINED saying how to lift it; the console start too", async () => {
    const res = await c.api('/api/services/Loop/start', { method: 'POST' });
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('GROUP_QUARANTINED');
    expect(body.message).toMatch(/^group Loop is quarantined since \S+ \(crash loop: 4 crashes within 1 min\); nothing starts it until an operator lifts the quarantine: `quarantine lift Loop` in the console or `svc cli`, or DELETE \/api\/groups\/Loop\/quarantine$/);
    const started = await command(c, 'start', ['Loop', '--no-wait']);
    expect(started.status).not.toBe(200);
    expect(JSON.stringify(started.body)).toContain('quarantine lift Loop');
  });

  test('the lift route: auth, validation, not found, then lifted (audited with its actor) and the refill starts the group again', async () => {
    expect((await c.api('/api/groups/Loop/quarantine', { method: 'DELETE', token: null })).status).toBe(401);
    const tenant = await c.api('/api/groups/Loop/quarantine', { method: 'DELETE', token: c.service });
    expect(tenant.status).toBe(403);
    expect((await expectErrorBody(tenant)).error).toBe('FORBIDDEN');
    const invalid = await c.api('/api/groups/bad%20name!/quarantine', { method: 'DELETE' });
    expect(invalid.status).toBe(400);
    expect((await expectErrorBody(invalid)).error).toBe('VALIDATION_FAILED');
    const missing = await c.api('/api/groups/Nope/quarantine', { method: 'DELETE' });
    expect(missing.status).toBe(404);
    expect((await expectErrorBody(missing)).error).toBe('GROUP_NOT_FOUND');
    const calm = await readJson(await c.api('/api/groups/Calm/quarantine', { method: 'DELETE' }));
    expect(calm).toEqual({ success: true, message: 'group Calm is not quarantined', lifted: false, quarantine: null });
    expect(c.controller.kernel.manager.isQuarantined('Calm')).toBe(false);

    const startsBefore = rec.of('SERVICE_STARTING', 'Loop').length;
    const crashesBefore = rec.of('SERVICE_CRASHED', 'Loop').length;
    const res = await c.api('/api/groups/Loop/quarantine', { method: 'DELETE' });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, lifted: true, quarantine: { crashes: LOOP_THRESHOLD, lastService: 'Loop-1' } });
    expect(body.message).toContain('the quarantine of group Loop');
    expect(rec.of('GROUP_QUARANTINE_LIFTED', 'Loop')).toEqual([{ type: 'GROUP_QUARANTINE_LIFTED', actor: 'api:admin', data: { group: 'Loop', kind: 'group', since: body.quarantine.since } }]);
    const audit = await readJson(await c.api('/api/audit?action=GROUP_QUARANTINE_LIFTED'));
    expect(audit.entries[0]).toMatchObject({ actor: 'api:admin', action: 'GROUP_QUARANTINE_LIFTED', target: 'Loop' });
    const tripped = await readJson(await c.api('/api/audit?action=GROUP_QUARANTINED'));
    expect(tripped.entries[0]).toMatchObject({ actor: 'system', target: 'Loop' });

    // The refill takes the group up again; the crashes before the lift are forgotten, so the
    // breaker needs a full threshold of new ones to trip again.
    await waitFor(() => rec.of('SERVICE_STARTING', 'Loop').length > startsBefore, { what: 'the refill after the lift', timeoutMs: 10_000 });
    await waitFor(() => rec.of('GROUP_QUARANTINED', 'Loop').length === 2, { what: 'quarantined again', timeoutMs: 20_000 });
    expect(rec.of('SERVICE_CRASHED', 'Loop').length - crashesBefore).toBe(LOOP_THRESHOLD);
  }, 40_000);

  test('restart-on-crash: a crash loop is quarantined and its pending restarts are called off', async () => {
    expect((await c.api('/api/groups', { method: 'POST', json: crashing('Bounce', { minInstances: 0, maxInstances: 1, restartOnCrash: true, maxRestarts: 50 }) })).status).toBe(201);
    expect((await c.api('/api/services/Bounce/start', { method: 'POST' })).status).toBe(201);
    await waitFor(() => rec.of('GROUP_QUARANTINED', 'Bounce').length > 0, { what: 'Bounce quarantined', timeoutMs: 15_000 });
    const crashes = rec.of('SERVICE_CRASHED', 'Bounce');
    expect(crashes).toHaveLength(LOOP_THRESHOLD);
    // The crash restarts carried the attempts; the one that tripped the breaker was not replaced.
    expect(crashes.map((e) => e.data.restartAttempt)).toEqual(['0', '1', '2', '3']);
    expect(c.controller.kernel.manager.pendingRestartsOf('Bounce')).toBe(0);
    expect(rec.of('SERVICE_STARTING', 'Bounce')).toHaveLength(LOOP_THRESHOLD);
  }, 20_000);

  test('the warm pool: drained when its group is quarantined, not refilled, refilled once lifted; restart refused before the stop', async () => {
    const { kernel } = c.controller;
    expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup('Warm', { minInstances: 0, maxInstances: 4, warmPoolSize: 1, restartOnCrash: false }) })).status).toBe(201);
    const pooled = () => kernel.services.poolOf('Warm').filter((s) => s.state === 'PREPARED');
    await waitFor(() => pooled().length === 1, { what: 'a warm instance', timeoutMs: 15_000 });
    // One instance keeps running; the others are started and killed until the breaker trips.
    const keeper = await readJson(await c.api('/api/services/Warm/start', { method: 'POST' }));
    await waitFor(() => kernel.services.get(keeper.service.name)?.state === 'READY', { what: 'the keeper READY', timeoutMs: 15_000 });
    for (let i = 0; i < LOOP_THRESHOLD; i++) {
      await waitFor(() => pooled().length === 1, { what: 'the pool refilled', timeoutMs: 15_000 });
      const started = await readJson(await c.api('/api/services/Warm/start', { method: 'POST' }));
      const record = kernel.services.get(started.service.name)!;
      await waitFor(() => record.state === 'READY', { what: `${record.name} READY`, timeoutMs: 15_000 });
      process.kill(record.pid!, 'SIGKILL');
      await waitFor(() => rec.of('SERVICE_CRASHED', 'Warm').length === i + 1, { what: `crash ${i + 1}` });
    }
    expect(rec.of('GROUP_QUARANTINED', 'Warm')).toHaveLength(1);
    await waitFor(() => kernel.services.poolOf('Warm').length === 0, { what: 'the pool drained', timeoutMs: 10_000 });
    await kernel.warmPool.replenish();
    expect(kernel.services.poolOf('Warm')).toHaveLength(0);

    // A restart of the running instance is refused before anything is stopped.
    const restart = await c.api(`/api/services/${keeper.service.name}/restart`, { method: 'POST' });
    expect(restart.status).toBe(409);
    expect((await expectErrorBody(restart)).error).toBe('GROUP_QUARANTINED');
    expect(kernel.services.get(keeper.service.name)?.state).toBe('READY');

    const lifted = await command(c, 'quarantine', ['lift', 'Warm']);
    expect(lifted.status).toBe(200);
    expect(lifted.text).toContain('the quarantine of group Warm');
    expect(rec.of('GROUP_QUARANTINE_LIFTED', 'Warm')[0]!.actor).toBe('api:admin');
    await waitFor(() => pooled().length === 1, { what: 'the pool refilled after the lift', timeoutMs: 15_000 });
    expect((await command(c, 'quarantine', ['lift', 'Warm'])).text).toContain('group Warm is not quarantined');
    const unknown = await command(c, 'quarantine', ['lift', 'Nope']);
    expect(unknown.status).not.toBe(200);
    expect(unknown.body.message).toContain('"Nope" is neither a group nor a dedicated service');
  }, 90_000);
});

describe('a quarantine outlives the controller', () => {
  test('quarantined, restarted on the same directory: still quarantined, nothing started; lifted by the console; dedicated lifts by the route', async () => {
    const first = await startController({ timing, scaling });
    const rec = recorder(first);
    const dir = first.dir;
    try {
      expect((await first.api('/api/groups', { method: 'POST', json: crashing('Loop', { minInstances: 1, maxInstances: 1, restartOnCrash: false }) })).status).toBe(201);
      await waitFor(() => rec.of('GROUP_QUARANTINED', 'Loop').length > 0, { what: 'Loop quarantined', timeoutMs: 20_000 });
      const before = (await readJson(await first.api('/api/groups/Loop'))).quarantine;
      const file = join(dir, 'data', 'state', 'quarantine.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      await first.stopKeepingDir();

      // A dedicated service's quarantine in the same file (as a crash loop of one leaves it).
      const kept = JSON.parse(readFileSync(file, 'utf8'));
      kept.quarantined.unshift({ name: 'Arena', kind: 'dedicated', reason: 'crash loop: 4 crashes within 1 min', crashes: 4, since: '2026-01-02T03:04:05.000Z', lastService: 'Arena', lastExitCode: 1, diagnosis: null });
      writeFileSync(file, JSON.stringify(kept));

      const second = await startController({ dir, timing, scaling });
      const again = recorder(second);
      try {
        const { kernel } = second.controller;
        await waitFor(() => second.logs.some((l) => l.includes('not started at boot') && l.includes('group Loop is quarantined since')), { what: 'the boot skipping Loop' });
        expect((await readJson(await second.api('/api/groups/Loop'))).quarantine).toEqual(before);
        for (let i = 0; i < 3; i++) await kernel.scaling.tick();
        expect(again.of('SERVICE_STARTING', 'Loop')).toEqual([]);
        expect(kernel.services.ofGroup('Loop').every((s) => s.state === 'CRASHED' && s.pid === null)).toBe(true);
        expect(second.logs.some((l) => l.includes('group Loop is quarantined since'))).toBe(true);

        // Dedicated: not found, validation, then lifted although its config is gone.
        const missing = await second.api('/api/dedicated/Nope/quarantine', { method: 'DELETE' });
        expect(missing.status).toBe(404);
        expect((await expectErrorBody(missing)).error).toBe('DEDICATED_NOT_FOUND');
        expect((await second.api('/api/dedicated/bad%20name!/quarantine', { method: 'DELETE' })).status).toBe(400);
        expect((await second.api('/api/dedicated/Arena/quarantine', { method: 'DELETE', token: second.service })).status).toBe(403);
        const arena = await readJson(await second.api('/api/dedicated/Arena/quarantine', { method: 'DELETE' }));
        expect(arena).toMatchObject({ lifted: true, quarantine: { since: '2026-01-02T03:04:05.000Z' } });
        expect(again.of('GROUP_QUARANTINE_LIFTED', 'Arena')[0]!.data).toEqual({ group: 'Arena', kind: 'dedicated', since: '2026-01-02T03:04:05.000Z' });

        // Lifted by the console command; the refill starts Loop again.
        const lifted = await command(second, 'quarantine', ['lift', 'Loop']);
        expect(lifted.status).toBe(200);
        expect(JSON.parse(readFileSync(file, 'utf8')).quarantined).toEqual([]);
        await waitFor(() => again.of('SERVICE_STARTING', 'Loop').length > 0, { what: 'Loop started after the lift', timeoutMs: 10_000 });
      } finally {
        await second.stop();
      }
    } catch (error) {
      await first.stop().catch(() => undefined);
      throw error;
    }
  }, 60_000);

  test('a damaged quarantine file is moved aside and reported by the doctor; the controller starts', async () => {
    const first = await startController({ timing, scaling });
    const file = join(first.dir, 'data', 'state', 'quarantine.json');
    await first.stopKeepingDir();
    writeFileSync(file, '{"version":1,"quarantined":[{"name":');
    const second = await startController({ dir: first.dir, timing, scaling });
    try {
      const doctor = await readJson(await second.api('/api/doctor'));
      const findings = doctor.sections.find((s: { name: string }) => s.name === 'Services').findings;
      const finding = findings.find((f: { message: string }) => f.message.includes('quarantine.json was not used'));
      expect(finding.level).toBe('WARN');
      expect(finding.message).toContain('moved to');
      expect(second.logs.some((l) => l.includes('quarantine.json was not used'))).toBe(true);
    } finally {
      await second.stop();
    }
  }, 30_000);
});

describe('the doctor reports broken group and dedicated files', () => {
  test('a group TOML (and a dedicated config) that failed to load is a FAIL naming file, line and column; a fixed file and a reload clear it', async () => {
    const first = await startController({ timing, scaling });
    const groupFile = join(first.dir, 'config', 'groups', 'Broken.toml');
    const dedicatedFile = join(first.dir, 'config', 'dedicated', 'Cracked.toml');
    await first.stopKeepingDir();
    writeFileSync(groupFile, '[group]\nsoftware = "CUSTOM"\nversion = \n');
    mkdirSync(join(first.dir, 'config', 'dedicated'), { recursive: true });
    writeFileSync(dedicatedFile, '[dedicated\n');
    const second = await startController({ dir: first.dir, timing, scaling });
    try {
      const configuration = async () => (await readJson(await second.api('/api/doctor'))).sections.find((s: { name: string }) => s.name === 'Configuration').findings as { level: string; message: string; hint: string }[];
      const findings = await configuration();
      const group = findings.find((f) => f.message.startsWith('group file skipped:'))!;
      expect(group.level).toBe('FAIL');
      expect(group.message).toMatch(new RegExp(`${groupFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:\\d+`));
      expect(group.hint).toContain('POST /api/reload');
      const dedicated = findings.find((f) => f.message.startsWith('dedicated config skipped:'))!;
      expect(dedicated.level).toBe('FAIL');
      expect(dedicated.message).toContain(dedicatedFile);

      writeFileSync(groupFile, '[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\njar_name = "server.jar"\n');
      expect((await second.api('/api/reload', { method: 'POST' })).status).toBe(200);
      expect((await configuration()).filter((f) => f.message.startsWith('group file skipped:'))).toEqual([]);
    } finally {
      await second.stop();
    }
  }, 30_000);
});
