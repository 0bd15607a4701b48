/**
 * Units whose default clock is the monotonic one: a step of the wall clock (mocked here, as
 * NTP or `date -s` would move it) changes nothing they measure. Their fake-clock tests live
 * beside each unit; these check the default each one is built with.
 */
import { afterAll, afterEach, beforeEach, describe, expect, spyOn, test, type Mock } from 'bun:test';
import { join } from 'node:path';
import { Confirmations } from '../../../src/core/commands/confirmations';
import { LocationLookup } from '../../../src/core/commands/location';
import { UpdateCheck } from '../../../src/core/info/update-check';
import { ChunkedUploads } from '../../../src/core/modpacks/chunked-uploads';
import { ImportJobs } from '../../../src/core/modpacks/jobs';
import { TtlCache } from '../../../src/core/software/upstream/ttl-cache';
import { EventBus } from '../../../src/events/bus';
import { createLogger } from '../../../src/log';
import { tempDir } from '../../support/controller';

const DAY = 24 * 3_600_000;
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });
const tmp = tempDir('svc-wall-step-');
afterAll(() => tmp.remove());

let wall: Mock<() => number>;
const real = Date.now();
/** Moves the mocked wall clock by `ms` from where it is. */
const step = (ms: number) => wall.mockReturnValue(Date.now() + ms);
beforeEach(() => {
  wall = spyOn(Date, 'now').mockReturnValue(real);
});
afterEach(() => wall.mockRestore());

describe('a wall-clock step changes no duration', () => {
  test('Confirmations: a confirmation within its window still confirms after a step forward of a day', () => {
    const confirmations = new Confirmations();
    confirmations.request('console');
    step(DAY);
    expect(confirmations.confirm('console')).toBe(true);
    confirmations.request('console');
    step(-DAY);
    expect(confirmations.confirm('console')).toBe(true);
  });

  test('TtlCache: a value is neither thrown away by a step forward nor kept longer by a step back', async () => {
    const cache = new TtlCache<number>(60_000);
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('k', load);
    step(DAY);
    expect(await cache.get('k', load)).toBe(1);
    step(-2 * DAY);
    expect(await cache.get('k', load)).toBe(1);
    expect(loads).toBe(1);
  });

  test('LocationLookup: a cached answer survives a step forward', async () => {
    let asked = 0;
    const lookup = new LocationLookup(
      () => 'http://geo.invalid/{ip}',
      async () => {
        asked++;
        return Response.json({ city: 'Berlin', country: 'Germany' });
      },
    );
    const first = await lookup.locate('8.8.8.8');
    step(DAY);
    expect(await lookup.locate('8.8.8.8')).toBe(first);
    expect(asked).toBe(1);
  });

  test('UpdateCheck: a step forward of a day does not start another check', async () => {
    let calls = 0;
    const feed = (async () => {
      calls++;
      return Response.json({ tag_name: 'v0.13.0' });
    }) as unknown as typeof fetch;
    const check = new UpdateCheck({ url: 'http://updates.invalid/latest', currentVersion: '0.13.0', bus: new EventBus(log), log, fetch: feed });
    check.status();
    await check.settled();
    step(DAY);
    check.status();
    await check.settled();
    expect(calls).toBe(1);
  });

  test('ImportJobs: a finished job stays listed through a step forward', async () => {
    const jobs = new ImportJobs<string>(60_000, () => undefined);
    const view = jobs.start('group', 'Pack', async () => 'done');
    expect(await jobs.settle(view.jobId, 1000)).toBe('done');
    step(DAY);
    jobs.start('group', 'Other', async () => 'done'); // starting a job prunes the finished ones
    expect(jobs.get(view.jobId)?.state).toBe('succeeded');
  });

  test('ChunkedUploads: an upload in progress is not swept by a step forward; its expiry shows on the wall clock', async () => {
    const uploads = new ChunkedUploads({ dir: join(tmp.dir, 'uploads'), ttlMs: 3_600_000, maxBytes: 1000, maxChunkBytes: 300 });
    uploads.reset();
    const view = await uploads.init(null, 'pack.zip', 10);
    expect(Date.parse(view.expiresAt) - Date.now()).toBeGreaterThan(3_600_000 - 1000);
    step(DAY);
    expect(await uploads.sweep()).toBe(0);
  });
});
