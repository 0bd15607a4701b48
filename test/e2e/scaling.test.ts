/**
 * Smart scaling in the compiled binary: a group's file written with the defaults when the group
 * appears, a timetable put in and read with `scaling reload`, the core engine starting what the
 * rule asks for (SMART_SCHEDULE on the events socket, the service READY), every /api/scaling
 * route with its shape and limits, a broken file reported by key and the other groups going on.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveServiceToken } from '../../src/core/auth';
import { fakePaperGroup } from '../fixtures/fake-paper-group';
import { killGameServers, startBinaryController, svcBinary } from '../support/binary';
import { expectErrorBody, readJson, tempDir, waitFor } from '../support/controller';
import { openEventSocket } from '../support/events-socket';
import { expectExactShape } from './contract/expect-shape';

const TOKEN = 'scaling-e2e-token-0123456789abcdef0123';
const SERVICE_TOKEN = deriveServiceToken(TOKEN);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Frame = { type: string; data: Record<string, string> };
let dir: string;
let removeDir: () => void;
let bin: Awaited<ReturnType<typeof startBinaryController>>;
const cleanups: (() => void)[] = [];
const frames: Frame[] = [];

const scalingFile = (group: string) => join(dir, 'config', 'modules', 'scaling', `${group}.toml`);
const get = (path: string, token = TOKEN) => fetch(bin.url + path, { headers: { authorization: `Bearer ${token}` } });
const command = async (...args: string[]) => readJson(await bin.api('/api/commands/scaling/execute', { method: 'POST', body: JSON.stringify({ args }) }));

beforeAll(async () => {
  const svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-scaling-e2e-'));
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\n[controller]\nscaling_tick_interval = 1\n[services]\nisolation = "none"\n');
  bin = await startBinaryController(svc, dir, TOKEN, cleanups);
  await openEventSocket<Frame>(bin.url, TOKEN, (frame) => frames.push(frame)).then((ws) => cleanups.push(() => ws.close()));
  for (const [name, type] of [['Arena', 'DYNAMIC'], ['Hub', 'LOBBY'], ['Build', 'STATIC'], ['Broken', 'DYNAMIC']] as const) {
    const res = await bin.api('/api/groups', { method: 'POST', body: JSON.stringify(fakePaperGroup(name, { type, minInstances: 0, maxInstances: 3 })) });
    expect(res.status).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  const pids = (await readJson(await get('/api/services'))).services?.map((s: { pid: number | null }) => s.pid).filter((p: number | null): p is number => p !== null) ?? [];
  for (const cleanup of cleanups.reverse()) cleanup();
  killGameServers(dir, pids);
  removeDir();
});

describe('smart scaling (compiled binary)', () => {
  test('every DYNAMIC and LOBBY group gets a commented file with the defaults; STATIC groups none', async () => {
    await waitFor(() => Bun.file(scalingFile('Hub')).size > 0, { what: 'Hub.toml' });
    const text = readFileSync(scalingFile('Arena'), 'utf8');
    expect(text).toContain('# Smart scaling of group "Arena"');
    expect(text).toMatch(/^enabled = false$/m);
    expect(await Bun.file(scalingFile('Build')).exists()).toBe(false);
    const schedules = await readJson(await get('/api/scaling/schedules'));
    expect(schedules.schedules.map((s: { group: string }) => s.group)).toEqual(['Arena', 'Broken', 'Hub']);
    for (const s of schedules.schedules) {
      expectExactShape(s, { group: 'string', enabled: 'boolean', timezone: 'string', warmup: 'object', prediction: 'object', rules: 'array' }, 'schedule');
      expect(s).toMatchObject({ enabled: false, warmup: { enabled: true, leadTimeMinutes: 10 }, prediction: { enabled: false, percentile: 90 }, rules: [] });
    }
  });

  test('a rule in force now makes the engine start what it asks for, with SMART_SCHEDULE', async () => {
    writeFileSync(
      scalingFile('Arena'),
      '[schedule]\nenabled = true\ntimezone = "UTC"\n[[schedule.rules]]\nname = "always"\ndays = ["MON","TUE","WED","THU","FRI","SAT","SUN"]\nfrom = "00:00"\nto = "00:00"\nmin_instances = 1\nmax_instances = 2\n',
    );
    writeFileSync(scalingFile('Broken'), '[schedule]\nenabled = true\n[[schedule.rules]]\nname = "x"\ndays = ["FUNDAY"]\nfrom = "10:00"\nto = "11:00"\nmin_instances = 1\n');
    const reload = await command('reload');
    expect(JSON.stringify(reload.lines)).toContain('2 in use, 1 unusable');
    await waitFor(() => frames.some((f) => f.type === 'SMART_SCHEDULE'), { what: 'SMART_SCHEDULE', timeoutMs: 20_000 });
    expect(frames.find((f) => f.type === 'SMART_SCHEDULE')!.data).toEqual({ group: 'Arena', rule: 'always', started: '1', min: '1', moduleId: 'scaling' });
    await waitFor(async () => (await readJson(await get('/api/services/Arena-1'))).state === 'READY', { what: 'Arena-1 READY', timeoutMs: 20_000 });
  }, 45_000);

  test('status: each group with its rule, the effective minimum and why; a broken file says which key', async () => {
    const status = await readJson(await get('/api/scaling/status', SERVICE_TOKEN));
    expect(Object.keys(status).sort()).toEqual(['groups', 'recentDecisions']);
    const byName = Object.fromEntries(status.groups.map((g: { group: string }) => [g.group, g]));
    expect(Object.keys(byName)).toEqual(['Arena', 'Broken', 'Hub']);
    expectExactShape(
      byName.Arena,
      { group: 'string', enabled: 'boolean', ruleCount: 'integer', timezone: 'string', activeRule: 'object|null', predictionEnabled: 'boolean', minInstances: 'integer', effectiveMinInstances: 'integer', effectiveSource: 'string|null', problem: 'string|null' },
      'status group',
    );
    expect(byName.Arena).toMatchObject({ enabled: true, ruleCount: 1, timezone: 'UTC', activeRule: { name: 'always', minInstances: 1, maxInstances: 2, isWarmup: false }, minInstances: 0, effectiveMinInstances: 1, effectiveSource: 'schedule rule "always"', problem: null });
    expect(byName.Broken.problem).toContain('schedule.rules[1] ("x").days: "FUNDAY" is not a day');
    expect(byName.Broken).toMatchObject({ enabled: false, effectiveMinInstances: 0 });
    expect(status.recentDecisions.length).toBeGreaterThan(0);
    for (const d of status.recentDecisions) expectExactShape(d, { timestamp: 'string', group: 'string', action: 'string', reason: 'string', source: 'string', servicesStarted: 'integer' }, 'decision');
  });

  test('schedules/{group}: any case; 404 SCALING_CONFIG_NOT_FOUND for STATIC, unknown and broken, with the reason', async () => {
    expect(await readJson(await get('/api/scaling/schedules/arena'))).toEqual({
      group: 'Arena',
      enabled: true,
      timezone: 'UTC',
      warmup: { enabled: true, leadTimeMinutes: 10 },
      prediction: { enabled: false, percentile: 90 },
      rules: [{ name: 'always', days: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'], from: '00:00', to: '00:00', minInstances: 1, maxInstances: 2 }],
    });
    for (const [group, message] of [['Build', /STATIC/], ['Nope', /no such group/], ['Broken', /Broken\.toml cannot be used: .*FUNDAY/]] as const) {
      const res = await get(`/api/scaling/schedules/${group}`);
      expect(res.status).toBe(404);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('SCALING_CONFIG_NOT_FOUND');
      expect(body.message).toMatch(message);
    }
  });

  test('history clamps hours, refuses a non-number, and an unknown group has none', async () => {
    const clamped = await readJson(await get('/api/scaling/history/Arena?hours=0'));
    expect(clamped).toMatchObject({ group: 'Arena', hours: 1 });
    expect((await readJson(await get('/api/scaling/history/Arena?hours=100000'))).hours).toBe(2160);
    expect(await readJson(await get('/api/scaling/history/Ghost'))).toEqual({ group: 'Ghost', hours: 24, snapshots: [] });
    const bad = await get('/api/scaling/history/Arena?hours=lots');
    expect(bad.status).toBe(400);
    expect((await expectErrorBody(bad)).error).toBe('VALIDATION_FAILED');
  });

  test('predictions: the next six hours with their samples; decisions: newest first, limit clamped', async () => {
    const p = await readJson(await get('/api/scaling/predictions/Arena'));
    expect(p).toMatchObject({ group: 'Arena', timezone: 'UTC', percentile: 90 });
    expect(p.predictions).toHaveLength(6);
    for (const h of p.predictions) expectExactShape(h, { hour: 'integer', dayOfWeek: 'string', timestamp: 'string', predictedPlayers: 'integer', predictedInstances: 'integer', dataPoints: 'integer' }, 'prediction');
    // The hour now and the five after it (UTC here), each starting an hour after the one before.
    const first = Date.parse(p.predictions[0].timestamp);
    expect(Date.now() - first).toBeGreaterThanOrEqual(0);
    expect(Date.now() - first).toBeLessThan(2 * 3_600_000);
    expect(p.predictions.map((h: { timestamp: string }) => Date.parse(h.timestamp) - first)).toEqual([0, 1, 2, 3, 4, 5].map((i) => i * 3_600_000));
    expect(p.predictions.map((h: { hour: number }) => h.hour)).toEqual([0, 1, 2, 3, 4, 5].map((i) => (new Date(first).getUTCHours() + i) % 24));
    const one = await readJson(await get('/api/scaling/decisions?limit=0'));
    expect(one.decisions).toHaveLength(1);
    expect(one.total).toBeGreaterThanOrEqual(2);
    const all = await readJson(await get('/api/scaling/decisions?limit=100000&group=arena'));
    expect(all.decisions.map((d: { action: string }) => d.action)).toEqual(['smart_schedule', 'scale_up']);
    expect(all.decisions[0]).toMatchObject({ group: 'Arena', source: 'schedule', servicesStarted: 1, reason: 'schedule "always" active (min=1, had 0)' });
    expect(all.decisions[0].timestamp).toMatch(ISO);
  });

  test('the console command answers from the same data', async () => {
    const status = await command('status');
    expect(JSON.stringify(status.lines)).toContain('Arena: min 1 by schedule rule \\"always\\" (own 0)');
    const info = await command('schedule', 'info', 'arena');
    expect(JSON.stringify(info.lines)).toContain('always: MON,TUE,WED,THU,FRI,SAT,SUN 00:00-00:00 min 1 max 2');
    const res = await bin.api('/api/commands/scaling/execute', { method: 'POST', body: JSON.stringify({ args: ['schedule', 'info', 'Build'] }) });
    expect(res.status).toBe(422);
  });
});
