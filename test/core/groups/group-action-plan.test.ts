import { describe, expect, test } from 'bun:test';
import { planGroupAction, type PlanInstance } from '../../../src/core/groups/actions/plan';

const group = (minInstances: number, maxInstances: number) => ({ name: 'Lobby', minInstances, maxInstances });
const ready = (...names: string[]): PlanInstance[] => names.map((name) => ({ name, state: 'READY' }));
const shape = (plan: ReturnType<typeof planGroupAction>) => plan.steps.map((s) => `${s.does}:${s.service ?? 'new'}+${s.waitSeconds}`);

describe('group action plans', () => {
  test.each([
    // [what, min, max, instances, request, steps, refusal]
    ['start 2 with room for 3', 0, 4, ready('Lobby-1'), { action: 'start', count: 2 }, ['start:new+0', 'start:new+0'], undefined],
    ['start more than the room', 0, 2, ready('Lobby-1'), { action: 'start', count: 2 }, [], 'group Lobby runs 1 of its maximum of 2 instance(s): there is room for 1, not 2'],
    ['start at the maximum', 0, 1, ready('Lobby-1'), { action: 'start' }, [], 'group Lobby runs 1 of its maximum of 1 instance(s): there is no room for another'],
    ['rolling restart above the minimum: in place, in name order, the stagger between', 1, 3, ready('Lobby-10', 'Lobby-2', 'Lobby-1'), { action: 'restart', staggerSeconds: 5 }, ['restart:Lobby-1+0', 'restart:Lobby-2+5', 'restart:Lobby-10+5'], undefined],
    ['rolling restart at the minimum with room: each replaced by a new one first', 2, 3, ready('Lobby-1', 'Lobby-2'), { action: 'restart' }, ['surge:Lobby-1+0', 'surge:Lobby-2+0'], undefined],
    ['rolling restart at the minimum and the maximum: refused', 2, 2, ready('Lobby-1', 'Lobby-2'), { action: 'restart' }, [], 'group Lobby runs 2 instance(s), its minimum (2 READY) and its maximum (2) at once: a rolling restart cannot keep 2 READY; raise its maximum by one'],
    ['restart with nothing READY', 0, 2, [{ name: 'Lobby-1', state: 'STARTING' }], { action: 'restart' }, [], 'group Lobby has no READY instance to restart'],
    ['stop all, crashed and stopped ones aside', 0, 3, [...ready('Lobby-2', 'Lobby-1'), { name: 'Lobby-3', state: 'CRASHED' }], { action: 'stop' }, ['stop:Lobby-1+0', 'stop:Lobby-2+0'], undefined],
    ['stop with nothing running', 0, 3, [{ name: 'Lobby-3', state: 'CRASHED' }], { action: 'stop' }, [], 'group Lobby has no instance running'],
  ] as const)('%s', (_what, min, max, instances, request, steps, refusal) => {
    const plan = planGroupAction(group(min, max), instances, request);
    expect(shape(plan)).toEqual([...steps]);
    expect(plan.refusal).toBe(refusal);
  });

  test('what the operator is told: one not READY is left alone; a surge says why; a stop of a group with a minimum says it comes back', () => {
    expect(planGroupAction(group(0, 3), [...ready('Lobby-1'), { name: 'Lobby-2', state: 'STARTING' }], { action: 'restart' }).warnings).toEqual(['Lobby-2 is STARTING: left alone']);
    expect(planGroupAction(group(1, 2), ready('Lobby-1'), { action: 'restart' }).warnings[0]).toContain('started first, before it stops');
    const stop = planGroupAction(group(1, 2), ready('Lobby-1'), { action: 'stop', drain: false });
    expect(stop.warnings).toEqual(['not drained: players on them are disconnected', "the group's minimum is 1: the autoscaler starts that many again; set its minimum to 0 to keep it stopped"]);
  });
});
