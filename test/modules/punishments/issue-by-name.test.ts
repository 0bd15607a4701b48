/**
 * Issuing by name through a real controller (players and punishments modules) whose
 * `[punishments] name_lookup_url` is a local fake of Mojang's profile API: an unseen name is
 * looked up and stored as the service spells it, a player the proxy reported is resolved
 * locally (also once they left), an unknown name is a 404 and a failing service a 503 with
 * nothing stored. The proxy's login check never waits on the lookup service.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { SvcEvent } from '../../../src/events/catalogue';
import { playersModule } from '../../../src/modules/players';
import { punishmentsModule } from '../../../src/modules/punishments';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { bringOnline, testPlayer } from '../../support/dashboard-login';
import { dashed, NOTCH, startFakeProfileApi, type FakeProfileApi } from './fake-profile-api';

let fake: FakeProfileApi;
let c: TestController;
const events: SvcEvent[] = [];

beforeAll(async () => {
  fake = startFakeProfileApi({ profiles: { Jeb_: '853c80ef3c3749fdaa49938b674adae6', Grumm: undefined, Dinnerbone: undefined } });
  c = await startController({ modules: [playersModule, punishmentsModule], toml: `[punishments]\nname_lookup_url = "${fake.url}"\n` });
  c.controller.kernel.bus.subscribe((e) => void events.push(e));
});
afterAll(async () => {
  await c.stop();
  await fake.close();
});
beforeEach(() => fake.reset());

const issue = (json: Record<string, unknown>) => c.api('/api/punishments', { method: 'POST', json });

/** How many records exist, in force or not. */
async function stored(): Promise<number> {
  return (await readJson(await c.api('/api/punishments?active=false&limit=500'))).total;
}

describe('an unseen name', () => {
  test('is looked up: the record holds the canonical name and the dashed lower-case uuid', async () => {
    const res = await issue({ type: 'BAN', targetName: 'notch', reason: 'griefing spawn' });
    expect(res.status).toBe(201);
    const created = await readJson(res);
    expect(created).toMatchObject({ type: 'BAN', targetUuid: dashed(NOTCH.id), targetName: 'Notch', reason: 'griefing spawn', active: true });
    expect(fake.requests).toEqual(['/users/profiles/minecraft/notch']);
    // As stored, not just as answered.
    expect(await readJson(await c.api(`/api/punishments/${created.id}`))).toMatchObject({ targetUuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5', targetName: 'Notch' });
    const published = events.findLast((e) => e.type === 'PUNISHMENT_ISSUED');
    expect(published?.data).toMatchObject({ id: String(created.id), target: 'Notch', targetUuid: dashed(NOTCH.id) });
  });

  test('asked again soon is answered from memory', async () => {
    expect((await issue({ type: 'WARN', targetName: 'JEB_', reason: 'one' })).status).toBe(201);
    const second = await issue({ type: 'WARN', targetName: 'jeb_', reason: 'two' });
    expect(second.status).toBe(201);
    expect(await readJson(second)).toMatchObject({ targetUuid: '853c80ef-3c37-49fd-aa49-938b674adae6', targetName: 'Jeb_' });
    expect(fake.requestsFor('jeb_')).toBe(1);
  });

  test('that nobody has is a 404 PUNISHMENT_TARGET_INVALID error body, and nothing is stored', async () => {
    const before = await stored();
    const res = await issue({ type: 'BAN', targetName: 'NoSuchPlayer42', reason: 'x' });
    expect(res.status).toBe(404);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('PUNISHMENT_TARGET_INVALID');
    expect(body.message).toContain('NoSuchPlayer42');
    expect(fake.requestsFor('nosuchplayer42')).toBe(1);
    expect(await stored()).toBe(before);
  });

  test('every problem of the body is refused before the name is looked up', async () => {
    const before = await stored();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'TEMPBAN', targetName: 'Dinnerbone' }, 'PUNISHMENT_DURATION_INVALID'],
      [{ type: 'MUTE', targetName: 'Dinnerbone', scope: 'GROUP' }, 'VALIDATION_FAILED'],
      [{ type: 'IPBAN', targetName: 'Dinnerbone' }, 'PUNISHMENT_TARGET_INVALID'],
      [{ type: 'SMITE', targetName: 'Dinnerbone' }, 'VALIDATION_FAILED'],
    ];
    for (const [body, error] of cases) {
      const res = await issue(body);
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).error).toBe(error);
    }
    expect(fake.requests).toEqual([]);
    expect(await stored()).toBe(before);
  });

  test('a name that cannot be one is a 400 without a request', async () => {
    const res = await issue({ type: 'BAN', targetName: '../../admin', reason: 'x' });
    expect(res.status).toBe(400);
    expect((await expectErrorBody(res)).error).toBe('PUNISHMENT_TARGET_INVALID');
    expect(fake.requests).toEqual([]);
  });
});

describe('a player the players module saw', () => {
  test('resolves without a request, in any case, also after they disconnect', async () => {
    const alex = testPlayer(0xa1, 'Alex');
    await bringOnline(c, alex);
    const muted = await issue({ type: 'MUTE', targetName: 'alex', reason: 'spam in chat' });
    expect(muted.status).toBe(201);
    expect(await readJson(muted)).toMatchObject({ targetUuid: alex.uuid, targetName: 'Alex' });

    const left = await c.api('/api/proxy/events', { method: 'POST', token: c.service, json: { type: 'PLAYER_DISCONNECTED', player: alex.name, uuid: alex.uuid, service: 'Lobby-1' } });
    expect(left.status).toBe(200);
    const warned = await issue({ type: 'WARN', targetName: 'ALEX', reason: 'come back nicer' });
    expect(warned.status).toBe(201);
    expect(await readJson(warned)).toMatchObject({ targetUuid: alex.uuid, targetName: 'Alex' });
    expect(fake.requests).toEqual([]);
  });

  test('is found locally even when the lookup service has a different holder of that name', async () => {
    // An offline-mode network: the lookup service knows a "Grumm" who never played here.
    const local = testPlayer(0xa2, 'Grumm');
    await bringOnline(c, local);
    const res = await issue({ type: 'BAN', targetName: 'grumm', reason: 'x' });
    expect(res.status).toBe(201);
    expect((await readJson(res)).targetUuid).toBe(local.uuid);
    expect(fake.requests).toEqual([]);
  });
});

describe('when the lookup service fails', () => {
  for (const mode of ['server-error', 'rate-limited', 'invalid-json', 'no-id'] as const) {
    test(`${mode}: 503 SERVICE_UNAVAILABLE with an error body naming the host, and nothing stored`, async () => {
      const before = await stored();
      const beforeEvents = events.length;
      fake.setMode('*', mode);
      const res = await issue({ type: 'BAN', targetName: 'Dinnerbone', reason: 'x' });
      expect(res.status).toBe(503);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('SERVICE_UNAVAILABLE');
      expect(body.message).toContain(fake.host);
      expect(body.message).not.toContain('/users/profiles');
      expect(fake.requestsFor('dinnerbone')).toBe(1);
      expect(await stored()).toBe(before);
      expect(events.slice(beforeEvents).some((e) => e.type === 'PUNISHMENT_ISSUED')).toBe(false);
    });
  }

  test('a targetUuid still works: nothing is asked', async () => {
    fake.setMode('*', 'server-error');
    const uuid = 'c0ffee00-0000-4000-8000-000000000001';
    const res = await issue({ type: 'BAN', targetName: 'Dinnerbone', targetUuid: uuid.replace(/-/g, '').toUpperCase(), reason: 'x' });
    expect(res.status).toBe(201);
    expect(await readJson(res)).toMatchObject({ targetUuid: uuid, targetName: 'Dinnerbone' });
    expect(fake.requests).toEqual([]);
  });
});

describe('the login and chat checks', () => {
  test('never make a request to the lookup service, for banned or unknown players', async () => {
    fake.setMode('*', 'hang');
    const banned = await readJson(await issue({ type: 'BAN', targetUuid: dashed(NOTCH.id), targetName: 'Notch', reason: 'again' }));
    expect(banned.targetUuid).toBe(dashed(NOTCH.id));
    for (const uuid of [dashed(NOTCH.id), NOTCH.id, 'c0ffee00-0000-4000-8000-0000000000ff']) {
      const check = await c.api(`/api/punishments/check/${uuid}?ip=203.0.113.9&group=Lobby&service=Lobby-1`, { token: c.service });
      expect(check.status).toBe(200);
      expect((await readJson(check)).punished).toBe(uuid !== 'c0ffee00-0000-4000-8000-0000000000ff');
      const mute = await c.api(`/api/punishments/mute/${uuid}`, { token: c.service });
      expect(mute.status).toBe(200);
    }
    expect(fake.requests).toEqual([]);
  });
});
