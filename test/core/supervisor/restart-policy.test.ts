import { describe, expect, test } from 'bun:test';
import { crashesInWindow, decideRestart, DEFAULT_RESTART_TIMING, type CrashFacts, type RestartDecision, type RestartPolicy } from '../../../src/core/supervisor/restart-policy';

const policy: RestartPolicy = {
  restartOnCrash: true,
  maxRestarts: 5,
  baseDelayMs: 1000,
  maxDelayMs: 10_000,
  loopThreshold: 4,
  loopWindowMs: 60_000,
  stableAfterMs: 600_000,
};
const now = 1_000_000;
const facts = (f: Partial<CrashFacts>): CrashFacts => ({ restartCount: 0, readyForMs: 0, groupCrashTimes: [now], now, ...f });

const rows: [string, Partial<RestartPolicy>, Partial<CrashFacts>, RestartDecision][] = [
  ['first crash restarts at once', {}, {}, { kind: 'restart', attempt: 1, delayMs: 0 }],
  ['second crash in a row waits the base delay', {}, { restartCount: 1 }, { kind: 'restart', attempt: 2, delayMs: 1000 }],
  ['third crash doubles', {}, { restartCount: 2 }, { kind: 'restart', attempt: 3, delayMs: 2000 }],
  ['fourth crash doubles again', {}, { restartCount: 3 }, { kind: 'restart', attempt: 4, delayMs: 4000 }],
  ['backoff is capped', { maxRestarts: 20 }, { restartCount: 9 }, { kind: 'restart', attempt: 10, delayMs: 10_000 }],
  ['the last allowed restart', {}, { restartCount: 4 }, { kind: 'restart', attempt: 5, delayMs: 8000 }],
  ['restarts used up', {}, { restartCount: 5 }, { kind: 'no-restart', reason: 'gave up after 5 restarts' }],
  ['maxRestarts 0 never restarts', { maxRestarts: 0 }, {}, { kind: 'no-restart', reason: 'gave up after 0 restarts' }],
  ['restartOnCrash off', { restartOnCrash: false }, { restartCount: 0 }, { kind: 'no-restart', reason: 'restartOnCrash is off' }],
  ['a long stable run earns a fresh budget', {}, { restartCount: 5, readyForMs: 600_000 }, { kind: 'restart', attempt: 1, delayMs: 0 }],
  ['a short run does not', {}, { restartCount: 5, readyForMs: 599_999 }, { kind: 'no-restart', reason: 'gave up after 5 restarts' }],
  [
    'crash loop in the window quarantines the group',
    {},
    { groupCrashTimes: [now - 50_000, now - 30_000, now - 10_000, now] },
    { kind: 'quarantine', reason: 'crash loop: 4 crashes within 1 min', crashes: 4 },
  ],
  ['one crash fewer than the threshold restarts', {}, { groupCrashTimes: [now - 30_000, now - 10_000, now] }, { kind: 'restart', attempt: 1, delayMs: 0 }],
  ['crashes outside the window do not count', {}, { groupCrashTimes: [now - 90_000, now - 70_000, now - 10_000, now] }, { kind: 'restart', attempt: 1, delayMs: 0 }],
  ['a crash exactly at the window edge counts', {}, { groupCrashTimes: [now - 60_000, now - 2, now - 1, now] }, { kind: 'quarantine', reason: 'crash loop: 4 crashes within 1 min', crashes: 4 }],
  // Times come from a monotonic clock; one from after `now` (another clock) is not a crash of this window.
  ['times after now are ignored', {}, { groupCrashTimes: [now + 1, now + 2, now + 3, now] }, { kind: 'restart', attempt: 1, delayMs: 0 }],
  ['a window in seconds says so', { loopWindowMs: 90_000 }, { groupCrashTimes: [now - 3, now - 2, now - 1, now] }, { kind: 'quarantine', reason: 'crash loop: 4 crashes within 90 s', crashes: 4 }],
  [
    'the breaker wins over a fresh budget',
    {},
    { readyForMs: 700_000, groupCrashTimes: [now - 3, now - 2, now - 1, now] },
    { kind: 'quarantine', reason: 'crash loop: 4 crashes within 1 min', crashes: 4 },
  ],
  // The minInstances refill starts a group that is never restarted on a crash: its loop counts too.
  ['the breaker wins over restartOnCrash off', { restartOnCrash: false }, { groupCrashTimes: [now, now, now, now] }, { kind: 'quarantine', reason: 'crash loop: 4 crashes within 1 min', crashes: 4 }],
  ['the breaker wins over restarts used up', {}, { restartCount: 5, groupCrashTimes: [now, now, now, now] }, { kind: 'quarantine', reason: 'crash loop: 4 crashes within 1 min', crashes: 4 }],
  ['restartOnCrash off below the threshold', { restartOnCrash: false }, { groupCrashTimes: [now, now, now] }, { kind: 'no-restart', reason: 'restartOnCrash is off' }],
  ['a quarantined group is never restarted', {}, { quarantined: true }, { kind: 'no-restart', reason: 'the group is quarantined' }],
  ['a quarantined group is not quarantined again', {}, { quarantined: true, groupCrashTimes: [now, now, now, now, now] }, { kind: 'no-restart', reason: 'the group is quarantined' }],
];

describe('decideRestart', () => {
  test.each(rows)('%s', (_name, p, f, expected) => {
    expect(decideRestart({ ...policy, ...p }, facts(f))).toEqual(expected);
  });
});

/**
 * The fault of issue 38: a group with restartOnCrash = false whose minInstances refill started it
 * again every ~10 s crashed 25 times in 4 minutes. With the default timing the breaker trips at
 * the 10th crash, whoever started the instance.
 */
describe('a crash loop fed crash by crash, as the supervisor keeps its history', () => {
  const run = (p: RestartPolicy, everyMs: number, crashes: number) => {
    let kept: number[] = [];
    const decisions: RestartDecision[] = [];
    for (let i = 0; i < crashes; i++) {
      const at = 5_000 + i * everyMs;
      kept = crashesInWindow([...kept, at], at, p.loopWindowMs);
      decisions.push(decideRestart(p, { restartCount: 0, readyForMs: 0, groupCrashTimes: kept, now: at, quarantined: decisions.some((d) => d.kind === 'quarantine') }));
    }
    return decisions;
  };
  const defaults: RestartPolicy = { restartOnCrash: false, maxRestarts: 5, ...DEFAULT_RESTART_TIMING };

  test.each([
    ['restartOnCrash off, refilled every 10 s', defaults, 10_000, 25, 10],
    ['restartOnCrash on, a crash every 20 s', { ...defaults, restartOnCrash: true }, 20_000, 25, 10],
    ['one crash a minute never trips it (5 in any 5 min)', defaults, 60_000, 25, null],
    ['a crash every 30 s trips it at the 10th', defaults, 30_000, 25, 10],
  ] as const)('%s', (_name, p, everyMs, crashes, trippedAt) => {
    const decisions = run(p, everyMs, crashes);
    const first = decisions.findIndex((d) => d.kind === 'quarantine');
    expect(first === -1 ? null : first + 1).toBe(trippedAt);
    // Tripped once; every crash after it is "quarantined", never restarted nor quarantined again.
    if (trippedAt !== null) expect(decisions.slice(first + 1).every((d) => d.kind === 'no-restart' && d.reason === 'the group is quarantined')).toBe(true);
  });

  test('the kept history never grows past the window', () => {
    let kept: number[] = [];
    for (let i = 0; i < 1000; i++) kept = crashesInWindow([...kept, i * 1000], i * 1000, 60_000);
    expect(kept.length).toBe(61);
  });
});
