import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { CliSessionStore } from '../../../src/core/commands/cli-sessions';
import { isLocalAddress, LocationLookup, placeOf } from '../../../src/core/commands/location';
import { openDatabase } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../../src/storage/core-migrations';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

describe('CliSessionStore (real sqlite)', () => {
  test('open, close with duration and count; sessions a killed controller left open are closed at the next start', () => {
    const { dir, remove } = tempDir();
    const db = openDatabase(join(dir, 'svc.db'));
    cleanups.push(() => (db.close(), remove()));
    migrate(db, 'core', CORE_MIGRATIONS);
    const store = new CliSessionStore(db);
    const client = { username: 'alice', hostname: 'laptop', os: 'Linux' };
    store.open({ id: 'a', remoteIp: '10.0.0.1', client, location: 'unknown', at: 1_000 });
    store.open({ id: 'b', remoteIp: '10.0.0.2', client, location: 'unknown', at: 2_000 });
    expect(store.close('a', 62_400, 7)).toBe(61);
    expect(store.closeDangling(12_000)).toBe(1);
    const [b, a] = store.recent(10);
    expect(a).toMatchObject({ id: 'a', disconnectedAt: 62_400, durationSeconds: 61, commandCount: 7 });
    expect(b).toMatchObject({ id: 'b', disconnectedAt: 12_000, durationSeconds: 10, commandCount: 0 });
    expect(store.closeDangling(99_000)).toBe(0);
  });
});

describe('LocationLookup', () => {
  test.each([
    [{ status: 'success', city: 'Reykjavik', regionName: 'Capital Region', country: 'Iceland' }, 'Reykjavik, Capital Region, Iceland'],
    [{ city: 'Berlin', region: 'Land Berlin', country_name: 'Germany', country: 'DE' }, 'Berlin, Land Berlin, Germany'],
    [{ city: 'Paris', region: 'Paris', country: 'FR' }, 'Paris, FR'],
    [{ error: true, reason: 'RateLimited' }, 'unknown'],
    [{ city: '  ', country: 42 }, 'unknown'],
  ])('place of %j is %j', (answer, place) => {
    expect(placeOf(answer)).toBe(place);
  });

  test.each([
    ['127.0.0.1', true],
    ['::1', true],
    ['::ffff:192.168.1.4', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['172.32.0.1', false],
    ['fd00::1', true],
    ['203.0.113.9', false],
    ['2001:db8::1', false],
    ['unknown', true],
  ])('%s is local: %p', (ip, local) => {
    expect(isLocalAddress(ip)).toBe(local);
  });

  test('no URL means "unknown"; local addresses never leave; answers are cached; failures are "unknown"', async () => {
    const asked: string[] = [];
    let url = '';
    let fail = false;
    const lookup = new LocationLookup(
      () => url,
      async (target) => {
        asked.push(target);
        if (fail) throw new Error('network down');
        return Response.json({ city: 'Oslo', country: 'Norway' });
      },
    );
    expect(await lookup.locate('203.0.113.9')).toBe('unknown');
    url = 'https://geo.example/{ip}/json';
    expect(await lookup.locate('192.168.0.2')).toBe('local network');
    expect(await lookup.locate('203.0.113.9')).toBe('Oslo, Norway');
    expect(await lookup.locate('203.0.113.9')).toBe('Oslo, Norway');
    expect(asked).toEqual(['https://geo.example/203.0.113.9/json']);
    fail = true;
    expect(await lookup.locate('198.51.100.7')).toBe('unknown');
  });
});
