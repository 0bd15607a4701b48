/**
 * The `punish` console command through POST /api/commands/punish/execute, against a real
 * controller with the players and punishments modules and the name lookup off: targets are
 * players the proxy reported (players module) or uuids. What a command did is read back
 * through /api/punishments. The in-game caller (named by the proxy's credential, the shared token or the operator) is the issuer; a plain API
 * call issues as "API". A KICK goes to a READY proxy (a console-recorder process).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { playersModule } from '../../../src/modules/players';
import { punishmentsModule } from '../../../src/modules/punishments';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../../support/controller';
import { bringOnline, testPlayer, type Player } from '../../support/dashboard-login';

const RECORDER = join(import.meta.dir, '../../fixtures/console-recorder.ts');
const HOUR = 3_600_000;

const ALEX = testPlayer(0xc1, 'Alex');
const BOB = testPlayer(0xc2, 'Bob');
const CAROL = testPlayer(0xc3, 'Carol');
const DAVE = testPlayer(0xc4, 'Dave');
const ERIN = testPlayer(0xc5, 'Erin');
const FRANK = testPlayer(0xc6, 'Frank');
/** The staff member typing in game. */
const MOD = testPlayer(0xcf, 'ModMary');
/** Never seen here: reachable by uuid only. */
const STRANGER_UUID = 'deadbeef-0000-4000-8000-000000000001';

let c: TestController;

beforeAll(async () => {
  c = await startController({ modules: [playersModule, punishmentsModule], toml: '[punishments]\nname_lookup_url = ""\n', timing: { stopTimeoutMs: 5000 } });
  for (const p of [ALEX, BOB, CAROL, DAVE, ERIN, FRANK, MOD]) await bringOnline(c, p);
});
afterAll(() => c.stop());

interface Line {
  type: string;
  text: string;
}

interface Run {
  status: number;
  lines: Line[];
  text: string;
  /** The failure message, or undefined on success. */
  message: string | undefined;
}

/** The parsed body; anything but a 200 must be the spec's error body (the 422 adds `lines`). */
async function bodyOf(response: Response): Promise<ReturnType<typeof JSON.parse>> {
  const text = await response.text();
  if (response.status !== 200) await expectErrorBody(new Response(text, { status: response.status }));
  return JSON.parse(text);
}

async function punish(args: string[], options: { caller?: Player; token?: string } = {}): Promise<Run> {
  const json = options.caller ? { args, caller: options.caller } : { args };
  const response = await c.api('/api/commands/punish/execute', { method: 'POST', json, token: options.token });
  const body = await bodyOf(response);
  const lines: Line[] = body.lines ?? [];
  return { status: response.status, lines, text: lines.map((l) => l.text).join('\n'), message: body.message };
}

/** Runs and expects success, giving the printed text. */
async function ok(args: string[], options?: { caller?: Player; token?: string }): Promise<string> {
  const run = await punish(args, options);
  if (run.status !== 200) throw new Error(`punish ${args.join(' ')} answered ${run.status}: ${run.message}`);
  return run.text;
}

/** Runs and expects the command to fail (422 COMMAND_EXECUTION_FAILED, the message as the last line), giving its message. */
async function fails(...args: string[]): Promise<string> {
  const response = await c.api('/api/commands/punish/execute', { method: 'POST', json: { args } });
  expect(response.status).toBe(422);
  const body = await bodyOf(response);
  expect(body.error).toBe('COMMAND_EXECUTION_FAILED');
  expect(body.lines.at(-1)).toEqual({ type: 'error', text: body.message });
  return body.message;
}

interface Stored {
  id: number;
  type: string;
  targetUuid: string;
  targetName: string;
  targetIp: string | null;
  reason: string;
  issuer: string;
  issuerName: string;
  expiresAt: string | null;
  active: boolean;
  revokedBy: string | null;
  revokeReason: string | null;
  scope: string;
  scopeTarget: string | null;
}

/** A player's records, newest first. */
async function historyOf(player: Player | string): Promise<Stored[]> {
  const uuid = typeof player === 'string' ? player : player.uuid;
  const response = await c.api(`/api/punishments/player/${uuid}`);
  expect(response.status).toBe(200);
  return (await readJson(response)).punishments;
}

const newest = async (player: Player | string) => (await historyOf(player))[0]!;

/** The id a success line starts with (`#12 BAN …`). */
const idIn = (text: string) => Number(/#(\d+) /.exec(text)?.[1]);

describe('punish: issuing', () => {
  test('ban takes a reason of several words and issues at network scope as "API" for a plain API call', async () => {
    const text = await ok(['ban', 'alex', 'hacking', 'with', 'a', 'fly', 'mod']);
    expect(text).toMatch(/^#\d+ BAN Alex \(network\) by API \S+: hacking with a fly mod \[in force\]$/);
    expect(await newest(ALEX)).toMatchObject({
      id: idIn(text),
      type: 'BAN',
      targetUuid: ALEX.uuid,
      targetName: 'Alex',
      reason: 'hacking with a fly mod',
      issuer: 'api:admin',
      issuerName: 'API',
      expiresAt: null,
      active: true,
      scope: 'NETWORK',
      scopeTarget: null,
    });
  });

  test('the service token may run it too, still as "API"', async () => {
    await ok(['warn', BOB.uuid, 'first', 'warning'], { token: c.service });
    expect(await newest(BOB)).toMatchObject({ type: 'WARN', targetName: 'Bob', issuer: 'api:service', issuerName: 'API', reason: 'first warning', active: false });
  });

  test('tempban and tempmute take a duration before the reason', async () => {
    const before = Date.now();
    await ok(['tempban', 'Bob', '2h', 'spawn', 'killing']);
    const ban = await newest(BOB);
    expect(ban).toMatchObject({ type: 'TEMPBAN', reason: 'spawn killing', scope: 'NETWORK', active: true });
    const end = Date.parse(ban.expiresAt!);
    expect(end).toBeGreaterThanOrEqual(before + 2 * HOUR);
    expect(end).toBeLessThanOrEqual(Date.now() + 2 * HOUR);

    const text = await ok(['tempmute', 'BOB', '1d12h', 'caps', 'lock', 'abuse']);
    expect(text).toMatch(/^#\d+ TEMPMUTE Bob \(network, 1d 12h left\) by API .*: caps lock abuse \[in force\]$/);
    expect(await newest(BOB)).toMatchObject({ type: 'TEMPMUTE', reason: 'caps lock abuse' });
  });

  test('mute, warn and a reason-less ban', async () => {
    await ok(['mute', 'Carol', 'advertising', 'another', 'server']);
    expect(await newest(CAROL)).toMatchObject({ type: 'MUTE', reason: 'advertising another server', expiresAt: null, active: true });
    await ok(['warn', 'carol', 'mind', 'your', 'language']);
    expect(await newest(CAROL)).toMatchObject({ type: 'WARN', reason: 'mind your language', active: false, scope: 'NETWORK' });
    const text = await ok(['ban', STRANGER_UUID.replace(/-/g, '')]);
    expect(text).toContain('no reason given');
    expect(await newest(STRANGER_UUID)).toMatchObject({ type: 'BAN', targetUuid: STRANGER_UUID, reason: '' });
  });

  test('ipban takes the address after the player; a bad address stores nothing', async () => {
    await ok(['ipban', 'Dave', '203.0.113.7', 'ban', 'evasion', 'with', 'alts']);
    expect(await newest(DAVE)).toMatchObject({ type: 'IPBAN', targetIp: '203.0.113.7', reason: 'ban evasion with alts', scope: 'NETWORK' });
    const count = (await historyOf(DAVE)).length;
    expect(await fails('ipban', 'Dave', 'not-an-ip', 'x')).toContain('not an IPv4 or IPv6 address');
    expect((await historyOf(DAVE)).length).toBe(count);
  });

  test('--group/-g and --service/-s scope it, anywhere among the reason words; with both, SERVICE wins', async () => {
    await ok(['ban', 'Erin', '--group', 'Lobby', 'griefing', 'the', 'hub']);
    expect(await newest(ERIN)).toMatchObject({ type: 'BAN', scope: 'GROUP', scopeTarget: 'Lobby', reason: 'griefing the hub' });
    await ok(['mute', 'Erin', 'toxic', '-s', 'Game-1', 'in', 'chat']);
    expect(await newest(ERIN)).toMatchObject({ type: 'MUTE', scope: 'SERVICE', scopeTarget: 'Game-1', reason: 'toxic in chat' });
    await ok(['tempban', 'Erin', '30m', '-G', 'Game', 'x-raying']);
    expect(await newest(ERIN)).toMatchObject({ type: 'TEMPBAN', scope: 'GROUP', scopeTarget: 'Game', reason: 'x-raying' });
    const text = await ok(['ban', 'Erin', '-g', 'Lobby', '--service', 'Lobby-1', 'both', 'flags']);
    expect(text).toContain('(service Lobby-1)');
    expect(await newest(ERIN)).toMatchObject({ scope: 'SERVICE', scopeTarget: 'Lobby-1', reason: 'both flags' });
    // The group-scoped Lobby ban is another scope: it stays in force beside the service one.
    expect((await historyOf(ERIN)).filter((p) => p.active).map((p) => `${p.type} ${p.scope} ${p.scopeTarget}`)).toEqual(
      expect.arrayContaining(['BAN GROUP Lobby', 'BAN SERVICE Lobby-1', 'MUTE SERVICE Game-1', 'TEMPBAN GROUP Game']),
    );
  });

  test('in game, the caller is the issuer (their uuid and name)', async () => {
    await ok(['mute', 'Frank', 'spamming', 'emotes'], { caller: MOD });
    expect(await newest(FRANK)).toMatchObject({ type: 'MUTE', issuer: MOD.uuid, issuerName: 'ModMary', reason: 'spamming emotes' });
  });

  test('a scoped JWT may not name a caller, even one that may write (only proxies, the shared token and the operator speak for players)', async () => {
    const count = (await historyOf(FRANK)).length;
    const writer = (await c.controller.kernel.auth.mintJwt('writer', ['services:write'], 600)).token;
    const response = await c.api('/api/commands/punish/execute', { method: 'POST', token: writer, json: { args: ['warn', 'Frank', 'x'], caller: MOD } });
    expect(response.status).toBe(403);
    expect((await expectErrorBody(response)).error).toBe('FORBIDDEN');
    expect((await historyOf(FRANK)).length).toBe(count);
  });

  test('a name nobody here has is refused (the lookup is off); nothing is stored', async () => {
    const message = await fails('ban', 'Ghost', 'x');
    expect(message).toContain('no player named "Ghost"');
    expect(message).toContain('lookup is off');
    expect(await fails('ban', 'a/b', 'x')).toContain('not a player name');
  });

  test('validation failures of the service reach the caller', async () => {
    expect(await fails('tempban', 'Alex', 'soon', 'x')).toContain('duration "soon"');
    expect(await fails('tempmute', 'Alex', 'perm', 'x')).toContain('cannot be permanent');
  });
});

describe('punish kick', () => {
  test('without a READY proxy it is refused with PROXY_NOT_AVAILABLE and nothing is stored', async () => {
    const count = (await historyOf(ALEX)).length;
    expect(await fails('kick', 'Alex', 'being', 'rude')).toContain('no proxy is READY');
    expect((await historyOf(ALEX)).length).toBe(count);
  });

  test('with a READY proxy it goes to the proxy console and is recorded', async () => {
    const group = { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: [process.execPath, RECORDER], minInstances: 0 };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
    expect((await c.api('/api/services/Proxy/start', { method: 'POST' })).status).toBe(201);
    await waitFor(async () => (await readJson(await c.api('/api/services/Proxy-1'))).state === 'READY', { timeoutMs: 20_000, what: 'Proxy-1 READY' });

    await ok(['kick', 'alex', 'being', 'rude', 'to', 'staff'], { caller: MOD });
    expect(await newest(ALEX)).toMatchObject({ type: 'KICK', targetName: 'Alex', reason: 'being rude to staff', issuerName: 'ModMary', active: false });
    const file = join(c.controller.kernel.services.get('Proxy-1')!.workDir, 'console-input.txt');
    const consoleLines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n') : []);
    await waitFor(() => consoleLines().some((l) => l.startsWith('velocity kick Alex ') && l.includes('being rude to staff')), { what: 'the kick on the proxy console' });
    // One line: the template's line breaks do not become a second command.
    expect(consoleLines().filter((l) => l.startsWith('velocity kick'))).toHaveLength(1);

    // A player the proxy reported leaving is not kicked, and no KICK is recorded.
    const gone = testPlayer(0xc7, 'Gone');
    await bringOnline(c, gone);
    const left = await c.api('/api/proxy/events', { method: 'POST', token: c.service, json: { type: 'PLAYER_DISCONNECTED', player: gone.name, uuid: gone.uuid, service: 'Lobby-1' } });
    expect(left.status).toBe(200);
    expect(await fails('kick', 'Gone', 'too', 'late')).toContain('is not online');
    expect(await historyOf(gone)).toEqual([]);
    expect(consoleLines().filter((l) => l.startsWith('velocity kick'))).toHaveLength(1);
  }, 30_000);
});

describe('punish unban / unmute', () => {
  test('unban lifts the bans in force at network scope only (no flag), by the caller', async () => {
    const player = testPlayer(0xd1, 'Gina');
    await bringOnline(c, player);
    await ok(['ban', 'Gina', 'one']);
    await ok(['ipban', 'Gina', '198.51.100.4', 'two']);
    await ok(['ban', 'Gina', '-g', 'Lobby', 'three']);
    await ok(['mute', 'Gina', 'four']);

    const text = await ok(['unban', 'gina'], { caller: MOD });
    expect(text).toMatch(/^unbanned Gina \(network\): lifted #\d+ IPBAN, #\d+ BAN$/);
    const records = await historyOf(player);
    const state = (reason: string) => records.find((p) => p.reason === reason)!;
    expect(state('one')).toMatchObject({ active: false, revokedBy: 'ModMary', revokeReason: 'unban by command' });
    expect(state('two')).toMatchObject({ active: false, revokedBy: 'ModMary' });
    expect(state('three')).toMatchObject({ active: true, revokedBy: null });
    expect(state('four')).toMatchObject({ active: true, revokedBy: null });

    expect(await fails('unban', 'Gina')).toBe('Gina has no ban in force at network scope');
    expect(await fails('unban', 'Gina', '-s', 'Lobby-1')).toBe('Gina has no ban in force at service Lobby-1 scope');
    // The group is named in another case: group names are unique regardless of case.
    expect(await ok(['unban', 'Gina', '--group', 'lobby'])).toMatch(/^unbanned Gina \(group lobby\): lifted #\d+ BAN$/);
    expect((await historyOf(player)).find((p) => p.reason === 'three')).toMatchObject({ active: false, revokedBy: 'API' });
    expect(await fails('unban', 'Gina', '-g', 'Lobby')).toBe('Gina has no ban in force at group Lobby scope');
  });

  test('unmute lifts mutes at the scope named, not bans', async () => {
    const player = testPlayer(0xd2, 'Hank');
    await bringOnline(c, player);
    await ok(['ban', 'Hank', 'stays']);
    await ok(['tempmute', 'Hank', '1h', '-s', 'Game-1', 'local']);
    await ok(['mute', 'Hank', 'global']);

    expect(await fails('unmute', 'Hank', '-g', 'Game')).toBe('Hank has no mute in force at group Game scope');
    expect(await ok(['unmute', 'Hank', '-s', 'GAME-1'])).toMatch(/^unmuted Hank \(service GAME-1\): lifted #\d+ TEMPMUTE$/);
    expect(await ok(['unmute', player.uuid])).toMatch(/^unmuted Hank \(network\): lifted #\d+ MUTE$/);
    expect(await fails('unmute', 'Hank')).toBe('Hank has no mute in force at network scope');
    const active = (await historyOf(player)).filter((p) => p.active);
    expect(active.map((p) => p.reason)).toEqual(['stays']);
    // The login check still sees the ban.
    const check = await readJson(await c.api(`/api/punishments/check/${player.uuid}`, { token: c.service }));
    expect(check).toMatchObject({ punished: true, type: 'BAN' });
  });

  test('a player with nothing on record, or unknown, is a clear failure', async () => {
    expect(await fails('unban', 'ModMary')).toBe('ModMary has no ban in force at network scope');
    expect(await fails('unmute', 'Nobody')).toContain('no player named "Nobody"');
  });
});

describe('punish history and list', () => {
  test('history lists every record of a player, newest first, with its state', async () => {
    const player = testPlayer(0xe1, 'Ivy');
    await bringOnline(c, player);
    await ok(['warn', 'Ivy', 'first']);
    await ok(['mute', 'Ivy', 'second']);
    await ok(['unmute', 'Ivy']);
    await ok(['tempban', 'Ivy', '1d', '-g', 'Lobby', 'third']);

    const run = await punish(['history', 'ivy']);
    expect(run.status).toBe(200);
    expect(run.lines[0]).toEqual({ type: 'header', text: '3 punishment(s) of Ivy' });
    const items = run.lines.slice(1);
    expect(items.every((l) => l.type === 'item')).toBe(true);
    expect(items.map((l) => l.text.replace(/ by API \S+Z(?=:)/, ''))).toEqual([
      expect.stringMatching(/^#\d+ TEMPBAN Ivy \(group Lobby, 1d left\): third \[in force\]$/),
      expect.stringMatching(/^#\d+ MUTE Ivy \(network\): second \[revoked by API\]$/),
      expect.stringMatching(/^#\d+ WARN Ivy \(network\): first \[recorded\]$/),
    ]);

    const nothing = await punish(['history', STRANGER_UUID.replace('0001', '0002')]);
    expect(nothing.lines).toEqual([{ type: 'header', text: expect.stringMatching(/^0 punishment\(s\) of /) }]);
  });

  test('list shows the records in force, optionally of one type', async () => {
    const all = await readJson(await c.api('/api/punishments?active=true&limit=500'));
    const run = await punish(['list']);
    expect(run.status).toBe(200);
    expect(run.lines[0]).toEqual({ type: 'header', text: `${all.total} punishment(s) in force` });
    expect(run.lines.slice(1).map((l) => idIn(l.text))).toEqual(all.punishments.slice(0, 50).map((p: Stored) => p.id));
    expect(run.lines.slice(1).every((l) => l.text.endsWith('[in force]'))).toBe(true);

    const mutes = await punish(['list', 'mute']);
    const inForce = all.punishments.filter((p: Stored) => p.type === 'MUTE');
    expect(inForce.length).toBeGreaterThan(0);
    expect(mutes.lines[0]!.text).toBe(`${inForce.length} punishment(s) in force of type MUTE`);
    expect(mutes.lines.slice(1).map((l) => idIn(l.text))).toEqual(inForce.map((p: Stored) => p.id));
    // Revoked and one-off records are not in force.
    expect(run.text).not.toContain('[revoked');
    expect(run.text).not.toContain(' WARN ');
  });
});

describe('punish: usage errors', () => {
  test('missing arguments and unknown subcommands fail with the usage line', async () => {
    expect(await fails()).toMatch(/^usage: punish <ban\|tempban\|ipban\|mute\|tempmute\|kick\|warn\|unban\|unmute\|history\|list> …$/);
    expect(await fails('frobnicate', 'Alex')).toMatch(/^unknown subcommand "frobnicate"; usage: punish </);
    expect(await fails('ban')).toMatch(/^name the player; usage: punish ban <player> /);
    expect(await fails('tempban', 'Alex')).toMatch(/^give the duration, like 30m, 1d12h or 2w; usage: punish tempban /);
    expect(await fails('tempmute', 'Alex')).toMatch(/^give the duration/);
    expect(await fails('ipban', 'Alex')).toMatch(/^give the address to ban; usage: punish ipban <player> <ip> <reason>$/);
    expect(await fails('kick')).toMatch(/^name the player; usage: punish kick /);
    expect(await fails('ban', 'Alex', 'reason', '--group')).toMatch(/^--group needs a name after it; usage: punish ban /);
    expect(await fails('unban')).toMatch(/^name the player; usage: punish unban /);
    expect(await fails('unban', 'Alex', 'extra', 'words')).toMatch(/^unexpected "extra words"; usage: punish unban /);
    expect(await fails('unmute', '-s')).toMatch(/^-s needs a name after it; usage: punish unmute /);
    expect(await fails('history')).toMatch(/^name the player; usage: punish history <player>$/);
    expect(await fails('history', 'Alex', 'Bob')).toMatch(/usage: punish history <player>$/);
    expect(await fails('list', 'BAN', 'MUTE')).toBe('usage: punish list [type]');
    expect(await fails('list', 'spanking')).toContain('type must be one of BAN, TEMPBAN, IPBAN, MUTE, TEMPMUTE, KICK, WARN');
  });

  test('the command is listed with its subcommands and the player completion hint', async () => {
    const { commands } = await readJson(await c.api('/api/commands', { token: c.service }));
    const command = commands.find((x: { name: string }) => x.name === 'punish');
    expect(command).toMatchObject({ permission: 'svc.command.punish', level: 'service' });
    expect(command.subcommands.map((s: { path: string }) => s.path)).toEqual(['ban', 'tempban', 'ipban', 'mute', 'tempmute', 'kick', 'warn', 'unban', 'unmute', 'history', 'list']);
    expect(command.subcommands.find((s: { path: string }) => s.path === 'ban').completions[0]).toEqual({ position: 0, type: 'PLAYER' });
  });
});
