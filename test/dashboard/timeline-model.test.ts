import { describe, expect, test } from 'bun:test';
import { buildTimeline, changesTimeline, type HeardEvent, type KeptStep } from '../../src/dashboard/app/pages/service/timeline-model';
import type { ServiceRecord } from '../../src/dashboard/app/pages/service/model';

/** The service page's timeline: the kept steps, the events heard live, and the record, merged. */
describe('the timeline from the kept steps, the live events and the record', () => {
  const T = Date.parse('2026-11-28T12:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  const heard = (type: string, at: number, data: Record<string, string> = {}, heardAt = at + 50): HeardEvent => ({ event: { type, timestamp: iso(at), data: { service: 'Lobby-1', ...data } }, heardAt });
  const kept = (type: string, at: number, actor: string, data: Record<string, string> = {}): KeptStep => ({ timestamp: iso(at), type, actor, data: { service: 'Lobby-1', ...data } });
  const record = (over: Partial<ServiceRecord>): ServiceRecord =>
    ({ name: 'Lobby-1', groupName: 'Lobby', state: 'READY', customState: null, nodeId: 'local', playerCount: 0, memoryUsedMb: 40, memoryMaxMb: 1024, startedAt: iso(T), isDedicated: false, diagnosis: null, quarantined: false, port: 30000, host: '127.0.0.1', pid: 1, healthy: true, restartCount: 0, isStatic: false, ...over }) as ServiceRecord;
  const view = (items: ReturnType<typeof buildTimeline>) => items.map((i) => `${i.label}|${i.actor}|${i.at === null ? 'earlier' : i.at - T}`);

  test('kept steps with who caused them, a live event already kept shown once, newest first', () => {
    const steps = [kept('SERVICE_READY', T + 1500, 'system'), kept('SERVICE_STARTING', T, 'api:admin', { port: '30000', node: 'local' })];
    const items = buildTimeline({ steps, readAt: T + 2000 }, [heard('SERVICE_READY', T + 1500)], record({}));
    expect(view(items)).toEqual(['READY|system|1500', 'Starting|api:admin|0']);
    expect(items[1]!.detail).toBe('on port 30000');
  });

  test('a step heard after the read waits for the next read to say who; absent from it, it was not recorded', () => {
    const stop = heard('SERVICE_STOPPING', T + 9000);
    const steps = [kept('SERVICE_STARTING', T, 'api:admin')];
    expect(view(buildTimeline({ steps, readAt: T + 100 }, [stop], null))).toEqual(['Stopping|null|9000', 'Starting|api:admin|0']);
    expect(view(buildTimeline({ steps: [kept('SERVICE_STOPPING', T + 9000, 'dashboard:Alex'), ...steps], readAt: T + 9500 }, [stop], null))).toEqual(['Stopping|dashboard:Alex|9000', 'Starting|api:admin|0']);
    expect(view(buildTimeline({ steps, readAt: T + 9500 }, [stop], null))).toEqual(['Stopping|unrecorded|9000', 'Starting|api:admin|0']);
  });

  test('a run the controller kept nothing of: its start from the record, READY without a time', () => {
    expect(view(buildTimeline({ steps: [], readAt: T + 5000 }, [], record({})))).toEqual(['READY|system|earlier', 'Started|unrecorded|0']);
  });

  test('a crash carries the record’s diagnosis, and the start after it is a restart', () => {
    const crashed = record({ state: 'STARTING', startedAt: iso(T + 3000), diagnosis: 'the port was taken' });
    const steps = [kept('SERVICE_STARTING', T + 3000, 'system'), kept('SERVICE_CRASHED', T + 2000, 'system', { exitCode: '1', restartAttempt: '1' })];
    const items = buildTimeline({ steps, readAt: T + 9000 }, [], crashed);
    expect(view(items)).toEqual(['Restarted after the crash|system|3000', 'Crashed|system|2000']);
    expect(items[1]!.detail).toBe('exit code 1, restart attempt 1: the port was taken');
  });

  test('the autoscaler’s start and stop with its reason, a migration to another node, and backups', () => {
    const steps = [
      kept('BACKUP_COMPLETED', T + 50_000, 'scheduler', { id: '7', sizeBytes: String(3 * 1_048_576), durationMs: '2500' }),
      kept('SERVICE_STARTING', T + 40_000, 'api:admin', { port: '30004', node: 'node-b' }),
      kept('SERVICE_STOPPED', T + 39_000, 'system'),
      kept('SERVICE_STOPPING', T + 38_000, 'api:admin'),
      kept('SERVICE_READY', T + 2_000, 'system'),
      kept('SERVICE_STARTING', T, 'autoscaler', { port: '30000', node: 'local', reason: 'players 40/50' }),
    ];
    const items = buildTimeline({ steps, readAt: T + 60_000 }, [], null);
    expect(view(items)).toEqual([
      'Backed up|scheduler|50000',
      'Moved to node node-b|api:admin|40000',
      'Stopped|system|39000',
      'Stopping|api:admin|38000',
      'READY|system|2000',
      'Starting|autoscaler|0',
    ]);
    expect(items[0]!.detail).toBe('#7, 3.0 MiB in 2.5 s');
    expect(items[1]!.detail).toBe('on port 30004 of node node-b');
    expect(items[5]!.detail).toBe('on port 30000 (players 40/50)');
  });

  test('what has the kept timeline read again: its own steps and its backups, not other services or players', () => {
    expect(changesTimeline({ type: 'SERVICE_READY', timestamp: iso(T), data: { service: 'Lobby-1' } }, 'Lobby-1')).toBe(true);
    expect(changesTimeline({ type: 'BACKUP_COMPLETED', timestamp: iso(T), data: { id: '7', targetName: 'Lobby-1' } }, 'Lobby-1')).toBe(true);
    expect(changesTimeline({ type: 'SERVICE_READY', timestamp: iso(T), data: { service: 'Lobby-2' } }, 'Lobby-1')).toBe(false);
    expect(changesTimeline({ type: 'PLAYER_CONNECTED', timestamp: iso(T), data: { service: 'Lobby-1', player: 'Steve' } }, 'Lobby-1')).toBe(false);
  });
});
