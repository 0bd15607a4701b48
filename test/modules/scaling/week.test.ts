import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scalingRuntimeOf } from '../../../src/modules/scaling';
import { MINUTE_MS } from '../../../src/modules/scaling/store';
import { fakePaperGroup } from '../../fixtures/fake-paper-group';
import { readJson, startController, waitFor, type TestController } from '../../support/controller';

/**
 * Smart scaling through a week on a fake clock, with real fake-paper servers: the engine's
 * clock (which smart scaling reads) is set by the test and every scaling tick is run by hand.
 * Europe/Berlin, November 2027 (after the real clock: idle time counts from a server's real
 * READY time): CET, UTC+1. Friday 2027-11-19; day 0 is October 31, a Sunday after the DST change.
 */
const berlin = (day: number, hour: number, minute = 0): number => Date.UTC(2027, 10, day, hour - 1, minute);

let c: TestController;
let now = berlin(19, 1, 0);
const events: { type: string; data: Record<string, string> }[] = [];
const ofType = (type: string) => events.filter((e) => e.type === type && (e.data.group === 'Arena' || e.data.service?.startsWith('Arena-')));
const arena = () => c.controller.kernel.services.all().filter((s) => s.group === 'Arena');
const ready = () => arena().filter((s) => s.state === 'READY').length;
const tick = () => c.controller.kernel.scaling.tick();

const RULES = `[schedule]
enabled = true
timezone = "Europe/Berlin"

[[schedule.rules]]
name = "evening"
days = ["FRI"]
from = "18:00"
to = "02:00"
min_instances = 2

[warmup]
enabled = true
lead_time_minutes = 10

[prediction]
enabled = true
percentile = 90
`;

beforeAll(async () => {
  c = await startController({
    timing: { stopTimeoutMs: 2000, drainPollMs: 20 },
    // Ticks are run by the test; the cooldowns would only slow the walk.
    scaling: { tickMs: 3_600_000, upCooldownMs: 0, downCooldownMs: 0, now: () => now },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
  const created = await c.api('/api/groups', { method: 'POST', json: fakePaperGroup('Arena', { type: 'DYNAMIC', minInstances: 0, maxInstances: 4, playersPerInstance: 10, scaleThreshold: 0.8, idleTimeout: 1 }) });
  expect(created.status).toBe(201);
  // The module wrote the group's file with the defaults; the operator replaces it with a timetable.
  const file = join(c.dir, 'config', 'modules', 'scaling', 'Arena.toml');
  expect(await Bun.file(file).text()).toContain('enabled = false');
  writeFileSync(file, RULES);
  const reload = await c.api('/api/commands/scaling/execute', { method: 'POST', json: { args: ['reload'] } });
  expect(reload.status).toBe(200);
  expect(JSON.stringify(await reload.json())).toContain('1 in use');
}, 30_000);
afterAll(() => c.stop());

describe('smart scaling through a week (fake clock, real servers)', () => {
  test("Friday 01:00 is not inside the Friday evening rule (its overnight part is Saturday's): nothing is raised", async () => {
    const status = await readJson(await c.api('/api/scaling/status'));
    const group = status.groups.find((g: { group: string }) => g.group === 'Arena');
    expect(group).toMatchObject({ enabled: true, ruleCount: 1, timezone: 'Europe/Berlin', activeRule: null, minInstances: 0, effectiveMinInstances: 0, effectiveSource: null, problem: null });
    await tick();
    expect(arena()).toHaveLength(0);
  });

  test('warm-up starts what the rule needs ahead of it, and says so', async () => {
    now = berlin(19, 17, 40); // 20 minutes before: outside the lead time
    await tick();
    expect(arena()).toHaveLength(0);
    now = berlin(19, 17, 52); // 8 minutes before
    await tick();
    await waitFor(() => ready() === 2, { what: 'two Arena servers READY before 18:00', timeoutMs: 15_000 });
    expect(ofType('SMART_WARMUP').map((e) => e.data)).toEqual([{ group: 'Arena', rule: 'evening', started: '2', min: '2', moduleId: 'scaling' }]);
    expect(ofType('SCALE_UP')[0]!.data.reason).toContain('below the minimum of schedule rule "evening" (warming up');
    const status = await readJson(await c.api('/api/scaling/status'));
    expect(status.groups[0]).toMatchObject({ group: 'Arena', activeRule: { name: 'evening', minInstances: 2, maxInstances: null, isWarmup: true }, effectiveMinInstances: 2 });
  });

  test('while the rule is in force (the overnight part keyed to Friday) idle servers are not scaled below it', async () => {
    for (const at of [berlin(19, 18, 30), berlin(19, 23, 0), berlin(20, 1, 30)]) {
      now = at;
      await tick();
      await tick();
    }
    expect(ofType('SCALE_DOWN')).toHaveLength(0);
    expect(ready()).toBe(2);
    // No second start either: the two are what the rule asks for.
    expect(ofType('SMART_SCHEDULE')).toHaveLength(0);
    const status = await readJson(await c.api('/api/scaling/status'));
    expect(status.groups[0]).toMatchObject({ activeRule: { name: 'evening', isWarmup: false }, effectiveSource: 'schedule rule "evening"' });
  });

  test('after the rule the engine scales the idle servers down as usual', async () => {
    now = berlin(20, 2, 30);
    for (let i = 0; i < 10 && ofType('SCALE_DOWN').length < 2; i++) await tick();
    expect(ofType('SCALE_DOWN')).toHaveLength(2);
    expect(ofType('SCALE_DOWN')[0]!.data.reason).toContain('idle for');
    await waitFor(() => arena().length === 0, { what: 'both stopped', timeoutMs: 15_000 });
  });

  test('the next Friday inside the rule the schedule itself starts them (SMART_SCHEDULE)', async () => {
    now = berlin(26, 19, 0); // the next Friday, inside the rule
    await tick();
    await waitFor(() => ready() === 2, { what: 'two Arena servers for the rule', timeoutMs: 15_000 });
    expect(ofType('SMART_SCHEDULE').at(-1)!.data).toEqual({ group: 'Arena', rule: 'evening', started: '2', min: '2', moduleId: 'scaling' });
    now = berlin(27, 2, 30);
    for (let i = 0; i < 10 && arena().length > 0; i++) {
      await tick();
      await waitFor(() => arena().every((s) => s.state === 'READY'), { what: 'no server on its way out', timeoutMs: 15_000 });
    }
    expect(arena()).toHaveLength(0);
  });

  test('predictions start servers ahead of a busy hour from four weeks of history, capped at maxInstances', async () => {
    const runtime = scalingRuntimeOf(c.controller.kernel);
    // Sundays at 20:00 the last four weeks: 30-40 players a minute (p90 ≈ 39 → ceil(39 / 8) = 5 instances > maxInstances 4).
    for (let week = 1; week <= 4; week++) {
      for (let minute = 0; minute < 60; minute++) {
        runtime.store.addSamples(berlin(28 - 7 * week, 20, minute), [{ group: 'Arena', players: 30 + (minute % 11), services: 4 }]);
      }
    }
    now = berlin(28, 19, 30); // the lead time (10 min) does not reach 20:00 yet
    await tick();
    expect(arena()).toHaveLength(0);
    const ahead = await readJson(await c.api('/api/scaling/predictions/arena'));
    expect(ahead.predictions).toHaveLength(6);
    expect(ahead.predictions[1]).toMatchObject({ hour: 20, dayOfWeek: 'SUNDAY', predictedPlayers: 39, predictedInstances: 5, dataPoints: 240 });
    now = berlin(28, 19, 52);
    await tick();
    await waitFor(() => ready() === 4, { what: 'four Arena servers for the predicted hour', timeoutMs: 20_000 });
    expect(ofType('SMART_PREDICTION').map((e) => e.data)).toEqual([{ group: 'Arena', predicted: '39', started: '4', samples: '240', moduleId: 'scaling' }]);
    await tick();
    expect(arena()).toHaveLength(4);
  }, 40_000);

  test('the decisions list says what happened and why, newest first', async () => {
    const { decisions, total } = await readJson(await c.api('/api/scaling/decisions?limit=500&group=ARENA'));
    expect(total).toBe(decisions.length);
    const actions = decisions.map((d: { action: string }) => d.action).reverse();
    expect(actions.indexOf('smart_warmup')).toBeGreaterThan(actions.indexOf('scale_up'));
    expect(actions).toContain('scale_down');
    expect(actions).toContain('smart_schedule');
    expect(actions.at(-1)).toBe('smart_prediction');
    const warm = decisions.find((d: { action: string }) => d.action === 'smart_warmup');
    expect(warm).toEqual({ timestamp: new Date(berlin(19, 17, 52)).toISOString(), group: 'Arena', action: 'smart_warmup', reason: 'pre-warming for schedule "evening" (need 2, had 0)', source: 'warmup', servicesStarted: 2 });
    const down = decisions.find((d: { action: string }) => d.action === 'scale_down');
    expect(down).toMatchObject({ source: 'engine', servicesStarted: 0, reason: expect.stringMatching(/^Arena-\d: idle for/) });
  });

  test('history aggregates the samples by hour', async () => {
    const runtime = scalingRuntimeOf(c.controller.kernel);
    runtime.sample(now);
    runtime.sample(now + MINUTE_MS);
    const history = await readJson(await c.api('/api/scaling/history/Arena?hours=99999'));
    expect(history.hours).toBe(2160);
    const last = history.snapshots.at(-1);
    expect(last).toEqual({ timestamp: new Date(berlin(28, 19, 0)).toISOString(), playerCount: 0, serviceCount: 4, peakPlayerCount: 0, samples: 2 });
    expect(history.snapshots.filter((h: { samples: number }) => h.samples === 60)).toHaveLength(4);
  });
});
