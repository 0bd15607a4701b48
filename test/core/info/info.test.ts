import { describe, expect, test } from 'bun:test';
import { parseChangelog } from '../../../src/core/info/changelog';
import { UpdateCheck, updateTypeOf } from '../../../src/core/info/update-check';
import { EventBus } from '../../../src/events/bus';
import { createLogger } from '../../../src/log';

const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });

describe('updateTypeOf', () => {
  const cases: [string, string, ReturnType<typeof updateTypeOf>][] = [
    ['0.13.0', '1.0.0', 'MAJOR'],
    ['0.13.0', '0.14.0', 'MINOR'],
    ['0.13.0', 'v0.13.2', 'PATCH'],
    ['0.13.0', '0.13.0', null],
    ['0.13.1', '0.13.0', null],
    ['1.2.0', '0.9.9', null],
    ['0.13.0', 'nightly', null],
  ];
  for (const [current, latest, expected] of cases) test(`${current} → ${latest}: ${expected}`, () => expect(updateTypeOf(current, latest)).toBe(expected));
});

describe('UpdateCheck', () => {
  test('never waits: unknown first, the answer afterwards, announced once', async () => {
    let calls = 0;
    let now = 0;
    const fake = (async () => {
      calls++;
      return Response.json({ tag_name: 'v0.14.1', html_url: 'https://github.com/example/svc/releases/tag/v0.14.1' });
    }) as unknown as typeof fetch;
    const bus = new EventBus(log);
    const events: Record<string, string>[] = [];
    bus.subscribe((e) => e.type === 'SVC_UPDATE_AVAILABLE' && events.push(e.data));
    const check = new UpdateCheck({ url: 'http://updates.invalid/latest', currentVersion: '0.13.0', bus, log, fetch: fake, now: () => now });
    expect(check.status()).toEqual({ updateAvailable: false, latestVersion: null, updateType: null, releaseUrl: null });
    await check.settled();
    expect(check.status()).toEqual({ updateAvailable: true, latestVersion: '0.14.1', updateType: 'MINOR', releaseUrl: 'https://github.com/example/svc/releases/tag/v0.14.1' });
    expect(events).toEqual([{ currentVersion: '0.13.0', newVersion: '0.14.1', updateType: 'MINOR' }]);
    expect(calls).toBe(1);
    now += 7 * 3600 * 1000; // past the 6 h period: asked again, not announced again
    check.status();
    await check.settled();
    expect(calls).toBe(2);
    expect(events).toHaveLength(1);
  });

  test('releaseUrl is only an http(s) URL from the feed; anything else is null', async () => {
    for (const [html_url, expected] of [['javascript:alert(1)', null], ['not a url', null], [42, null], ['http://mirror.example/r/0.14.1', 'http://mirror.example/r/0.14.1']] as const) {
      const feed = (async () => Response.json({ tag_name: '0.14.1', html_url })) as unknown as typeof fetch;
      const check = new UpdateCheck({ url: 'http://updates.invalid/latest', currentVersion: '0.13.0', bus: new EventBus(log), log, fetch: feed });
      check.status();
      await check.settled();
      expect(check.status().releaseUrl).toBe(expected);
    }
  });

  test('a failing upstream keeps the last answer and waits before asking again; no URL, no check', async () => {
    let calls = 0;
    let now = 0;
    const down = (async () => {
      calls++;
      throw new Error('connection refused');
    }) as unknown as typeof fetch;
    const check = new UpdateCheck({ url: 'http://updates.invalid/latest', currentVersion: '0.13.0', bus: new EventBus(log), log, fetch: down, now: () => now });
    check.status();
    await check.settled();
    check.status();
    await check.settled();
    expect(calls).toBe(1);
    now += 11 * 60 * 1000;
    check.status();
    await check.settled();
    expect(calls).toBe(2);
    expect(check.status().latestVersion).toBeNull();
    const off = new UpdateCheck({ url: '', currentVersion: '0.13.0', bus: new EventBus(log), log, fetch: down });
    off.status();
    await off.settled();
    expect(calls).toBe(2);
  });
});

describe('parseChangelog', () => {
  test('one entry per release heading, title from the first prose line with the release date (the dashboard\'s "Released …"), body without the heading', () => {
    const entries = parseChangelog(`# Changelog\n\nIntro.\n\n## 0.14.1\n\nA fix.\n\n## 0.14.0 (2026-12-01)\n\nClusters for everyone.\n\n- agents\n- migrate\n\n## 0.13.0 (unreleased)\n\n- only bullets\n`);
    expect(entries).toEqual([
      { version: '0.14.1', title: 'A fix.', body: 'A fix.' },
      { version: '0.14.0', title: 'Clusters for everyone. (2026-12-01)', body: 'Clusters for everyone.\n\n- agents\n- migrate' },
      // Unreleased: no date, so no "(…)" the dashboard would read as one.
      { version: '0.13.0', title: 'svc 0.13.0', body: '- only bullets' },
    ]);
  });
});
