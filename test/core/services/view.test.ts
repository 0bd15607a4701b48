import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { newRecord, type ServiceRecord } from '../../../src/core/services/registry';
import { serviceView, ServiceViewSchema } from '../../../src/core/services/view';

/** The service record as the SDK (NimbusService), the dashboard and the bridge read it. */
const record = (fields: Partial<ServiceRecord> = {}): ServiceRecord => ({
  ...newRecord({ name: 'Lobby-1', group: 'Lobby', port: 30000, workDir: '/nowhere', isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 }),
  ...fields,
});

describe('serviceView', () => {
  test('before a start: uptime null, uptimeSeconds 0, customState null, no tps key', () => {
    const view = serviceView(record());
    expect(view.uptime).toBeNull();
    expect(view.uptimeSeconds).toBe(0);
    expect(view.customState).toBeNull();
    expect('tps' in view).toBe(false);
    expect(JSON.parse(JSON.stringify(view))).not.toHaveProperty('tps');
    expect(view.isStatic).toBe(false);
    expect(Value.Check(ServiceViewSchema, view)).toBe(true);
  });

  test('running: the reference uptime string beside the whole seconds; tps and customState once known', () => {
    const now = Date.UTC(2025, 0, 1, 12);
    const startedAt = new Date(now - (27 * 3600 + 4 * 60 + 5) * 1000 - 400);
    const view = serviceView(record({ state: 'READY', startedAt, tps: 19.5, customState: 'INGAME', isStatic: true }), now);
    expect(view.uptime).toBe('27h 4m 5s');
    expect(view.uptimeSeconds).toBe(27 * 3600 + 4 * 60 + 5);
    expect(view.tps).toBe(19.5);
    expect(view.customState).toBe('INGAME');
    expect(view.isStatic).toBe(true);
    expect(view.healthy).toBe(true);
    expect(Value.Check(ServiceViewSchema, view)).toBe(true);
  });

  test('a start time in the future (clock skew) reads as just started, never negative', () => {
    const now = Date.UTC(2025, 0, 1);
    const view = serviceView(record({ startedAt: new Date(now + 5000) }), now);
    expect(view.uptime).toBe('0h 0m 0s');
    expect(view.uptimeSeconds).toBe(0);
  });
});
