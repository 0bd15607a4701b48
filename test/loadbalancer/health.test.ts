import { describe, expect, test } from 'bun:test';
import { afterCheck, initialHealth, type HealthState } from '../../src/loadbalancer/health-state';
import { HealthChecker } from '../../src/loadbalancer/health-checker';
import type { Backend, Health } from '../../src/loadbalancer/model';
import { waitFor } from '../support/controller';

const THRESHOLDS = { unhealthy: 3, healthy: 2 };

/** Status after each result of `results` (true = passed), from a fresh backend. */
function run(results: boolean[], thresholds = THRESHOLDS): { statuses: Health[]; changes: number } {
  let state: HealthState = initialHealth();
  let changes = 0;
  const statuses: Health[] = [];
  for (const passed of results) {
    const next = afterCheck(state, passed, thresholds);
    if (next.changed) changes++;
    state = next.state;
    statuses.push(state.status);
  }
  return { statuses, changes };
}

const H = 'healthy';
const U = 'unhealthy';

describe('health state machine', () => {
  test('a new backend is healthy', () => {
    expect(initialHealth().status).toBe('healthy');
  });

  test('unhealthy after unhealthy_threshold consecutive failures, not before', () => {
    expect(run([false, false, false]).statuses).toEqual([H, H, U]);
  });

  test('a success resets the failure streak', () => {
    expect(run([false, false, true, false, false, true]).statuses).toEqual([H, H, H, H, H, H]);
  });

  test('healthy again after healthy_threshold consecutive successes, and a failure resets that streak', () => {
    expect(run([false, false, false, true, false, true, true]).statuses).toEqual([H, H, U, U, U, U, H]);
  });

  test('each crossing changes once; further results in the same direction change nothing', () => {
    expect(run([false, false, false, false, false, true, true, true, true]).changes).toBe(2);
  });

  test('thresholds of 1 flip at every change of result', () => {
    expect(run([false, true, false, true], { unhealthy: 1, healthy: 1 }).statuses).toEqual([U, H, U, H]);
  });
});

describe('HealthChecker', () => {
  const a: Backend = { name: 'Proxy-1', host: '127.0.0.1', port: 1001, playerCount: 0 };
  const b: Backend = { name: 'Proxy-2', host: '127.0.0.1', port: 1002, playerCount: 0 };

  test('rounds probe every backend; changes are reported once with old and new status', async () => {
    const up = new Map([[a.port, true], [b.port, true]]);
    const changes: string[] = [];
    const checker = new HealthChecker({
      backends: () => [a, b],
      probe: async (backend) => up.get(backend.port) ?? false,
      intervalMs: 3_600_000,
      timeoutMs: 100,
      thresholds: { unhealthy: 2, healthy: 1 },
      onChange: (backend, oldStatus, newStatus) => changes.push(`${backend.name} ${oldStatus}->${newStatus}`),
    });
    up.set(b.port, false);
    await checker.checkNow();
    expect(checker.statusOf(b)).toBe('healthy');
    await checker.checkNow();
    expect(checker.statusOf(b)).toBe('unhealthy');
    expect(checker.statusOf(a)).toBe('healthy');
    await checker.checkNow();
    up.set(b.port, true);
    await checker.checkNow();
    expect(changes).toEqual(['Proxy-2 healthy->unhealthy', 'Proxy-2 unhealthy->healthy']);
    checker.stop();
  });

  test('a probe that throws counts as a failure; a backend that leaves forgets its state', async () => {
    let list = [a];
    const checker = new HealthChecker({
      backends: () => list,
      probe: () => Promise.reject(new Error('boom')),
      intervalMs: 3_600_000,
      timeoutMs: 100,
      thresholds: { unhealthy: 1, healthy: 1 },
      onChange: () => undefined,
    });
    await checker.checkNow();
    expect(checker.statusOf(a)).toBe('unhealthy');
    list = [];
    await checker.checkNow();
    expect(checker.statusOf(a)).toBe('healthy'); // forgotten: it would start afresh
    checker.stop();
  });

  test('the timer runs rounds on its own; a slow probe is never doubled; stopped, nothing is probed', async () => {
    let probes = 0;
    let rounds = 0;
    let release: (() => void) | undefined;
    const checker = new HealthChecker({
      backends: () => {
        rounds++;
        return [a];
      },
      probe: () => {
        probes++;
        return new Promise<boolean>((resolve) => (release = () => resolve(true)));
      },
      intervalMs: 5,
      timeoutMs: 100,
      thresholds: THRESHOLDS,
      onChange: () => undefined,
    });
    checker.start();
    await waitFor(() => probes === 1, { what: 'the first probe' });
    // more rounds come while that probe hangs; none probes the same backend again
    await waitFor(() => rounds >= 4, { what: 'four rounds' });
    expect(probes).toBe(1);
    release?.();
    await waitFor(() => probes >= 2, { what: 'a probe of a later round' });
    checker.stop();
    release?.();
    const after = probes;
    await checker.checkNow();
    expect(probes).toBe(after);
  });
});
