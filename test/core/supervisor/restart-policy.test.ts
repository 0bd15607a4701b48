import { describe, expect, test } from 'bun:test';
import { decideRestart, type CrashFacts, type RestartDecision, type RestartPolicy } from '../../../src/core/supervisor/restart-policy';

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
    { kind: 'quarantine', reason: 'crash loop: 4 crashes in 1 min; the group is quarantined until an operator clears it' },
  ],
  ['crashes outside the window do not count', {}, { groupCrashTimes: [now - 90_000, now - 70_000, now - 10_000, now] }, { kind: 'restart', attempt: 1, delayMs: 0 }],
  [
    'the breaker wins over a fresh budget',
    {},
    { readyForMs: 700_000, groupCrashTimes: [now - 3, now - 2, now - 1, now] },
    { kind: 'quarantine', reason: 'crash loop: 4 crashes in 1 min; the group is quarantined until an operator clears it' },
  ],
  ['restartOnCrash off wins over the breaker', { restartOnCrash: false }, { groupCrashTimes: [now, now, now, now] }, { kind: 'no-restart', reason: 'restartOnCrash is off' }],
];

describe('decideRestart', () => {
  test.each(rows)('%s', (_name, p, f, expected) => {
    expect(decideRestart({ ...policy, ...p }, facts(f))).toEqual(expected);
  });
});
