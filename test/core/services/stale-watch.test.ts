/** The stale watch on a fake monotonic clock: silence is what the monotonic clock says, never the wall clock. */
import { describe, expect, test } from 'bun:test';
import type { InstanceTable } from '../../../src/core/services/instances';
import { DEFAULT_MANAGER_TIMING } from '../../../src/core/services/manager-timing';
import { newRecord, type ServiceRecord } from '../../../src/core/services/registry';
import { StaleWatch } from '../../../src/core/services/stale-watch';

const STALE_MS = 300_000;

function ready(name: string, fields: Partial<ServiceRecord>): ServiceRecord {
  return { ...newRecord({ name, group: 'Lobby', port: 25565, workDir: '/tmp', isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 }), state: 'READY', ...fields };
}

function watchOver(records: ServiceRecord[]): StaleWatch {
  const alive = { isAlive: () => true };
  const table = { all: () => records.map((record) => ({ record, handle: alive })) } as unknown as InstanceTable;
  // The timer is not what is tested here: it never fires within the test.
  return new StaleWatch({ log: undefined as never }, table, { ...DEFAULT_MANAGER_TIMING, staleTimeoutMs: STALE_MS, staleCheckMs: 3_600_000 });
}

describe('StaleWatch', () => {
  test('stale only after staleTimeoutMs of monotonic silence; a report long ago by the wall clock but just now by the monotonic one is fresh', () => {
    const mono = 1_000_000;
    const records = [
      // Reported 5 s ago; the wall clock has since been stepped forward 10 minutes.
      ready('Lobby-1', { playersReportedAt: Date.now() - 605_000, playersReportedMono: mono - 5_000 }),
      ready('Lobby-2', { playersReportedAt: Date.now(), playersReportedMono: mono - STALE_MS }),
      ready('Lobby-3', { playersReportedAt: null, playersReportedMono: null }),
    ];
    const watch = watchOver(records);
    try {
      expect(watch.findStale(mono)).toEqual(['Lobby-2']);
      expect(watch.findStale(mono + STALE_MS - 5_001)).toEqual(['Lobby-2']);
      expect(watch.findStale(mono + STALE_MS - 5_000)).toEqual(['Lobby-1', 'Lobby-2']);
    } finally {
      watch.stop();
    }
  });

});
