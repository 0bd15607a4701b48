/**
 * PUT /api/scaling/schedules/{group}: a schedule saved through the API is the group's file
 * (rewritten with its comments, read back exactly as `scaling reload` reads it) and in force at
 * once: a rule covering now raises the effective minimum and the autoscaler starts what it asks
 * for. What the file reader refuses is refused in its words and the file stays; only the
 * operator (or a session holding svc.dashboard.scaling.manage) may save; the save is audited.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { loginAs, testPlayer } from '../support/dashboard-login';

let c: TestController;
const WEEK = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const file = (group: string) => join(c.dir, 'config', 'modules', 'scaling', `${group}.toml`);

/** A rule open all day, every day (00:00 to 00:00 closes the next day): it covers now, whenever the test runs. */
const allDay = (name: string, minInstances: number) => ({ name, days: WEEK, from: '00:00', to: '00:00', minInstances, maxInstances: null });
const schedule = (rules: unknown[], extra: Record<string, unknown> = {}) => ({ enabled: true, timezone: 'UTC', warmup: { enabled: true, leadTimeMinutes: 10 }, prediction: { enabled: false, percentile: 90 }, rules, ...extra });

beforeAll(async () => {
  c = await startController({
    timing: { stopTimeoutMs: 2000, drainPollMs: 20 },
    scaling: { tickMs: 100, upCooldownMs: 300, downCooldownMs: 300, warmPool: { intervalMs: 100 } },
  });
  expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup('Arena', { minInstances: 0, maxInstances: 3 }) })).status).toBe(201);
  expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup('Build', { type: 'STATIC', minInstances: 0, maxInstances: 1 }) })).status).toBe(201);
  await waitFor(() => Bun.file(file('Arena')).size > 0, { what: 'Arena.toml written with the defaults' });
});
afterAll(() => c.stop());

describe('saving a schedule', () => {
  test('written as the group’s file with its comments, in force at once: the minimum rises and the instances start', async () => {
    const res = await c.api('/api/scaling/schedules/arena', { method: 'PUT', json: schedule([allDay('always', 2)]) });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ group: 'Arena', ...schedule([{ ...allDay('always', 2), days: WEEK }]) });
    const text = readFileSync(file('Arena'), 'utf8');
    expect(text).toContain('# Smart scaling of group "Arena"');
    expect(text).toContain('[[schedule.rules]]');
    expect(text).toMatch(/^min_instances = 2$/m);
    expect(await readJson(await c.api('/api/scaling/schedules/Arena'))).toMatchObject({ enabled: true, rules: [{ name: 'always', minInstances: 2 }] });
    const status = await readJson(await c.api('/api/scaling/status'));
    expect(status.groups.find((g: { group: string }) => g.group === 'Arena')).toMatchObject({ enabled: true, ruleCount: 1 });
    await waitFor(async () => (await readJson(await c.api('/api/services?group=Arena&state=READY'))).total === 2, { timeoutMs: 20_000, what: 'two Arena instances READY for the rule' });
    const audit = await readJson(await c.api('/api/audit?action=SMART_SCHEDULE_SAVED'));
    expect(audit.entries[0]).toMatchObject({ actor: 'api:admin', action: 'SMART_SCHEDULE_SAVED', target: 'Arena' });
  });

  test('what the file reader refuses is refused in its words; the file stays as it was', async () => {
    const before = readFileSync(file('Arena'), 'utf8');
    for (const [body, words] of [
      [schedule([allDay('always', 2)], { timezone: 'Mars/Olympus' }), 'timezone'],
      [schedule([allDay('same', 1), allDay('SAME', 2)]), 'names must be unique'],
      [schedule([{ ...allDay('late', 1), from: '25:00' }]), '25:00'],
    ] as const) {
      const res = await c.api('/api/scaling/schedules/Arena', { method: 'PUT', json: body });
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).message).toContain(words);
    }
    // The schema's own limits, before the file reader.
    expect((await c.api('/api/scaling/schedules/Arena', { method: 'PUT', json: schedule([{ ...allDay('x', -1) }]) })).status).toBe(400);
    expect((await c.api('/api/scaling/schedules/Arena', { method: 'PUT', json: schedule([{ ...allDay('x', 1), days: ['FUNDAY'] }]) })).status).toBe(400);
    expect(readFileSync(file('Arena'), 'utf8')).toBe(before);
  });

  test('an unknown or STATIC group is 404 SCALING_CONFIG_NOT_FOUND', async () => {
    for (const group of ['Nope', 'Build']) {
      const res = await c.api(`/api/scaling/schedules/${group}`, { method: 'PUT', json: schedule([]) });
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('SCALING_CONFIG_NOT_FOUND');
    }
  });

  test('the operator’s: the shared service token and a session with only .view are refused; .manage may', async () => {
    expect((await c.api('/api/scaling/schedules/Arena', { method: 'PUT', json: schedule([]), token: c.service })).status).toBe(403);
    const viewer = await loginAs(c, testPlayer(51, 'Viewer'), ['svc.dashboard.scaling.view']);
    const refused = await c.api('/api/scaling/schedules/Arena', { method: 'PUT', json: schedule([]), token: viewer });
    expect(refused.status).toBe(403);
    expect((await expectErrorBody(refused)).message).toContain('svc.dashboard.scaling.manage');
    const manager = await loginAs(c, testPlayer(52, 'Planner'), ['svc.dashboard.scaling.manage']);
    const saved = await c.api('/api/scaling/schedules/Arena', { method: 'PUT', json: schedule([], { enabled: false }), token: manager });
    expect(saved.status).toBe(200);
    expect((await readJson(saved)).enabled).toBe(false);
    expect((await readJson(await c.api('/api/audit?action=SMART_SCHEDULE_SAVED'))).entries[0].actor).toBe('dashboard:Planner');
  });
});
