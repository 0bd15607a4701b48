import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ServiceHistory, MAX_SAMPLES } from '../../src/core/metrics/service-history';
import { newRecord, ServiceRegistry } from '../../src/core/services/registry';
import { openDatabase } from '../../src/storage/db';
import { migrate } from '../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../src/storage/core-migrations';
import { tempDir } from '../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function setup() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = openDatabase(join(dir, 'svc.db'));
  migrate(db, 'core', CORE_MIGRATIONS);
  cleanups.unshift(() => db.close());
  const registry = new ServiceRegistry();
  const running = { ...newRecord({ name: 'Lobby-1', group: 'Lobby', port: 30000, workDir: dir, isStatic: false, isProxy: false, memoryMaxMb: 1408, restartCount: 0 }), pid: process.pid, playerCount: 4 };
  registry.add(running);
  registry.add(newRecord({ name: 'Lobby-2', group: 'Lobby', port: 30001, workDir: dir, isStatic: false, isProxy: false, memoryMaxMb: 1408, restartCount: 0 }));
  return { db, registry, history: new ServiceHistory(db, registry), running };
}

describe('service metrics history', () => {
  test('samples running services with real memory, oldest first, within the window', () => {
    const { history } = setup();
    const now = 10_000_000_000;
    expect(history.sample(now - 20 * 60_000)).toBe(1); // Lobby-2 has no process
    history.sample(now - 4 * 60_000);
    history.sample(now);
    const samples = history.history('Lobby-1', 5, now);
    expect(samples.map((s) => s.timestamp)).toEqual([new Date(now - 4 * 60_000).toISOString(), new Date(now).toISOString()]);
    expect(samples[0]).toMatchObject({ memoryMaxMb: 1408, playerCount: 4 });
    expect(samples[0]!.memoryUsedMb).toBeGreaterThan(0);
    expect(history.history('Lobby-2', 60, now)).toEqual([]);
  });

  test('never more than 2000 samples, spread over the window', () => {
    const { history } = setup();
    const now = 10_000_000_000;
    for (let i = 0; i < 5000; i++) history.sample(now - i * 10_000);
    const samples = history.history('Lobby-1', 1440, now);
    expect(samples.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(samples.length).toBeGreaterThan(MAX_SAMPLES / 2);
    expect(Date.parse(samples.at(-1)!.timestamp) - Date.parse(samples[0]!.timestamp)).toBeGreaterThan(13 * 3600_000);
  });

  test('retention prunes old samples in batches', async () => {
    const { history } = setup();
    const now = 10_000_000_000;
    for (let i = 0; i < 2500; i++) history.sample(now - 40 * 86_400_000 - i);
    history.sample(now);
    expect(await history.prune(now - 30 * 86_400_000, 300)).toBe(2500);
    expect(history.history('Lobby-1', 1440, now)).toHaveLength(1);
  });
});
