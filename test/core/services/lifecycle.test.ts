import { describe, expect, test } from 'bun:test';
import { SERVICE_STATES, transition, type ServiceState } from '../../../src/core/services/lifecycle';

/** The reference table, written out independently of the implementation. */
const ALLOWED: Record<ServiceState, ServiceState[]> = {
  PREPARING: ['PREPARED', 'STARTING', 'STOPPING', 'STOPPED', 'CRASHED'],
  PREPARED: ['STARTING', 'STOPPING', 'STOPPED'],
  STARTING: ['READY', 'STOPPING', 'CRASHED', 'STOPPED'],
  READY: ['DRAINING', 'STOPPING', 'STOPPED', 'CRASHED'],
  DRAINING: ['STOPPING', 'STOPPED', 'CRASHED'],
  STOPPING: ['STOPPED', 'CRASHED'],
  STOPPED: ['CRASHED'],
  CRASHED: ['PREPARING', 'STOPPING', 'STOPPED'],
};

describe('service lifecycle: every pair of states', () => {
  const rows = SERVICE_STATES.flatMap((from) => SERVICE_STATES.map((to) => [from, to] as const));
  test.each(rows)('%s → %s', (from, to) => {
    const result = transition(from, to);
    if (from === to) expect(result).toEqual({ ok: true, changed: false });
    else if (ALLOWED[from].includes(to)) expect(result).toEqual({ ok: true, changed: true });
    else expect(result).toEqual({ ok: false, reason: `a ${from} service cannot become ${to}` });
  });

  test('64 pairs, 25 allowed moves', () => {
    expect(rows.length).toBe(64);
    expect(rows.filter(([f, t]) => f !== t && transition(f, t).ok).length).toBe(25);
  });
});
