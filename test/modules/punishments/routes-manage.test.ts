/**
 * The punishments routes besides issuing, through a real controller: the list and its
 * filters and paging, one record, a player's history, revoking (who lifted it comes from the
 * credential), the message templates (file and live use), the expiry of a temporary record,
 * and what survives a restart (including a ban that ended while no controller ran).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import type { SvcEvent } from '../../../src/events/catalogue';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import { punishmentsRuntimeOf } from '../../../src/modules/punishments';
import { MESSAGE_DEFAULTS } from '../../../src/modules/punishments/messages';
import type { PunishmentView } from '../../../src/modules/punishments/model';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../../support/controller';
import { loginAs, testPlayer } from '../../support/dashboard-login';

// The expiry loop's own timer is pushed far out: these tests sweep when they choose to.
const TOML = '[punishments]\nname_lookup_url = ""\nexpiry_check_interval = 3600';

let c: TestController;
const events: SvcEvent[] = [];

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES, toml: TOML });
  c.controller.kernel.bus.subscribe((e) => events.push(e));
});
afterAll(() => c.stop());

let next = 0;
/** A fresh target per use, so no test's records supersede or hide another's. */
function target(name?: string): { targetUuid: string; targetName: string } {
  next += 1;
  return { targetUuid: `bbbbbbbb-0000-4000-8000-${next.toString(16).padStart(12, '0')}`, targetName: name ?? `Target${next}` };
}

interface Listing {
  punishments: PunishmentView[];
  total: number;
}

async function issued(t: TestController, json: Record<string, unknown>): Promise<PunishmentView> {
  const res = await t.api('/api/punishments', { method: 'POST', json });
  const body = await readJson(res);
  expect({ status: res.status, body }).toEqual({ status: 201, body: expect.objectContaining({ id: expect.any(Number) }) });
  return body as PunishmentView;
}

async function ok<T>(t: TestController, path: string, init: Parameters<TestController['api']>[1] = {}): Promise<T> {
  const res = await t.api(path, init);
  const body = await readJson(res);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return body as T;
}

async function refusal(res: Response, status: number, error: string): Promise<string> {
  const body = await expectErrorBody(res);
  expect({ status: res.status, error: body.error }).toEqual({ status, error });
  return body.message;
}

const list = (query: string, t: TestController = c) => ok<Listing>(t, `/api/punishments${query}`);
const one = (id: number, t: TestController = c) => ok<PunishmentView>(t, `/api/punishments/${id}`);
const revoke = (id: number, json?: unknown, token?: string) => c.api(`/api/punishments/${id}`, { method: 'DELETE', json, token });
const check = (uuid: string, query = '', t: TestController = c) => ok<{ punished: boolean; id: number | null; kickMessage: string | null }>(t, `/api/punishments/check/${uuid}${query}`);
const ids = (l: Listing) => l.punishments.map((p) => p.id);

describe('GET /api/punishments', () => {
  let inForce: PunishmentView;
  let temp: PunishmentView;
  let warned: PunishmentView;
  let lifted: PunishmentView;
  beforeAll(async () => {
    inForce = await issued(c, { type: 'BAN', ...target() });
    temp = await issued(c, { type: 'TEMPMUTE', ...target(), duration: '1d' });
    warned = await issued(c, { type: 'WARN', ...target() });
    lifted = await issued(c, { type: 'BAN', ...target() });
    expect((await revoke(lifted.id)).status).toBe(200);
  });

  test('active defaults to true (only records in force); active=false lists every record', async () => {
    const byDefault = await list('?limit=500');
    expect(ids(byDefault)).toEqual(expect.arrayContaining([inForce.id, temp.id]));
    expect(ids(byDefault)).not.toContain(warned.id);
    expect(ids(byDefault)).not.toContain(lifted.id);
    expect(byDefault.punishments.every((p) => p.active)).toBe(true);
    expect(await list('?active=true&limit=500')).toEqual(byDefault);
    const all = await list('?active=false&limit=500');
    expect(ids(all)).toEqual(expect.arrayContaining([inForce.id, temp.id, warned.id, lifted.id]));
    expect(all.total).toBeGreaterThan(byDefault.total);
    const malformed = await c.api('/api/punishments?active=maybe');
    await refusal(malformed, 400, 'VALIDATION_FAILED');
  });

  test('type filters in any case; an unknown type is a 400, not ignored', async () => {
    const warns = await list('?type=warn&active=false&limit=500');
    expect(warns.punishments.length).toBeGreaterThan(0);
    expect(warns.punishments.every((p) => p.type === 'WARN')).toBe(true);
    expect(ids(warns)).toContain(warned.id);
    const bans = await list('?type=Ban&limit=500');
    expect(bans.punishments.every((p) => p.type === 'BAN' && p.active)).toBe(true);
    expect(ids(bans)).toContain(inForce.id);
    expect(ids(bans)).not.toContain(temp.id);
    expect(await refusal(await c.api('/api/punishments?type=JAIL'), 400, 'VALIDATION_FAILED')).toContain('type');
  });

  test('newest first; total counts every match, not the page', async () => {
    for (let i = 0; i < 3; i++) await issued(c, { type: 'WARN', ...target() });
    const all = await list('?active=false&limit=500');
    const order = ids(all);
    expect(order).toEqual([...order].sort((a, b) => b - a));
    const times = all.punishments.map((p) => Date.parse(p.issuedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const page = await list('?active=false&limit=2');
    expect(page.punishments.length).toBe(2);
    expect(page.total).toBe(all.punishments.length);
    expect(ids(page)).toEqual(order.slice(0, 2));
  });

  test('limit is clamped to 1..500 and offset to 0 or more; past the end is an empty page', async () => {
    // 501 warnings of one player: more than the largest page.
    const who = target();
    for (let start = 0; start < 501; start += 50) {
      await Promise.all(Array.from({ length: Math.min(50, 501 - start) }, () => issued(c, { type: 'WARN', ...who })));
    }
    const warns = await list('?type=WARN&active=false&limit=500');
    const total = warns.total;
    expect(total).toBeGreaterThanOrEqual(501);
    expect(warns.punishments.length).toBe(500);
    expect((await list('?type=WARN&active=false&limit=100000')).punishments.length).toBe(500);
    for (const limit of ['0', '-7']) {
      const tiny = await list(`?type=WARN&active=false&limit=${limit}`);
      expect({ limit, rows: tiny.punishments.length, total: tiny.total }).toEqual({ limit, rows: 1, total });
    }
    const paged = await list('?type=WARN&active=false&limit=3&offset=2');
    expect(ids(paged)).toEqual(ids(warns).slice(2, 5));
    expect(paged.total).toBe(total);
    expect(ids(await list('?type=WARN&active=false&limit=3&offset=-4'))).toEqual(ids(warns).slice(0, 3));
    const past = await list(`?type=WARN&active=false&offset=${total}`);
    expect([past.punishments, past.total]).toEqual([[], total]);
    await refusal(await c.api('/api/punishments?limit=lots'), 400, 'VALIDATION_FAILED');
  });
});

describe('GET /api/punishments/{id}', () => {
  test('200 with the record; 404 PUNISHMENT_NOT_FOUND for an id never issued; 400 VALIDATION_FAILED for an id that is no positive integer', async () => {
    const p = await issued(c, { type: 'MUTE', ...target(), reason: 'caps' });
    expect(await one(p.id)).toEqual(p);
    expect(await refusal(await c.api('/api/punishments/987654'), 404, 'PUNISHMENT_NOT_FOUND')).toContain('987654');
    for (const id of ['abc', '0', '-1', '1.5']) await refusal(await c.api(`/api/punishments/${id}`), 400, 'VALIDATION_FAILED');
  });
});

describe('GET /api/punishments/player/{uuid}', () => {
  test('every type of one player, newest first, with the total; limit clamps; an undashed uuid is the same player; a malformed one is a 400', async () => {
    const who = target('History');
    const other = target();
    const first = await issued(c, { type: 'BAN', ...who });
    const second = await issued(c, { type: 'WARN', ...who });
    await issued(c, { type: 'MUTE', ...other });
    const third = await issued(c, { type: 'TEMPBAN', ...who, duration: '1h' });
    const fourth = await issued(c, { type: 'MUTE', ...who });
    const history = await ok<Listing>(c, `/api/punishments/player/${who.targetUuid}`);
    expect(ids(history)).toEqual([fourth.id, third.id, second.id, first.id]);
    expect(history.total).toBe(4);
    // Superseded by the TEMPBAN, the BAN is still history.
    expect(history.punishments.map((p) => [p.type, p.active])).toEqual([['MUTE', true], ['TEMPBAN', true], ['WARN', false], ['BAN', false]]);
    const undashed = who.targetUuid.replace(/-/g, '').toUpperCase();
    expect(await ok<Listing>(c, `/api/punishments/player/${undashed}`)).toEqual(history);
    const limited = await ok<Listing>(c, `/api/punishments/player/${who.targetUuid}?limit=2`);
    expect([ids(limited), limited.total]).toEqual([[fourth.id, third.id], 4]);
    expect(ids(await ok<Listing>(c, `/api/punishments/player/${who.targetUuid}?limit=0`))).toEqual([fourth.id]);
    expect(await ok<Listing>(c, '/api/punishments/player/cccccccc-0000-4000-8000-000000000000')).toEqual({ punishments: [], total: 0 });
    for (const bad of ['not-a-uuid', 'bbbbbbbb-0000-4000-8000-00000000000', 'gggggggg-0000-4000-8000-000000000000']) {
      await refusal(await c.api(`/api/punishments/player/${bad}`), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('DELETE /api/punishments/{id}', () => {
  test('lifts a record: 200 "Punishment N revoked", who and why stored, PUNISHMENT_REVOKED with exactly its keys', async () => {
    const who = target('Revokee');
    const p = await issued(c, { type: 'BAN', ...who });
    const before = events.length;
    const res = await revoke(p.id, { revokedBy: 'ModMax', reason: '  appeal accepted  ' });
    expect([res.status, await readJson(res)]).toEqual([200, { success: true, message: `Punishment ${p.id} revoked` }]);
    const after = await one(p.id);
    expect(after).toMatchObject({ active: false, revokedBy: 'ModMax', revokeReason: 'appeal accepted' });
    expect(Date.parse(after.revokedAt!)).toBeGreaterThanOrEqual(Date.parse(p.issuedAt));
    const revoked = events.slice(before).filter((e) => e.type === 'PUNISHMENT_REVOKED');
    expect(revoked.map((e) => [e.data, e.actor])).toEqual([
      [{ id: String(p.id), type: 'BAN', target: 'Revokee', revokedBy: 'ModMax', reason: 'appeal accepted', moduleId: 'punishments' }, 'api:admin'],
    ]);
    expect((await check(who.targetUuid)).punished).toBe(false);
  });

  test('the body is optional; a blank reason is stored null; without revokedBy a token revokes as API', async () => {
    const a = await issued(c, { type: 'MUTE', ...target() });
    expect((await c.api(`/api/punishments/${a.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await one(a.id)).toMatchObject({ active: false, revokedBy: 'API', revokeReason: null });
    const b = await issued(c, { type: 'MUTE', ...target() });
    const before = events.length;
    expect((await revoke(b.id, { reason: '   ', revokedBy: '' }, c.service)).status).toBe(200);
    expect(await one(b.id)).toMatchObject({ revokedBy: 'API', revokeReason: null });
    const event = events.slice(before).find((e) => e.type === 'PUNISHMENT_REVOKED')!;
    expect([event.data.revokedBy, event.data.reason, event.actor]).toEqual(['API', '', 'api:service']);
    const d = await issued(c, { type: 'MUTE', ...target() });
    expect((await revoke(d.id, { revokedBy: 'ProxyStaff' }, c.service)).status).toBe(200);
    expect((await one(d.id)).revokedBy).toBe('ProxyStaff');
  });

  test('a dashboard session revokes as its player whatever revokedBy says, and needs svc.dashboard.punishments.revoke', async () => {
    const p = await issued(c, { type: 'BAN', ...target() });
    const viewer = await loginAs(c, testPlayer(21, 'JustViewing'), ['svc.dashboard.punishments.view']);
    expect(await refusal(await revoke(p.id, {}, viewer), 403, 'FORBIDDEN')).toStartWith('Missing permission: svc.dashboard.punishments.revoke');
    expect((await one(p.id)).active).toBe(true);
    const staff = testPlayer(22, 'Lifter');
    const session = await loginAs(c, staff, ['svc.dashboard.punishments.revoke']);
    const before = events.length;
    expect((await revoke(p.id, { revokedBy: 'dashboard', reason: 'Revoked via dashboard' }, session)).status).toBe(200);
    expect(await one(p.id)).toMatchObject({ active: false, revokedBy: 'Lifter', revokeReason: 'Revoked via dashboard' });
    const event = events.slice(before).find((e) => e.type === 'PUNISHMENT_REVOKED')!;
    expect([event.data.revokedBy, event.actor]).toEqual(['Lifter', 'dashboard:Lifter']);
  });

  test('404 for an unknown id; 409 PUNISHMENT_ALREADY_REVOKED the second time, on a WARN, on a KICK and on a superseded record; a bad body is a 400', async () => {
    expect(await refusal(await revoke(987654), 404, 'PUNISHMENT_NOT_FOUND')).toContain('987654');
    const p = await issued(c, { type: 'BAN', ...target() });
    expect((await revoke(p.id, { revokedBy: 'First' })).status).toBe(200);
    const before = events.length;
    await refusal(await revoke(p.id, { revokedBy: 'Second' }), 409, 'PUNISHMENT_ALREADY_REVOKED');
    expect((await one(p.id)).revokedBy).toBe('First');
    const warn = await issued(c, { type: 'WARN', ...target() });
    await refusal(await revoke(warn.id), 409, 'PUNISHMENT_ALREADY_REVOKED');
    expect((await one(warn.id)).revokedBy).toBeNull();
    // A KICK needs a READY proxy to be issued; stored as the issue route stores it (inactive, no end), it cannot be lifted either.
    const runtime = punishmentsRuntimeOf(c.controller.kernel);
    const kick = runtime.store.insert({
      type: 'KICK', ...target(), targetIp: null, reason: 'afk', issuer: 'api:admin', issuerName: 'API', issuedAt: Date.now(), expiresAt: null, active: false, scope: 'NETWORK', scopeTarget: null,
    });
    await refusal(await revoke(kick.id), 409, 'PUNISHMENT_ALREADY_REVOKED');
    const who = target();
    const old = await issued(c, { type: 'MUTE', ...who });
    await issued(c, { type: 'MUTE', ...who });
    await refusal(await revoke(old.id), 409, 'PUNISHMENT_ALREADY_REVOKED');
    expect(events.slice(before).filter((e) => e.type === 'PUNISHMENT_REVOKED').length).toBe(1);

    const q = await issued(c, { type: 'BAN', ...target() });
    await refusal(await revoke(q.id, { reason: 'a\nb' }), 400, 'VALIDATION_FAILED');
    await refusal(await revoke(q.id, { why: 'x' }), 400, 'VALIDATION_FAILED');
    await refusal(await revoke(q.id, { reason: 7 }), 400, 'VALIDATION_FAILED');
    await refusal(await revoke(0), 400, 'VALIDATION_FAILED');
    expect((await one(q.id)).active).toBe(true);
  });
});

describe('the message templates', () => {
  const file = () => join(c.dir, 'config', 'modules', 'punishments', 'messages.toml');
  const fileTemplates = () => parse(readFileSync(file(), 'utf8')) as Record<string, unknown>;

  test('GET answers the nine templates, the file holds them', async () => {
    const templates = await ok<Record<string, string>>(c, '/api/punishments/messages');
    expect(Object.keys(templates).sort()).toEqual(['ban', 'broadcast_issued', 'broadcast_revoked', 'ipban', 'kick', 'mute', 'tempban', 'tempmute', 'warn']);
    expect(templates).toEqual({ ...MESSAGE_DEFAULTS });
    expect(fileTemplates()).toEqual({ ...MESSAGE_DEFAULTS });
  });

  test('PUT changes only the keys sent, in the answer and the file; an unknown key or a non-string is a 400 that changes nothing', async () => {
    const put = (json: unknown, token?: string) => c.api('/api/punishments/messages', { method: 'PUT', json, token });
    const res = await put({ mute: '&cHush: {reason}', warn: '&eCareful, {target}' });
    const expected = { ...MESSAGE_DEFAULTS, mute: '&cHush: {reason}', warn: '&eCareful, {target}' };
    expect([res.status, await readJson(res)]).toEqual([200, expected]);
    expect(fileTemplates()).toEqual(expected);
    expect(await ok(c, '/api/punishments/messages')).toEqual(expected);
    for (const [label, json] of [
      ['unknown key', { mute: 'x', motd: 'y' }],
      ['non-string', { mute: 5 }],
      ['null', { ban: null }],
      ['too long', { ban: 'x'.repeat(2049) }],
      ['not an object', ['ban']],
    ] as const) {
      const refused = await put(json);
      const body = await expectErrorBody(refused);
      expect({ label, status: refused.status, error: body.error }).toEqual({ label, status: 400, error: 'VALIDATION_FAILED' });
    }
    expect(fileTemplates()).toEqual(expected);
    expect(await ok(c, '/api/punishments/messages')).toEqual(expected);
  });

  test('PUT needs svc.dashboard.admin from a session; punishments.view reads them', async () => {
    const viewer = await loginAs(c, testPlayer(31, 'TemplateViewer'), ['svc.dashboard.punishments.view']);
    expect((await c.api('/api/punishments/messages', { token: viewer })).status).toBe(200);
    const refused = await c.api('/api/punishments/messages', { method: 'PUT', json: { kick: 'nope' }, token: viewer });
    expect(await refusal(refused, 403, 'FORBIDDEN')).toStartWith('Missing permission: svc.dashboard.admin');
    expect(fileTemplates().kick).toBe(MESSAGE_DEFAULTS.kick);
    const admin = await loginAs(c, testPlayer(32, 'TemplateAdmin'), ['svc.dashboard.admin']);
    expect((await c.api('/api/punishments/messages', { method: 'PUT', json: { kick: '&cOut: {reason}' }, token: admin })).status).toBe(200);
    expect(fileTemplates().kick).toBe('&cOut: {reason}');
  });

  test('the next check answer renders with the new template, even one answered (and kept) just before', async () => {
    const who = target('Templated');
    await issued(c, { type: 'BAN', ...who, reason: 'cheating' });
    expect((await check(who.targetUuid)).kickMessage).toBe('§c§lYou are banned from the network\n§7Reason: §fcheating\n§7Banned by: §fAPI\n§7Appeal at our support portal.');
    expect((await c.api('/api/punishments/messages', { method: 'PUT', json: { ban: '&4Gone: {reason} ({type}, {remaining})' } })).status).toBe(200);
    expect((await check(who.targetUuid)).kickMessage).toBe('§4Gone: cheating (ban, permanent)');
  });
});

describe('expiry', () => {
  test('a TEMPBAN of 1s stops blocking at its end; the sweep then ends it once, with PUNISHMENT_EXPIRED', async () => {
    const runtime = punishmentsRuntimeOf(c.controller.kernel);
    const who = target('Shortly');
    const p = await issued(c, { type: 'TEMPBAN', ...who, duration: '1s' });
    expect(Date.parse(p.expiresAt!) - Date.parse(p.issuedAt)).toBe(1000);
    expect(await check(who.targetUuid)).toMatchObject({ punished: true, id: p.id });
    // The kept answer never outlives the record: the check clears at its end, before any sweep.
    await waitFor(async () => !(await check(who.targetUuid)).punished, { timeoutMs: 5000, what: 'the check to clear at the end', intervalMs: 50 });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(p.expiresAt!));
    // Past its end the record reads inactive and cannot be revoked, though the sweep has not run.
    expect((await one(p.id)).active).toBe(false);
    expect(ids(await list('?type=TEMPBAN&limit=500'))).not.toContain(p.id);
    expect(await refusal(await revoke(p.id), 409, 'PUNISHMENT_ALREADY_REVOKED')).toContain('expired');

    const before = events.length;
    expect(runtime.sweep()).toBe(1);
    expect(events.slice(before).map((e) => [e.type, e.data, e.actor])).toEqual([
      ['PUNISHMENT_EXPIRED', { id: String(p.id), type: 'TEMPBAN', target: 'Shortly', moduleId: 'punishments' }, 'system'],
    ]);
    expect(runtime.sweep()).toBe(0);
    expect(await one(p.id)).toMatchObject({ active: false, revokedBy: null, revokedAt: null, revokeReason: null });
    expect((await list('?type=TEMPBAN&active=false&limit=500')).punishments.find((x) => x.id === p.id)?.active).toBe(false);
    await refusal(await revoke(p.id), 409, 'PUNISHMENT_ALREADY_REVOKED');
  });
});

describe('a restart on the same directory', () => {
  let first: TestController;
  let firstRunning = false;
  let second: TestController | undefined;
  beforeAll(async () => {
    first = await startController({ modules: BUILTIN_MODULES, toml: TOML });
    firstRunning = true;
  });
  afterAll(async () => {
    if (firstRunning) await first.stopKeepingDir();
    await second?.stopKeepingDir();
    rmSync(first.dir, { recursive: true, force: true });
  });

  test('keeps the records in force, the lifted ones and the templates; a ban that ended while it was down is expired at start', async () => {
    const banned = target('StillBanned');
    const muted = target('StillMuted');
    const ban = await issued(first, { type: 'BAN', ...banned, reason: 'x-ray' });
    const mute = await issued(first, { type: 'TEMPMUTE', ...muted, duration: '1d', scope: 'GROUP', scopeTarget: 'Survival' });
    const ipban = await issued(first, { type: 'IPBAN', ...target(), targetIp: '203.0.113.50' });
    const lifted = await issued(first, { type: 'BAN', ...target() });
    expect((await first.api(`/api/punishments/${lifted.id}`, { method: 'DELETE', json: { revokedBy: 'Mod', reason: 'sorry' } })).status).toBe(200);
    const short = await issued(first, { type: 'TEMPBAN', ...target('EndsWhileDown'), duration: '1s' });
    expect((await first.api('/api/punishments/messages', { method: 'PUT', json: { ban: '&cStill banned: {reason}' } })).status).toBe(200);
    const allBefore = await list('?active=false&limit=500', first);
    await first.stopKeepingDir();
    firstRunning = false;

    await waitFor(() => Date.now() > Date.parse(short.expiresAt!), { timeoutMs: 5000, what: 'the short ban to end while the controller is down' });
    second = await startController({ modules: BUILTIN_MODULES, dir: first.dir });

    expect(await check(banned.targetUuid, '', second)).toMatchObject({ punished: true, id: ban.id, kickMessage: '§cStill banned: x-ray' });
    expect(await ok(second, `/api/punishments/mute/${muted.targetUuid}?group=survival`)).toMatchObject({ punished: true, id: mute.id });
    expect(await check('dddddddd-0000-4000-8000-000000000001', '?ip=203.0.113.50', second)).toMatchObject({ punished: true, id: ipban.id });
    expect(ids(await list('?limit=500', second)).sort((a, b) => a - b)).toEqual([ban.id, mute.id, ipban.id]);

    // Every record is as it was, but for the one that ended meanwhile.
    const allAfter = await list('?active=false&limit=500', second);
    expect(allAfter).toEqual({ ...allBefore, punishments: allBefore.punishments.map((p) => (p.id === short.id ? { ...p, active: false } : p)) });
    expect((await one(lifted.id, second)).revokedBy).toBe('Mod');

    // The start did the sweep: the row is ended in the table, its event is in the audit log, nothing is left to sweep.
    const row = second.controller.kernel.db.query<{ active: number }, [number]>('SELECT active FROM punishments WHERE id = ?').get(short.id);
    expect(row?.active).toBe(0);
    const audit = await ok<{ entries: { actor: string; details: string }[] }>(second, '/api/audit?action=PUNISHMENT_EXPIRED&limit=500');
    expect(audit.entries.filter((e) => e.details.startsWith(`id=${short.id},`)).map((e) => e.actor)).toEqual(['system']);
    expect(punishmentsRuntimeOf(second.controller.kernel).sweep()).toBe(0);
  });
});
