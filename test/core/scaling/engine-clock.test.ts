/**
 * The scaling engine on a fake monotonic clock while the wall clock steps: idle time and
 * cooldowns follow the monotonic clock only, so a step forward scales nothing down.
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import { newRecord, type ServiceRecord } from '../../../src/core/services/registry';
import { DEFAULT_SCALING_TIMING, ScalingEngine } from '../../../src/core/scaling/engine';

const IDLE_S = 60;
let engine: ScalingEngine | undefined;
afterEach(() => engine?.stop());

function setup(mono: () => number) {
  const group: Group = { ...groupDefaults(), name: 'Lobby', software: 'CUSTOM', version: '1.21.1', minInstances: 0, maxInstances: 2, idleTimeout: IDLE_S } as Group;
  const record: ServiceRecord = { ...newRecord({ name: 'Lobby-1', group: 'Lobby', port: 30000, workDir: '/tmp', isStatic: false, isProxy: false, memoryMaxMb: 512, restartCount: 0 }), state: 'READY', readyAt: new Date(), readyMono: mono(), playersReportedAt: Date.now(), playersReportedMono: mono() };
  const published: { type: string; data: Record<string, unknown> }[] = [];
  const stopped: string[] = [];
  engine = new ScalingEngine({
    bus: { publish: (type: string, data: Record<string, unknown>) => void published.push({ type, data }), subscribe: () => () => {} } as never,
    log: { info: () => {}, warn: () => {}, debug: () => {}, error: () => {} } as never,
    registry: { all: () => [record], ofGroup: () => [record], get: (name: string) => (name === record.name ? record : undefined) } as never,
    groups: { list: () => [group], get: () => group } as never,
    manager: { start: async () => record, stop: async (name: string) => void stopped.push(name), isQuarantined: () => false, pendingRestartsOf: () => 0 } as never,
    players: { roster: { all: () => [] }, observe: () => {} } as never,
    limits: () => ({ maxMemoryMb: 1_000_000, maxServices: 100 }) as never,
    ping: async () => 0,
    paused: () => false,
    timing: { ...DEFAULT_SCALING_TIMING, tickMs: 3_600_000 },
    monotonic: mono,
  });
  return { record, published, stopped };
}

describe('ScalingEngine clocks', () => {
  test('idle time is monotonic: +10 min on the wall clock scales nothing down; 60 s of monotonic idle does', async () => {
    let mono = 50_000;
    const { record, published, stopped } = setup(() => mono);
    const wall = spyOn(Date, 'now').mockReturnValue(Date.now() + 10 * 60_000);
    try {
      mono += 5_000;
      record.playersReportedMono = mono; // the SDK keeps reporting: a fresh count of 0
      await engine!.tick();
      await engine!.tick();
      expect(published.filter((e) => e.type === 'SCALE_DOWN')).toEqual([]);
      expect(stopped).toEqual([]);

      mono += IDLE_S * 1000;
      record.playersReportedMono = mono;
      await engine!.tick();
      await engine!.tick();
      expect(published.filter((e) => e.type === 'SCALE_DOWN').map((e) => e.data.service)).toEqual(['Lobby-1']);
    } finally {
      wall.mockRestore();
    }
  });
});
