import { afterEach, describe, expect, setSystemTime, test } from 'bun:test';
import { EventBus } from '../../../src/events/bus';
import type { SvcEvent } from '../../../src/events/catalogue';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import type { Instance, InstanceTable } from '../../../src/core/services/instances';
import type { ManagerDeps } from '../../../src/core/services/manager-deps';
import { DEFAULT_MANAGER_TIMING } from '../../../src/core/services/manager-timing';
import { Quarantines } from '../../../src/core/services/quarantine';
import { newRecord } from '../../../src/core/services/registry';
import { CrashRestarts, type Relaunch } from '../../../src/core/services/restarts';
import { StartGate } from '../../../src/core/services/start-gate';
import type { StopHooks } from '../../../src/core/services/stop-hooks';
import { waitFor } from '../../support/controller';

/**
 * The breaker as CrashRestarts runs it, on an injected monotonic clock: the wall clock only
 * stamps the quarantine record (for people), so stepping it either way neither trips the
 * breaker nor lets a loop escape it.
 */
afterEach(() => setSystemTime());

const THRESHOLD = 3;
const WINDOW = 60_000;

function setup() {
  let mono = 1_000;
  const bus = new EventBus();
  const events: SvcEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const quiet = () => undefined;
  const log = { info: quiet, warn: quiet, error: quiet, debug: quiet } as unknown as ManagerDeps['log'];
  const ports = { release: quiet } as unknown as ManagerDeps['ports'];
  const table = { move: (instance: Instance, state: Instance['record']['state']) => ((instance.record.state = state), true), cleanUp: async () => undefined } as unknown as InstanceTable;
  const gate = new StartGate(new Quarantines(null));
  const starts: string[] = [];
  const relaunch: Relaunch = {
    start: async (group) => (starts.push(group), newRecord({ name: `${group}-1`, group, port: 0, workDir: '', isStatic: false, isProxy: false, memoryMaxMb: 0, restartCount: 0 })),
    startDedicated: async (name) => (starts.push(name), newRecord({ name, group: name, port: 0, workDir: '', isStatic: true, isProxy: false, memoryMaxMb: 0, restartCount: 0 })),
  };
  const timing = { ...DEFAULT_MANAGER_TIMING, restart: { ...DEFAULT_MANAGER_TIMING.restart, loopThreshold: THRESHOLD, loopWindowMs: WINDOW } };
  const restarts = new CrashRestarts({ bus, log, ports }, table, gate, {} as StopHooks, timing, relaunch, () => mono);
  const group = (extra: Partial<Group> = {}): Group => ({ ...groupDefaults(), name: 'Loop', software: 'CUSTOM', version: '1.21.1', restartOnCrash: false, ...extra });
  const crash = (g: Group, exitCode = 3) => {
    const record = newRecord({ name: `${g.name}-1`, group: g.name, port: 30000, workDir: '/tmp/x', isStatic: false, isProxy: false, memoryMaxMb: 512, restartCount: 0 });
    record.state = 'STARTING';
    const instance = { record, handle: { lastLines: () => ['fixture: cannot start'], close: quiet }, stopping: false, readyTimer: null, warming: null } as unknown as Instance;
    restarts.onUnexpectedExit(instance, g, exitCode);
  };
  return { gate, events, starts, restarts, group, crash, advance: (ms: number) => (mono += ms) };
}

describe('CrashRestarts and the breaker (injected monotonic clock)', () => {
  test('a wall clock stepped back an hour between crashes changes nothing: the third crash in the window trips it, stamped with the wall time', () => {
    const { gate, events, crash, group, advance } = setup();
    const g = group();
    setSystemTime(new Date('2026-03-01T12:00:00.000Z'));
    crash(g);
    advance(10_000);
    setSystemTime(new Date('2026-03-01T11:00:10.000Z'));
    crash(g);
    advance(10_000);
    setSystemTime(new Date('2026-03-01T10:00:20.000Z'));
    expect(gate.isQuarantined('Loop')).toBe(false);
    crash(g);
    expect(gate.quarantines.get('Loop')).toEqual({
      name: 'Loop',
      kind: 'group',
      reason: 'crash loop: 3 crashes within 1 min',
      crashes: 3,
      since: '2026-03-01T10:00:20.000Z',
      lastService: 'Loop-1',
      lastExitCode: 3,
      diagnosis: expect.any(String),
    });
    expect(events.filter((e) => e.type === 'GROUP_QUARANTINED').map((e) => e.data)).toEqual([{ group: 'Loop', kind: 'group', reason: 'crash loop: 3 crashes within 1 min', crashes: '3', service: 'Loop-1' }]);
  });

  test('a wall clock stepped forward a day does not age crashes out of the window', () => {
    const { gate, crash, group, advance } = setup();
    const g = group();
    setSystemTime(new Date('2026-03-01T12:00:00.000Z'));
    crash(g);
    setSystemTime(new Date('2026-03-02T12:00:00.000Z'));
    advance(1_000);
    crash(g);
    advance(1_000);
    crash(g);
    expect(gate.isQuarantined('Loop')).toBe(true);
  });

  test('crashes further apart than the window on the monotonic clock never trip it, whatever the wall clock says', () => {
    const { gate, crash, group, advance } = setup();
    const g = group();
    setSystemTime(new Date('2026-03-01T12:00:00.000Z'));
    for (let i = 0; i < 10; i++) {
      crash(g);
      advance(WINDOW / 2 + 1);
    }
    expect(gate.isQuarantined('Loop')).toBe(false);
  });

  test('restart-on-crash: restarts until the breaker trips, then none; a lift forgets the history', async () => {
    const { gate, starts, restarts, crash, group, advance } = setup();
    const g = group({ restartOnCrash: true, maxRestarts: 50 });
    crash(g);
    // The first restart is immediate (a 0 ms timer).
    await waitFor(() => starts.length === 1, { what: 'the first restart' });
    expect(starts).toEqual(['Loop']);
    advance(1_000);
    crash(g);
    advance(1_000);
    crash(g);
    expect(gate.isQuarantined('Loop')).toBe(true);
    expect(restarts.pendingRestartsOf('Loop')).toBe(0);
    // Quarantined: a further crash (a still running instance) is not restarted.
    crash(g);
    expect(restarts.pendingRestartsOf('Loop')).toBe(0);

    gate.quarantines.lift('Loop');
    restarts.forgetCrashes('Loop');
    advance(1_000);
    crash(g);
    expect(gate.isQuarantined('Loop')).toBe(false);
    restarts.cancelAll();
  });
});
