/**
 * Every core command through POST /api/commands/{name}/execute against real services: a
 * console-recorder proxy (it writes each stdin line to console-input.txt) and fake-paper
 * backends (Paper's console and Server List Ping). Plus the command list, completion, and
 * the errors: unknown, console-only, admin-only, failed, malformed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

const RECORDER = join(import.meta.dir, '../fixtures/console-recorder.ts');
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');

interface Line {
  type: string;
  text: string;
}

let c: TestController;

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 5000 } });
  const groups = [
    { name: 'Proxy', software: 'VELOCITY', version: '3.3.0', startCommand: [process.execPath, RECORDER], minInstances: 0 },
    { name: 'Lobby', type: 'LOBBY', software: 'CUSTOM', version: '1.21.1', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0, maxInstances: 3, maxPlayers: 20 },
  ];
  for (const group of groups) expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
}, 30_000);
afterAll(() => c.stop());

async function run(name: string, args: string[] = [], token?: string): Promise<{ status: number; lines: Line[]; body: Record<string, unknown> }> {
  const response = await c.api(`/api/commands/${name}/execute`, { method: 'POST', json: { args }, token });
  const body = await readJson(response);
  return { status: response.status, lines: body.lines ?? [], body };
}

interface BridgeSubcommand {
  path: string;
  description: string;
  usage: string;
  completions: { position: number; type: string }[];
}
interface BridgeCommand {
  name: string;
  description: string;
  permission: string;
  subcommands: BridgeSubcommand[];
}

/**
 * GET /api/commands as the Velocity bridge reads it (CloudCommand.refreshRemoteCommands, Gson):
 * the fields it takes and nothing else; a field missing or of another JSON type throws, which
 * makes the bridge keep no remote commands at all.
 */
function readLikeBridge(json: unknown): Map<string, BridgeCommand> {
  const object = (v: unknown, at: string) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${at} is not an object`);
    return v as Record<string, unknown>;
  };
  const array = (v: unknown, at: string) => {
    if (!Array.isArray(v)) throw new Error(`${at} is not an array`);
    return v as unknown[];
  };
  const string = (o: Record<string, unknown>, key: string, at: string) => {
    if (typeof o[key] !== 'string') throw new Error(`${at}.${key} is not a string`);
    return o[key] as string;
  };
  const int = (o: Record<string, unknown>, key: string, at: string) => {
    if (!Number.isInteger(o[key])) throw new Error(`${at}.${key} is not an integer`);
    return o[key] as number;
  };
  const remote = new Map<string, BridgeCommand>();
  array(object(json, 'body').commands, 'commands').forEach((raw, i) => {
    const at = `commands[${i}]`;
    const command = object(raw, at);
    const subcommands = array(command.subcommands, `${at}.subcommands`).map((rawSub, j) => {
      const subAt = `${at}.subcommands[${j}]`;
      const sub = object(rawSub, subAt);
      const completions = array(sub.completions, `${subAt}.completions`).map((rawHint, k) => {
        const hint = object(rawHint, `${subAt}.completions[${k}]`);
        return { position: int(hint, 'position', `${subAt}.completions[${k}]`), type: string(hint, 'type', `${subAt}.completions[${k}]`) };
      });
      return { path: string(sub, 'path', subAt), description: string(sub, 'description', subAt), usage: string(sub, 'usage', subAt), completions };
    });
    const name = string(command, 'name', at);
    remote.set(name, { name, description: string(command, 'description', at), permission: string(command, 'permission', at), subcommands });
  });
  return remote;
}

/**
 * The bridge's tab completion for a remote command (CloudCommand.suggestRemoteCommand): `typed`
 * are the words after the command name, the last one being typed. Within a sub-command's path it
 * offers the path word at that depth (not `<placeholders>`); past a whole path, what the hint at
 * that argument position names. It knows live PLAYER and GROUP names only.
 */
function suggestLikeBridge(command: BridgeCommand, typed: string[], live: Record<string, string[]>): string[] {
  const depth = typed.length;
  const partial = typed.at(-1)!.toLowerCase();
  const candidates = new Set<string>();
  const sameWords = (parts: string[], count: number) => parts.slice(0, count).every((part, i) => part.toLowerCase() === typed[i]!.toLowerCase());
  for (const sub of command.subcommands) {
    const parts = sub.path.split(/\s+/);
    if (depth <= parts.length && sameWords(parts, depth - 1) && !parts[depth - 1]!.startsWith('<')) candidates.add(parts[depth - 1]!);
    if (depth > parts.length && sameWords(parts, parts.length)) {
      const position = depth - parts.length - 1;
      for (const hint of sub.completions) if (hint.position === position) for (const name of live[hint.type] ?? []) candidates.add(name);
    }
  }
  return [...candidates].filter((word) => word.toLowerCase().startsWith(partial));
}

const texts = (lines: Line[], type?: string) => lines.filter((l) => type === undefined || l.type === type).map((l) => l.text);

function consoleOf(name: string): string[] {
  const file = join(c.controller.kernel.services.get(name)!.workDir, 'console-input.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

describe('service commands', () => {
  test('start follows each new instance until READY, printing progress', async () => {
    const proxy = await run('start', ['Proxy']);
    expect(proxy.status).toBe(200);
    expect(texts(proxy.lines, 'info')).toEqual([expect.stringMatching(/^Proxy-1 is starting on port \d+$/)]);
    expect(texts(proxy.lines, 'success')).toEqual([expect.stringMatching(/^Proxy-1 is READY on port \d+ \(\d+\.\d s\)$/)]);
    const lobbies = await run('start', ['Lobby', '2']);
    expect(lobbies.status).toBe(200);
    expect(texts(lobbies.lines, 'success').sort()).toEqual([expect.stringMatching(/^Lobby-1 is READY/), expect.stringMatching(/^Lobby-2 is READY/)]);
    expect(c.controller.kernel.services.get('Lobby-2')!.state).toBe('READY');
  }, 30_000);

  test('start refuses an unknown group, a bad count and the group maximum with a reason', async () => {
    const unknown = await run('start', ['Nope']);
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ success: false, error: 'COMMAND_EXECUTION_FAILED' });
    expect(unknown.body.message).toContain('group "Nope" does not exist');
    expect(texts(unknown.lines, 'error')).toEqual([String(unknown.body.message)]);
    const count = await run('start', ['Lobby', 'many']);
    expect(count.status).toBe(422);
    expect(count.body.message).toBe('"many" is not a whole number from 1 to 50; usage: start <group> [count] [--no-wait]');
    const full = await run('start', ['Lobby', '2', '--no-wait']);
    expect(full.status).toBe(422);
    expect(String(full.body.message)).toContain('maximum of 3');
    // the one that fitted was started and reported before the limit stopped the rest
    expect(texts(full.lines, 'info')).toEqual([expect.stringMatching(/^Lobby-3 is starting/)]);
    await waitFor(() => c.controller.kernel.services.get('Lobby-3')?.state === 'READY', { timeoutMs: 20_000, what: 'Lobby-3 READY' });
  }, 30_000);

  test('exec writes to the console; logs shows what the server printed', async () => {
    const exec = await run('exec', ['Lobby-1', 'say', 'hello', 'there']);
    expect(exec.status).toBe(200);
    expect(texts(exec.lines)).toEqual(['sent to Lobby-1: say hello there']);
    await waitFor(async () => texts((await run('logs', ['Lobby-1'])).lines, 'text').includes('[12:00:00 INFO]: [Server] hello there'), { what: 'the say line in logs' });
    const stdout = await run('logs', ['Lobby-1', '5', '--stdout']);
    expect(stdout.lines[0]).toEqual({ type: 'header', text: 'Lobby-1: last 5 line(s) of the process output' });
    expect(texts(stdout.lines, 'text')).toHaveLength(5);
    const missing = await run('logs', ['Nope']);
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe('service "Nope" does not exist; `list` shows the services');
    const notRunning = await run('exec', ['Lobby-1']);
    expect(notRunning.body.message).toBe('too few arguments; usage: exec <service> <command…>');
  });

  test('info, list and groups describe what runs', async () => {
    const info = await run('info', ['Lobby-1']);
    expect(info.lines[0]).toEqual({ type: 'header', text: 'Lobby-1 (Lobby)' });
    expect(texts(info.lines, 'item')).toContain('state: READY');
    // an alias runs its command
    const list = await run('ls', ['Lobby']);
    expect(list.lines[0]!.text).toBe('3 service(s) of Lobby');
    expect(texts(list.lines, 'item').map((t) => t.split(' ')[0])).toEqual(['Lobby-1', 'Lobby-2', 'Lobby-3']);
    const all = await run('list');
    expect(all.lines[0]!.text).toBe('4 service(s)');
    const groups = await run('groups');
    expect(texts(groups.lines, 'item')).toEqual([expect.stringMatching(/^Lobby +LOBBY CUSTOM 1\.21\.1 +3 running \(min 0, max 3\)/), expect.stringMatching(/^Proxy +DYNAMIC VELOCITY 3\.3\.0 +1 running/)]);
  });

  test('stop (several at once) and restart report each step', async () => {
    const stop = await run('stop', ['Lobby-3']);
    expect(stop.status).toBe(200);
    expect(stop.lines.map((l) => l.type)).toEqual(['info', 'success']);
    expect(texts(stop.lines, 'success')).toEqual([expect.stringMatching(/^Lobby-3 stopped \(\d+\.\d s\)$/)]);
    expect(c.controller.kernel.services.get('Lobby-3')).toBeUndefined();
    const restart = await run('restart', ['Lobby-2']);
    expect(restart.status).toBe(200);
    expect(texts(restart.lines, 'info')).toEqual(['stopping Lobby-2', expect.stringMatching(/^Lobby-2 stopped; Lobby-\d is starting on port \d+$/)]);
    expect(texts(restart.lines, 'success')).toEqual([expect.stringMatching(/^Lobby-\d is READY/)]);
    const unknown = await run('stop', ['Lobby-1', 'Nope']);
    expect(unknown.status).toBe(422);
    // nothing was stopped: every name is checked first
    expect(c.controller.kernel.services.get('Lobby-1')!.state).toBe('READY');
  }, 30_000);
});

describe('network commands', () => {
  test('status sums up the network', async () => {
    const status = await run('status');
    expect(status.lines[0]).toEqual({ type: 'header', text: 'svc: online' });
    expect(texts(status.lines, 'info')[0]).toMatch(/^uptime .* · 3 service\(s\) · 0 player\(s\)$/);
    expect(texts(status.lines, 'item')).toContain('Lobby: 2/3 instance(s) · 0/40 players · CUSTOM 1.21.1');
  });

  test('broadcast reaches the proxy and the backends; send goes through the proxy', async () => {
    const broadcast = await run('bc', ['server', 'restarts', 'soon']);
    expect(broadcast.status).toBe(200);
    expect(texts(broadcast.lines, 'success')).toEqual(['broadcast written to 3/3 READY service(s)']);
    await waitFor(() => consoleOf('Proxy-1').includes('velocity broadcast server restarts soon'), { what: 'the proxy broadcast' });
    await waitFor(async () => texts((await run('logs', ['Lobby-1'])).lines).some((t) => t.endsWith('[Server] server restarts soon')), { what: 'the backend say' });
    const group = await run('broadcast', ['--group', 'Proxy', 'only', 'proxies']);
    expect(texts(group.lines, 'success')).toEqual(['broadcast written to 1/1 READY service(s)']);
    const send = await run('send', ['Alice', 'Lobby-1']);
    expect(texts(send.lines, 'success')).toEqual(['Alice is being sent to Lobby-1 (through Proxy-1)']);
    await waitFor(() => consoleOf('Proxy-1').includes('send Alice Lobby-1'), { what: 'the send command' });
    const badName = await run('send', ['no way!', 'Lobby-1']);
    expect(badName.body.message).toBe('"no way!" is not a player name; usage: send <player> <service>');
  });

  test('players asks every READY backend', async () => {
    const players = await run('players');
    expect(players.status).toBe(200);
    expect(players.lines[0]).toEqual({ type: 'header', text: '0 player(s) online' });
    expect(texts(players.lines, 'error')).toEqual([]);
  });

  test('maintenance: network flag, group flag, whitelist, status', async () => {
    expect(texts((await run('maintenance', ['on', 'new', 'map'])).lines)).toEqual(['network maintenance is ON: only whitelisted players can join']);
    expect(c.controller.kernel.maintenance.status().global).toMatchObject({ enabled: true, reason: 'new map' });
    expect(texts((await run('maint', ['on'])).lines)).toEqual(['network maintenance was already on']);
    expect(texts((await run('maintenance', ['group', 'Lobby', 'on'])).lines)).toEqual(['maintenance of group Lobby is now ON']);
    expect(texts((await run('maintenance', ['whitelist', 'add', 'Alice'])).lines)).toEqual(['Alice may join during maintenance']);
    const status = await run('maintenance');
    expect(status.lines).toEqual([
      { type: 'header', text: 'maintenance: ON (new map)' },
      { type: 'item', text: 'group Lobby: ON' },
      { type: 'info', text: 'whitelist: Alice' },
    ]);
    expect(texts((await run('maintenance', ['whitelist', 'list'])).lines)).toEqual(['1 whitelisted', 'Alice']);
    expect(texts((await run('maintenance', ['whitelist', 'remove', 'alice'])).lines)).toEqual(['alice removed from the maintenance whitelist']);
    expect(texts((await run('maintenance', ['off'])).lines)).toEqual(['network maintenance is off']);
    expect((await run('maintenance', ['group', 'Nope', 'on'])).body).toMatchObject({ error: 'COMMAND_EXECUTION_FAILED', message: expect.stringContaining('Nope') });
    expect((await run('maintenance', ['sideways'])).body.message).toStartWith('unknown subcommand "sideways"; usage: maintenance');
    expect((await run('maintenance', ['whitelist', 'add', 'bad name!'])).body.message).toStartWith('"bad name!" is not a player name or uuid');
  });
});

describe('system commands', () => {
  test('help lists every command; help <command> explains one', async () => {
    const help = await run('help');
    const names = texts(help.lines, 'item').map((t) => t.split(' ')[0]);
    for (const name of ['help', 'status', 'list', 'groups', 'info', 'start', 'stop', 'restart', 'exec', 'logs', 'screen', 'send', 'broadcast', 'maintenance', 'players', 'reload', 'audit', 'api', 'version', 'shutdown', 'clear']) {
      expect(names).toContain(name);
    }
    expect(texts(help.lines, 'item').find((t) => t.startsWith('screen'))).toEndWith('(interactive console only)');
    const one = await run('help', ['maint']);
    expect(one.lines[0]!.text).toStartWith('maintenance [status');
    expect(texts(one.lines, 'info')).toEqual(['aliases: maint']);
    expect(texts(one.lines, 'item')).toHaveLength(5);
    expect((await run('help', ['nope'])).status).toBe(422);
  });

  test('version, reload and audit', async () => {
    expect(texts((await run('version')).lines, 'header')).toEqual(['svc 0.13.0']);
    const reload = await run('reload');
    expect(reload.status).toBe(200);
    expect(texts(reload.lines, 'item').some((t) => t.startsWith('groups: applied'))).toBe(true);
    const audit = await run('audit', ['5', '--action', 'SERVICE_STARTING']);
    expect(audit.lines[0]!.text).toMatch(/^5 of \d+ audit entries, newest first$/);
    expect(texts(audit.lines, 'item').every((t) => t.includes('api:admin  SERVICE_STARTING'))).toBe(true);
  });

  test('api names where the token comes from and never prints it whole', async () => {
    const api = await run('api');
    const all = texts(api.lines).join('\n');
    expect(all).toContain(`master token: ${c.master.slice(0, 8)}… ([api] token in svc.toml)`);
    expect(all).not.toContain(c.master);
    expect(all).not.toContain(c.service);
  });

  test('shutdown needs `shutdown confirm` from the same caller', async () => {
    const early = await run('shutdown', ['confirm']);
    expect(early.status).toBe(422);
    expect(early.body.message).toStartWith('nothing to confirm');
    const ask = await run('shutdown');
    expect(texts(ask.lines, 'info')).toEqual(['this stops 3 running service(s) and the controller', 'type `shutdown confirm` within 30 s to go ahead']);
    expect(c.shutdownRequests).toEqual([]);
    const confirm = await run('end', ['confirm']);
    expect(confirm.status).toBe(200);
    expect(c.shutdownRequests).toEqual(['shutdown confirmed on the console']);
    // used once
    expect((await run('shutdown', ['confirm'])).status).toBe(422);
  });
});

describe('errors and access', () => {
  test('unknown command: 404 COMMAND_NOT_FOUND', async () => {
    const response = await c.api('/api/commands/frobnicate/execute', { method: 'POST', json: { args: [] } });
    expect(response.status).toBe(404);
    expect((await expectErrorBody(response)).error).toBe('COMMAND_NOT_FOUND');
  });

  test('console-only commands: 400 COMMAND_NOT_REMOTE', async () => {
    for (const name of ['screen', 'clear', 'cls']) {
      const response = await c.api(`/api/commands/${name}/execute`, { method: 'POST', json: { args: ['Lobby-1'] } });
      expect(response.status).toBe(400);
      expect((await expectErrorBody(response)).error).toBe('COMMAND_NOT_REMOTE');
    }
  });

  test('admin commands refuse the derived service token; service commands take it', async () => {
    for (const name of ['shutdown', 'reload', 'audit', 'api']) {
      const response = await c.api(`/api/commands/${name}/execute`, { method: 'POST', json: { args: [] }, token: c.service });
      expect(response.status).toBe(403);
      expect((await expectErrorBody(response)).error).toBe('FORBIDDEN');
    }
    expect((await run('status', [], c.service)).status).toBe(200);
    expect((await c.api('/api/commands/status/execute', { method: 'POST', json: { args: [] }, token: null })).status).toBe(401);
  });

  test('a command that succeeds answers {success:true, lines} and nothing else', async () => {
    const { status, body } = await run('version');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['lines', 'success']);
    expect(body.success).toBe(true);
    expect(body.lines).toContainEqual({ type: 'header', text: 'svc 0.13.0' });
  });

  test('a command that fails: 422 COMMAND_EXECUTION_FAILED with the message the bridge shows and the lines printed', async () => {
    const { status, body, lines } = await run('info', ['Nope']);
    expect(status).toBe(422);
    expect(Object.keys(body).sort()).toEqual(['error', 'lines', 'message', 'success']);
    expect(body).toMatchObject({ success: false, error: 'COMMAND_EXECUTION_FAILED', message: 'service "Nope" does not exist; `list` shows the services' });
    expect(lines.at(-1)).toEqual({ type: 'error', text: String(body.message) });
  });

  test("the bridge's caller {uuid, name} is accepted from the operator's and the shared service token only, and grants nothing", async () => {
    const execute = (name: string, caller: unknown, token?: string) => c.api(`/api/commands/${name}/execute`, { method: 'POST', json: { args: [], caller }, token });
    for (const uuid of ['069a79f4-44e9-4726-a5be-fca90e38aaf5', '069A79F444E94726A5BEFCA90E38AAF5']) {
      const response = await execute('version', { uuid, name: 'Notch' }, c.master);
      expect(response.status).toBe(200);
      expect((await readJson(response)).lines).toContainEqual({ type: 'header', text: 'svc 0.13.0' });
    }
    // the spec's shared token keeps speaking for players (svc hands it to no server any more)
    expect((await execute('version', { uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5', name: 'Notch' }, c.service)).status).toBe(200);
    // a JWT below admin never does, even one that may write
    const writer = (await c.controller.kernel.auth.mintJwt('writer', ['services:write'], 600)).token;
    const refused = await execute('version', { uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5', name: 'Notch' }, writer);
    expect(refused.status).toBe(403);
    expect((await expectErrorBody(refused)).message).toContain('caller');
    // without a caller the derived token runs service-level commands as before
    expect((await c.api('/api/commands/version/execute', { method: 'POST', json: { args: [] }, token: c.service })).status).toBe(200);
  });

  test('a malformed caller: 400 VALIDATION_FAILED naming it', async () => {
    const uuid = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
    for (const caller of ['Notch', { uuid: 'not-a-uuid', name: 'Notch' }, { uuid, name: 'two words' }, { uuid, name: '' }, { uuid }, { name: 'Notch' }, [uuid, 'Notch']]) {
      const response = await c.api('/api/commands/version/execute', { method: 'POST', json: { args: [], caller } });
      expect(response.status).toBe(400);
      const body = await expectErrorBody(response);
      expect(body.error).toBe('VALIDATION_FAILED');
      expect(body.message).toContain('caller');
    }
  });

  test('malformed bodies: 400 VALIDATION_FAILED', async () => {
    for (const json of [{ args: 'status' }, { args: ['a\nstop'] }, { args: [1] }, { args: Array(257).fill('x') }]) {
      const response = await c.api('/api/commands/status/execute', { method: 'POST', json });
      expect(response.status).toBe(400);
      expect((await expectErrorBody(response)).error).toBe('VALIDATION_FAILED');
    }
    // no args at all is the same as none
    expect((await c.api('/api/commands/version/execute', { method: 'POST', json: {} })).status).toBe(200);
  });
});

describe('GET /api/commands and POST /api/console/complete', () => {
  test('lists every command with a permission node, with our metadata beside the bridge\'s', async () => {
    const { commands, total } = await readJson(await c.api('/api/commands', { token: c.service }));
    expect(total).toBe(commands.length);
    const remote = c.controller.kernel.commands.all().filter((x) => x.permission !== '').map((x) => x.name);
    expect(commands.map((x: { name: string }) => x.name)).toEqual(remote);
    expect(remote).not.toContain('screen');
    expect(remote).not.toContain('clear');
    const start = commands.find((x: { name: string }) => x.name === 'start');
    expect(start).toEqual({
      name: 'start',
      aliases: [],
      description: expect.any(String),
      usage: 'start <group> [count] [--no-wait]',
      permission: 'svc.command.start',
      level: 'service',
      completions: [
        { position: 0, type: 'GROUP' },
        { position: 1, type: 'NUMBER' },
      ],
      subcommands: [],
    });
    const maintenance = commands.find((x: { name: string }) => x.name === 'maintenance');
    expect(maintenance.aliases).toEqual(['maint']);
    expect(maintenance.subcommands.map((s: { path: string }) => s.path)).toEqual(['status', 'on', 'off', 'group', 'whitelist']);
    expect(maintenance.subcommands.find((s: { path: string }) => s.path === 'group')).toEqual({
      path: 'group',
      description: 'Maintenance for one group',
      usage: 'maintenance group <group> <on|off> [reason…]',
      completions: [
        { position: 0, type: 'GROUP' },
        { position: 1, type: 'CHOICE', values: ['on', 'off'] },
        { position: 2, type: 'FREE_TEXT' },
      ],
    });
    expect(commands.find((x: { name: string }) => x.name === 'send').completions).toEqual([
      { position: 0, type: 'PLAYER' },
      { position: 1, type: 'SERVICE' },
    ]);
    expect(commands.find((x: { name: string }) => x.name === 'help').completions).toEqual([{ position: 0, type: 'COMMAND' }]);
    expect(commands.find((x: { name: string }) => x.name === 'shutdown').level).toBe('admin');
  });

  test('the bridge reads every field it parses with the JSON type it expects', async () => {
    const remote = readLikeBridge(await readJson(await c.api('/api/commands', { token: c.service })));
    expect(remote.size).toBe(c.controller.kernel.commands.all().filter((x) => x.permission !== '').length);
    expect(remote.get('status')).toEqual({ name: 'status', description: expect.any(String), permission: 'svc.command.status', subcommands: [] });
    const whitelist = remote.get('maintenance')!.subcommands.find((s) => s.path === 'whitelist')!;
    expect(whitelist).toEqual({
      path: 'whitelist',
      description: 'Who may join during maintenance',
      usage: 'maintenance whitelist <add|remove|list> [player]',
      completions: [
        { position: 0, type: 'CHOICE' },
        { position: 1, type: 'PLAYER' },
      ],
    });
  });

  test("the bridge's tab completion over the list: path words, then the hint at each argument's position", async () => {
    const remote = readLikeBridge(await readJson(await c.api('/api/commands', { token: c.service })));
    const maintenance = remote.get('maintenance')!;
    const live = { GROUP: ['Lobby', 'Proxy'], PLAYER: ['Alice', 'Bob'] };
    expect(suggestLikeBridge(maintenance, [''], live)).toEqual(['status', 'on', 'off', 'group', 'whitelist']);
    expect(suggestLikeBridge(maintenance, ['w'], live)).toEqual(['whitelist']);
    expect(suggestLikeBridge(maintenance, ['group', 'L'], live)).toEqual(['Lobby']);
    expect(suggestLikeBridge(maintenance, ['whitelist', 'add', ''], live)).toEqual(['Alice', 'Bob']);
    // the bridge completes nothing for kinds it does not know (SERVICE, CHOICE, …)
    expect(suggestLikeBridge(maintenance, ['whitelist', ''], live)).toEqual([]);
  });

  const complete = async (buffer: string, cursor = buffer.length, token?: string) => c.api('/api/console/complete', { method: 'POST', json: { buffer, cursor }, token });

  test('completes command names, subcommands and live names', async () => {
    expect((await readJson(await complete('sta'))).candidates).toEqual(['start', 'status']);
    expect((await readJson(await complete('info Lob'))).candidates).toEqual(['Lobby-1', expect.stringMatching(/^Lobby-\d$/)]);
    expect((await readJson(await complete('start '))).candidates).toEqual(['Lobby', 'Proxy']);
    expect((await readJson(await complete('maintenance w'))).candidates).toEqual(['whitelist']);
    expect((await readJson(await complete('maintenance group Lobby o'))).candidates).toEqual(['off', 'on']);
    // the cursor decides the word, not the end of the buffer
    expect((await readJson(await complete('sta Lobby', 3))).candidates).toEqual(['start', 'status']);
    expect((await readJson(await complete('nope x'))).candidates).toEqual([]);
  });

  test('complete is admin only and validates its body', async () => {
    expect((await complete('sta', 3, c.service)).status).toBe(403);
    const bad = await c.api('/api/console/complete', { method: 'POST', json: { buffer: 'x', cursor: -1 } });
    expect(bad.status).toBe(400);
    expect((await expectErrorBody(bad)).error).toBe('VALIDATION_FAILED');
  });
});
