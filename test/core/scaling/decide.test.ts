import { describe, expect, test } from 'bun:test';
import { decideScaling, effectiveBounds, type ScalingInput, type ServiceReading } from '../../../src/core/scaling/decide';

const NOW = 1_000_000;

const group = (over: Partial<ScalingInput['group']> = {}): ScalingInput['group'] => ({
  name: 'Lobby',
  minInstances: 1,
  maxInstances: 4,
  playersPerInstance: 10,
  scaleThreshold: 0.8,
  idleTimeout: 60,
  stopOnEmpty: false,
  ...over,
});

const svc = (n: number, over: Partial<ServiceReading> = {}): ServiceReading => ({
  name: `Lobby-${n}`,
  state: 'READY',
  customState: '',
  pooled: false,
  playerCount: 0,
  fresh: true,
  zeroReadings: 0,
  idleMs: 0,
  emptied: false,
  ...over,
});

const input = (over: Partial<ScalingInput>): ScalingInput => ({
  group: group(),
  services: [],
  pendingRestarts: 0,
  now: NOW,
  lastScaleUpAt: null,
  lastScaleDownAt: null,
  fits: 100,
  placement: 'max_services reached',
  upCooldownMs: 30_000,
  downCooldownMs: 120_000,
  ...over,
});

/** The decision kinds and their key figure, for compact table rows. */
const summary = (i: ScalingInput) =>
  decideScaling(i).map((d) => (d.kind === 'up' ? `up ${d.count} ${d.from}->${d.to}` : d.kind === 'down' ? `down ${d.service}` : d.kind));

describe('scaling decision table', () => {
  const cases: [string, ScalingInput, string[]][] = [
    // threshold: 8 players / 10 capacity = 0.8 is AT the threshold (strictly above is needed)
    ['fill just above the threshold scales up', input({ services: [svc(1, { playerCount: 9 })] }), ['up 1 1->2']],
    ['fill exactly at the threshold holds', input({ services: [svc(1, { playerCount: 8 })] }), ['hold']],
    ['fill below the threshold holds', input({ services: [svc(1, { playerCount: 7 })] }), ['hold']],
    ['threshold counts routable capacity only', input({ services: [svc(1, { playerCount: 9 }), svc(2, { customState: 'INGAME', playerCount: 0 })] }), ['up 1 2->3']],
    ['max reached: no scale-up even when full', input({ group: group({ maxInstances: 2 }), services: [svc(1, { playerCount: 10 }), svc(2, { playerCount: 10 })] }), ['hold']],
    ['min with zero routable (all in a game) starts one', input({ services: [svc(1, { customState: 'INGAME' })] }), ['up 1 1->2']],
    ['min 0 and nothing routable holds', input({ group: group({ minInstances: 0 }), services: [] }), ['hold']],
    ['below min refills every missing instance at once', input({ group: group({ minInstances: 3 }), services: [svc(1)] }), ['up 2 1->3']],
    ['refill ignores the scale-up cooldown', input({ group: group({ minInstances: 2 }), services: [svc(1)], lastScaleUpAt: NOW - 1000 }), ['up 1 1->2']],
    ['a pending crash restart counts toward min', input({ group: group({ minInstances: 2 }), services: [svc(1)], pendingRestarts: 1 }), ['hold']],
    ['refill is capped by maxInstances', input({ group: group({ minInstances: 3, maxInstances: 3 }), services: [svc(1), svc(2, { state: 'STOPPING' })] }), ['up 1 1->2']],
    ['a warm-pool instance is not running', input({ group: group({ minInstances: 2 }), services: [svc(1), svc(2, { state: 'PREPARED', pooled: true })] }), ['up 1 1->2']],
    ['up cooldown holds a load scale-up', input({ services: [svc(1, { playerCount: 10 })], lastScaleUpAt: NOW - 29_999 }), ['hold']],
    ['up cooldown over', input({ services: [svc(1, { playerCount: 10 })], lastScaleUpAt: NOW - 30_000 }), ['up 1 1->2']],
    ['nothing starts while one is still booting', input({ services: [svc(1, { playerCount: 10 }), svc(2, { state: 'STARTING' })] }), ['hold']],
    ['placement refuses a due scale-up', input({ services: [svc(1, { playerCount: 10 })], fits: 0 }), ['blocked']],
    ['placement refuses a refill', input({ group: group({ minInstances: 2 }), services: [svc(1)], fits: 0 }), ['blocked']],
    ['a refill places what fits and reports the rest blocked', input({ group: group({ minInstances: 4 }), services: [svc(1)], fits: 2 }), ['up 2 1->3', 'blocked']],
    // scale-down
    ['idle past the timeout with two zero readings scales down the last', input({ services: [svc(1, { zeroReadings: 2, idleMs: 61_000 }), svc(2, { zeroReadings: 2, idleMs: 61_000 })] }), ['down Lobby-2']],
    ['one zero reading is not enough', input({ services: [svc(1), svc(2, { zeroReadings: 1, idleMs: 61_000 })] }), ['hold']],
    ['idle exactly at the timeout holds', input({ services: [svc(1), svc(2, { zeroReadings: 2, idleMs: 60_000 })] }), ['hold']],
    ['a stale count never scales down', input({ services: [svc(1), svc(2, { fresh: false, zeroReadings: 5, idleMs: 600_000 })] }), ['hold']],
    ['idleTimeout 0 never scales down', input({ group: group({ idleTimeout: 0 }), services: [svc(1), svc(2, { zeroReadings: 9, idleMs: 1e9 })] }), ['hold']],
    ['never below minInstances', input({ group: group({ minInstances: 2 }), services: [svc(1, { zeroReadings: 2, idleMs: 1e9 }), svc(2, { zeroReadings: 2, idleMs: 1e9 })] }), ['hold']],
    ['custom state excluded from scale-down', input({ services: [svc(1), svc(2, { customState: 'INGAME', zeroReadings: 2, idleMs: 1e9 })] }), ['hold']],
    ['down cooldown holds', input({ services: [svc(1), svc(2, { zeroReadings: 2, idleMs: 1e9 })], lastScaleDownAt: NOW - 119_000 }), ['hold']],
    ['down cooldown over', input({ services: [svc(1), svc(2, { zeroReadings: 2, idleMs: 1e9 })], lastScaleDownAt: NOW - 120_000 }), ['down Lobby-2']],
    // stop-on-empty
    ['stop-on-empty stops an emptied instance and refills min', input({ group: group({ stopOnEmpty: true }), services: [svc(1, { emptied: true, zeroReadings: 1 })] }), ['down Lobby-1', 'up 1 0->1']],
    ['stop-on-empty ignores a never-used instance', input({ group: group({ stopOnEmpty: true }), services: [svc(1, { zeroReadings: 5 })] }), ['hold']],
    ['stop-on-empty off keeps an emptied instance', input({ services: [svc(1, { emptied: true, zeroReadings: 1 })] }), ['hold']],
  ];
  for (const [name, i, expected] of cases) {
    test(name, () => expect(summary(i)).toEqual(expected));
  }

  test('every decision says why, with the figures', () => {
    const [up] = decideScaling(input({ services: [svc(1, { playerCount: 9 })] }));
    expect(up).toMatchObject({ kind: 'up', reason: expect.stringContaining('9 players on 1 routable (capacity 10, fill 0.90, threshold 0.8)') });
    const [hold] = decideScaling(input({ group: group({ maxInstances: 1 }), services: [svc(1, { playerCount: 10 })] }));
    expect(hold).toMatchObject({ kind: 'hold', reason: expect.stringContaining('at maxInstances') });
    const [blocked] = decideScaling(input({ services: [svc(1, { playerCount: 10 })], fits: 0, placement: 'max_services reached: 20 of 20' }));
    expect(blocked).toEqual({ kind: 'blocked', reason: 'max_services reached: 20 of 20' });
  });
});

describe('effective bounds under an override (smart scaling)', () => {
  const own = { minInstances: 1, maxInstances: 6 };
  const cases: [string, Parameters<typeof effectiveBounds>[1], { minInstances: number; maxInstances: number }][] = [
    ['no override: the group\'s own', null, { minInstances: 1, maxInstances: 6 }],
    ['a higher minimum raises it', { minInstances: 3, maxInstances: null, source: 'r' }, { minInstances: 3, maxInstances: 6 }],
    ['a lower minimum never lowers the group\'s own', { minInstances: 0, maxInstances: null, source: 'r' }, { minInstances: 1, maxInstances: 6 }],
    ['a minimum above the group\'s maximum is capped there', { minInstances: 9, maxInstances: null, source: 'r' }, { minInstances: 6, maxInstances: 6 }],
    ['a rule maximum lowers the maximum and caps the minimum', { minInstances: 5, maxInstances: 4, source: 'r' }, { minInstances: 4, maxInstances: 4 }],
    ['a rule maximum never raises the group\'s own', { minInstances: 2, maxInstances: 10, source: 'r' }, { minInstances: 2, maxInstances: 6 }],
    ['a rule maximum below the group\'s minimum stops there', { minInstances: 0, maxInstances: 0, source: 'r' }, { minInstances: 1, maxInstances: 1 }],
  ];
  test.each(cases)('%s', (_name, override, expected) => {
    expect(effectiveBounds(own, override)).toEqual(expected);
  });

  test('the refill names what set the minimum, and is marked as a minimum refill; scale-down stops at it', () => {
    const raised = input({ group: group({ minInstances: 3 }), services: [svc(1)], minimumSource: 'schedule rule "evening"' });
    expect(decideScaling(raised)).toEqual([{ kind: 'up', count: 2, from: 1, to: 3, reason: 'below the minimum of schedule rule "evening" (1 of 3)', cause: 'minimum' }]);
    const idle = input({ group: group({ minInstances: 2 }), services: [svc(1, { zeroReadings: 3, idleMs: 999_999 }), svc(2, { zeroReadings: 3, idleMs: 999_999 })], minimumSource: 'schedule rule "evening"' });
    expect(decideScaling(idle)).toEqual([{ kind: 'hold', reason: expect.stringContaining('routable 2 ≤ the minimum of schedule rule "evening" 2') }]);
    // The same readings without the raised minimum: the idle one goes.
    expect(decideScaling({ ...idle, group: group({ minInstances: 1 }), minimumSource: undefined })[0]).toMatchObject({ kind: 'down', service: 'Lobby-2' });
  });
});
