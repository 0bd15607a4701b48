import { describe, expect, test } from 'bun:test';
import { closedByRestart, emptiedByReport, proxiesGone, REPORT_GRACE_MS, type ServiceView } from '../../../src/modules/players/reconcile';

const svc = (name: string, state: ServiceView['state'], extra: Partial<ServiceView> = {}): ServiceView => ({ name, state, isProxy: false, playerCount: 0, playersReportedAt: null, ...extra });
const proxy = (name: string, state: ServiceView['state']) => svc(name, state, { isProxy: true });
const session = (service: string, connectedAt = 1_000) => ({ service, connectedAt });

describe('proxiesGone', () => {
  test.each([
    ['no proxy supervised (an external one feeds the bridge)', [svc('Lobby-1', 'READY')], false],
    ['a proxy READY', [proxy('Proxy-1', 'READY')], false],
    ['a proxy STARTING again', [proxy('Proxy-1', 'STARTING')], false],
    ['one of two proxies crashed', [proxy('Proxy-1', 'CRASHED'), proxy('Proxy-2', 'DRAINING')], false],
    ['every proxy stopped or crashed', [proxy('Proxy-1', 'STOPPED'), proxy('Proxy-2', 'CRASHED')], true],
  ] as const)('%s → %p', (_, services, gone) => {
    expect(proxiesGone(services)).toBe(gone);
  });
});

describe('closedByRestart', () => {
  const open = [session('Lobby-1'), session('Lobby-2'), session('Gone-1'), session('Drain-1'), session('Boot-1')];
  test('keeps sessions on READY and DRAINING services; closes those on unknown, stopped, crashed or restarting ones', () => {
    const services = [svc('Lobby-1', 'READY'), svc('Lobby-2', 'CRASHED'), svc('Drain-1', 'DRAINING'), svc('Boot-1', 'STARTING'), proxy('Proxy-1', 'READY')];
    expect(closedByRestart(open, services).map((s) => s.service)).toEqual(['Lobby-2', 'Gone-1', 'Boot-1']);
  });
  test('closes every session when the supervised proxies are all gone', () => {
    expect(closedByRestart(open, [svc('Lobby-1', 'READY'), proxy('Proxy-1', 'CRASHED')])).toHaveLength(open.length);
  });
  test('nothing open, nothing to close', () => {
    expect(closedByRestart([], [svc('Lobby-1', 'READY')])).toEqual([]);
  });
});

describe('emptiedByReport', () => {
  const t0 = 1_000_000;
  test.each([
    ['a report of 0 long after the join closes it at the report', svc('A', 'READY', { playersReportedAt: t0 + REPORT_GRACE_MS, playerCount: 0 }), t0 + REPORT_GRACE_MS],
    ['a report of 0 within the grace (the join is still on its way) keeps it', svc('A', 'READY', { playersReportedAt: t0 + REPORT_GRACE_MS - 1, playerCount: 0 }), null],
    ['a report of players keeps it', svc('A', 'READY', { playersReportedAt: t0 + 10 * REPORT_GRACE_MS, playerCount: 3 }), null],
    ['no SDK report ever keeps it', svc('A', 'READY'), null],
    ['a proxy report never closes a backend session', svc('A', 'READY', { isProxy: true, playersReportedAt: t0 + 10 * REPORT_GRACE_MS }), null],
  ] as const)('%s', (_, service, at) => {
    const result = emptiedByReport([session('A', t0)], [service]);
    expect(result.length ? result[0]!.at : null).toBe(at);
  });
  test('a session on a service the registry does not know is left to the restart rule', () => {
    expect(emptiedByReport([session('Nowhere-1', 0)], [svc('A', 'READY', { playersReportedAt: 10 * REPORT_GRACE_MS })])).toEqual([]);
  });
});
