/**
 * NameResolver on its own: who an issue targets. A uuid is taken as given, a player the
 * players module has seen needs no network call, anything else is asked of the name lookup
 * service (a local fake of Mojang's profile API), with answers and misses remembered for their
 * TTLs on an injected clock. Every way the service can fail is a 503 that names its host and
 * never its path; a name that could not be one is refused before any request.
 */
import { afterAll, beforeEach, describe, expect, test } from 'bun:test';
import { ApiError } from '../../../src/errors';
import type { KnownPlayer, PlayerDirectory } from '../../../src/modules/services';
import { LOOKUP_HIT_TTL_MS, LOOKUP_MISS_TTL_MS, NameResolver } from '../../../src/modules/punishments/names';
import { OFFLINE_UPSTREAM } from '../../support/controller';
import { dashed, NOTCH, startFakeProfileApi, undashed, type ProfileMode } from './fake-profile-api';

// The base path stands for a URL carrying a key: messages may name the host, never this.
const SECRET_PATH = '/k-s3cr3t-key/users/profiles/minecraft';
const fake = startFakeProfileApi({ basePath: SECRET_PATH, profiles: { Jeb_: '853c80ef3c3749fdaa49938b674adae6', Dinnerbone: undefined } });
afterAll(() => fake.close());

const ALEX: KnownPlayer = { uuid: '00000000-0000-4000-8000-00000000000a', name: 'Alex' };
const STEVE: KnownPlayer = { uuid: '00000000-0000-4000-8000-00000000000b', name: 'Steve' };

/** The players module's directory as the resolver uses it: seen players, by name any case, by uuid. */
function directory(seen: readonly KnownPlayer[]): PlayerDirectory {
  return {
    online: () => [],
    onlineByName: () => undefined,
    knownByName: (name) => seen.find((p) => p.name.toLowerCase() === name.toLowerCase()),
    knownByUuid: (uuid) => seen.find((p) => p.uuid === uuid),
  };
}

let clock = 1_700_000_000_000;
beforeEach(() => {
  fake.reset();
  clock = 1_700_000_000_000;
});

function resolver(options: { lookupUrl?: string; players?: PlayerDirectory | undefined; timeoutMs?: number } = {}): NameResolver {
  const players = 'players' in options ? options.players : directory([ALEX, STEVE]);
  return new NameResolver({ lookupUrl: options.lookupUrl ?? fake.url, players: () => players, now: () => clock, timeoutMs: options.timeoutMs ?? 2000 });
}

/** Awaits a refusal and checks it is the ApiError named. */
async function refusal(work: Promise<unknown>, code: string, status: number): Promise<ApiError> {
  let caught: unknown;
  try {
    await work;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ApiError);
  const error = caught as ApiError;
  expect({ code: error.errorCode, status: error.status }).toEqual({ code, status });
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

describe('a uuid is taken as given', () => {
  test('targetUuid dashed, undashed or upper-case is normalised and used without a request', async () => {
    const names = resolver();
    const uuid = 'a1b2c3d4-e5f6-4789-8abc-def012345678';
    expect(await names.resolve(uuid, 'Someone')).toEqual({ uuid, name: 'Someone' });
    expect(await names.resolve(undashed(uuid), 'Someone')).toEqual({ uuid, name: 'Someone' });
    expect(await names.resolve(uuid.toUpperCase(), 'Someone')).toEqual({ uuid, name: 'Someone' });
    expect(await names.resolve(`  ${uuid}  `, '  Someone ')).toEqual({ uuid, name: 'Someone' });
    expect(fake.requests).toEqual([]);
  });

  test('with targetUuid and no name, the name is the one the players module knows, else the uuid', async () => {
    const names = resolver();
    expect(await names.resolve(ALEX.uuid.toUpperCase(), '')).toEqual(ALEX);
    const stranger = 'ffffffff-0000-4000-8000-000000000001';
    expect(await names.resolve(stranger, '  ')).toEqual({ uuid: stranger, name: stranger });
    expect(fake.requests).toEqual([]);
  });

  test('a targetUuid that is not a uuid is refused with 400 PUNISHMENT_TARGET_INVALID, even beside a good name', async () => {
    const names = resolver();
    for (const bad of ['not-a-uuid', 'a1b2c3d4-e5f6-4789-8abc-def01234567', 'g1b2c3d4e5f647898abcdef012345678', 'a1b2c3d4e5f6-4789-8abc-def012345678', 'Notch']) {
      const error = await refusal(names.resolve(bad, 'Notch'), 'PUNISHMENT_TARGET_INVALID', 400);
      expect(error.message).toContain('targetUuid');
    }
    expect(fake.requests).toEqual([]);
  });

  test('a targetName beside a targetUuid must still be a player name (it travels in kick commands)', async () => {
    const names = resolver();
    for (const bad of ['Bob extra', 'a;b', 'x/y']) {
      const error = await refusal(names.resolve(ALEX.uuid, bad), 'PUNISHMENT_TARGET_INVALID', 400);
      expect(error.message).toContain('targetName');
    }
    expect(fake.requests).toEqual([]);
  });

  test('a uuid-shaped targetName resolves to that uuid, named as the players module knows them', async () => {
    const names = resolver();
    expect(await names.resolve(null, undashed(ALEX.uuid))).toEqual(ALEX);
    expect(await names.resolve(undefined, STEVE.uuid.toUpperCase())).toEqual(STEVE);
    const stranger = await names.resolve('', 'FFFFFFFF-0000-4000-8000-000000000002');
    expect(stranger.uuid).toBe('ffffffff-0000-4000-8000-000000000002');
    expect(fake.requests).toEqual([]);
  });

  test('neither a name nor a uuid is refused with 400', async () => {
    await refusal(resolver().resolve(undefined, '   '), 'PUNISHMENT_TARGET_INVALID', 400);
    await refusal(resolver().resolve('  ', ''), 'PUNISHMENT_TARGET_INVALID', 400);
    expect(fake.requests).toEqual([]);
  });
});

describe('names the players module has seen', () => {
  test('resolve from the directory, any case, without a request', async () => {
    const names = resolver();
    expect(await names.resolve(undefined, 'alex')).toEqual(ALEX);
    expect(await names.resolve(null, 'STEVE')).toEqual(STEVE);
    expect(await names.resolve(undefined, ' Alex ')).toEqual(ALEX);
    expect(fake.requests).toEqual([]);
  });

  test('without the players module every name goes to the lookup service', async () => {
    const names = resolver({ players: undefined });
    expect(await names.resolve(undefined, 'Notch')).toEqual({ uuid: dashed(NOTCH.id), name: 'Notch' });
    await refusal(names.resolve(undefined, 'Alex'), 'PUNISHMENT_TARGET_INVALID', 404);
    expect(fake.requestsFor('notch')).toBe(1);
    expect(fake.requestsFor('alex')).toBe(1);
  });
});

describe('the name lookup service', () => {
  test('is asked for an unseen name: the canonical name and the dashed lower-case uuid come back', async () => {
    const names = resolver();
    expect(await names.resolve(undefined, 'notch')).toEqual({ uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5', name: 'Notch' });
    expect(await names.resolve(undefined, 'JEB_')).toEqual({ uuid: '853c80ef-3c37-49fd-aa49-938b674adae6', name: 'Jeb_' });
    expect(fake.requests).toEqual([`${SECRET_PATH}/notch`, `${SECRET_PATH}/JEB_`]);
  });

  test('a trailing slash on the configured URL does not double the slash', async () => {
    const names = resolver({ lookupUrl: `${fake.url}//` });
    expect((await names.resolve(undefined, 'Dinnerbone')).name).toBe('Dinnerbone');
    expect(fake.requests).toEqual([`${SECRET_PATH}/Dinnerbone`]);
  });

  test('an answer is remembered (any case) for LOOKUP_HIT_TTL_MS, then asked for again', async () => {
    const names = resolver();
    const notch = await names.resolve(undefined, 'Notch');
    clock += LOOKUP_HIT_TTL_MS - 1;
    expect(await names.resolve(undefined, 'nOtCh')).toEqual(notch);
    expect(fake.requestsFor('notch')).toBe(1);
    clock += 1;
    expect(await names.resolve(undefined, 'notch')).toEqual(notch);
    expect(fake.requestsFor('notch')).toBe(2);
  });

  test('an unknown name is a 404 PUNISHMENT_TARGET_INVALID, remembered for LOOKUP_MISS_TTL_MS only', async () => {
    const names = resolver();
    const error = await refusal(names.resolve(undefined, 'NobodyHere'), 'PUNISHMENT_TARGET_INVALID', 404);
    expect(error.message).toContain('NobodyHere');
    expect(error.message).toContain('targetUuid');
    clock += LOOKUP_MISS_TTL_MS - 1;
    await refusal(names.resolve(undefined, 'nobodyhere'), 'PUNISHMENT_TARGET_INVALID', 404);
    expect(fake.requestsFor('nobodyhere')).toBe(1);
    // The miss ran out: a player who took the name since is found.
    clock += 1;
    const joined = fake.addProfile('NobodyHere');
    expect(await names.resolve(undefined, 'nobodyhere')).toEqual({ uuid: dashed(joined.id), name: 'NobodyHere' });
    expect(fake.requestsFor('nobodyhere')).toBe(2);
    expect(LOOKUP_MISS_TTL_MS).toBeLessThan(LOOKUP_HIT_TTL_MS);
  });

  test('ten concurrent resolves of one name make exactly one request', async () => {
    const names = resolver();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => names.resolve(undefined, i % 2 === 0 ? 'notch' : 'NOTCH')));
    expect(answers.every((a) => a.uuid === dashed(NOTCH.id) && a.name === 'Notch')).toBe(true);
    expect(fake.requests.length).toBe(1);

    const misses = await Promise.allSettled(Array.from({ length: 10 }, () => names.resolve(undefined, 'Unheard')));
    expect(misses.every((m) => m.status === 'rejected' && (m.reason as ApiError).status === 404)).toBe(true);
    expect(fake.requestsFor('unheard')).toBe(1);
  });

  test('with a blank lookup URL an unseen name is a 404 that says the lookup is off, and nothing is asked', async () => {
    const names = resolver({ lookupUrl: '' });
    const error = await refusal(names.resolve(undefined, 'Notch'), 'PUNISHMENT_TARGET_INVALID', 404);
    expect(error.message).toContain('lookup is off');
    expect(error.message).toContain('name_lookup_url');
    // Seen players and uuids still resolve.
    expect(await names.resolve(undefined, 'alex')).toEqual(ALEX);
    expect(fake.requests).toEqual([]);
  });

  test('a name that cannot be a player name is a 400 and never reaches the service', async () => {
    const names = resolver();
    for (const bad of ['a/b', 'x y', '../admin', 'a?b=1', 'name#frag', '%2e%2e', 'ü', 'a'.repeat(33)]) {
      const error = await refusal(names.resolve(undefined, bad), 'PUNISHMENT_TARGET_INVALID', 400);
      expect(error.message).toContain('not a player name');
    }
    expect(fake.requests).toEqual([]);
  });
});

describe('when the lookup service fails', () => {
  const failures: [ProfileMode, string][] = [
    ['rate-limited', '429'],
    ['server-error', '500'],
    ['invalid-json', 'without a uuid'],
    ['no-id', 'without a uuid'],
  ];
  for (const [mode, says] of failures) {
    test(`${mode}: 503 SERVICE_UNAVAILABLE naming the host, never the path; not remembered`, async () => {
      const names = resolver();
      fake.setMode('notch', mode);
      const error = await refusal(names.resolve(undefined, 'Notch'), 'SERVICE_UNAVAILABLE', 503);
      expect(error.message).toContain(fake.host);
      expect(error.message).toContain(says);
      expect(error.message).not.toContain('s3cr3t');
      expect(error.message).not.toContain('/users/profiles');
      // A failure is not an answer: once the service recovers the name resolves.
      fake.setMode('notch', 'normal');
      expect(await names.resolve(undefined, 'Notch')).toEqual({ uuid: dashed(NOTCH.id), name: 'Notch' });
      expect(fake.requestsFor('notch')).toBe(2);
    });
  }

  test('a service that never answers is a 503 within the timeout', async () => {
    const names = resolver({ timeoutMs: 150 });
    fake.setMode('*', 'hang');
    const started = performance.now();
    const error = await refusal(names.resolve(undefined, 'Notch'), 'SERVICE_UNAVAILABLE', 503);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error.message).toContain('did not answer within 0.15 s');
    expect(error.message).toContain(fake.host);
    expect(error.message).not.toContain('s3cr3t');
    expect(fake.requestsFor('notch')).toBe(1);
  });

  test('a closed port is a 503 that says the service could not be reached', async () => {
    const names = resolver({ lookupUrl: `${OFFLINE_UPSTREAM}/secret-path/users/profiles/minecraft` });
    const error = await refusal(names.resolve(undefined, 'Notch'), 'SERVICE_UNAVAILABLE', 503);
    expect(error.message).toContain('127.0.0.1:1');
    expect(error.message).toContain('could not be reached');
    expect(error.message).not.toContain('secret-path');
  });

  test('a lookup URL that is no URL is a 503 that does not repeat it', async () => {
    const names = resolver({ lookupUrl: 'not a url/with-key' });
    const error = await refusal(names.resolve(undefined, 'Notch'), 'SERVICE_UNAVAILABLE', 503);
    expect(error.message).toContain('misconfigured URL');
    expect(error.message).not.toContain('with-key');
  });
});
