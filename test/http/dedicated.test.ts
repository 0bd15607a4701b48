/** Dedicated services over HTTP, with the fake Paper fixture as the server (real processes and sockets). */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Controller } from '../../src/controller';
import { DEDICATED_FIELDS } from '../../src/core/dedicated/model';
import { pingServer } from '../../src/core/net/server-list-ping';
import { formatUptime } from '../../src/core/services/uptime';
import { memoryMaxMb } from '../../src/core/software/memory';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TIMING = { stopTimeoutMs: 2000, drainPollMs: 20, restart: { baseDelayMs: 10, maxDelayMs: 50, loopThreshold: 10, loopWindowMs: 60_000, stableAfterMs: 600_000 } };

let c: TestController;
const events: { type: string; data: Record<string, string> }[] = [];

/** A CUSTOM dedicated config running the fake Paper fixture through startCommand. */
function fakeDedicated(name: string, port: number, extra: Record<string, unknown> = {}, args: string[] = []) {
  return { name, port, software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', ...args], ...extra };
}

/** A port nothing listens on right now (the OS picks it). */
/** Ports handed out in this file: the OS may offer a released port again, which another config here may still name. */
const handedOut = new Set<number>();

function freePort(): number {
  for (;;) {
    const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const { port } = listener;
    listener.stop(true);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

const post = (path: string, json?: unknown) => c.api(path, { method: 'POST', json });
const detail = async (name: string) => readJson(await c.api(`/api/dedicated/${name}`));
const ofType = (type: string, key: string, value: string) => events.filter((e) => e.type === type && e.data[key] === value);
const dirOf = (name: string) => join(c.dir, 'dedicated', name);

let survivalPort = 0;

beforeAll(async () => {
  c = await startController({ timing: TIMING });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
  survivalPort = freePort();
});
afterAll(() => c.stop());

describe('create', () => {
  test('201 with the view; the directory is provisioned; DEDICATED_CREATED', async () => {
    const res = await post('/api/dedicated', fakeDedicated('Survival', survivalPort, { memory: '1G' }));
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, message: expect.stringContaining('created') });
    expect(body.service).toEqual({
      name: 'Survival',
      port: survivalPort,
      software: 'CUSTOM',
      version: '1.21.1',
      jarName: 'server.jar',
      readyPattern: '',
      javaPath: '',
      startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'],
      proxyEnabled: true,
      memory: '1G',
      restartOnCrash: true,
      maxRestarts: 5,
      jvmArgs: [],
      jvmOptimize: true,
      directory: dirOf('Survival'),
      state: null,
      pid: null,
      playerCount: null,
      uptime: null,
      uptimeSeconds: 0,
    });
    expect(readFileSync(join(dirOf('Survival'), 'eula.txt'), 'utf8')).toContain('eula=true');
    expect(readFileSync(join(dirOf('Survival'), 'server.properties'), 'utf8')).toContain(`server-port=${survivalPort}`);
    const file = readFileSync(join(c.dir, 'config', 'dedicated', 'Survival.toml'), 'utf8');
    expect(file).toContain('[dedicated]');
    expect(file).toContain(`port = ${survivalPort}`);
    expect(ofType('DEDICATED_CREATED', 'name', 'Survival').map((e) => e.data)).toEqual([{ name: 'Survival' }]);
    const list = await readJson(await c.api('/api/dedicated'));
    expect(list.total).toBe(1);
    expect(list.services.map((s: { name: string }) => s.name)).toEqual(['Survival']);
  });

  test('a duplicate is 409 DEDICATED_ALREADY_EXISTS; another config on the same port is 409 DEDICATED_PORT_IN_USE', async () => {
    const duplicate = await post('/api/dedicated', fakeDedicated('Survival', freePort()));
    expect(duplicate.status).toBe(409);
    expect((await expectErrorBody(duplicate)).error).toBe('DEDICATED_ALREADY_EXISTS');
    const samePort = await post('/api/dedicated', fakeDedicated('Creative', survivalPort));
    expect(samePort.status).toBe(409);
    const body = await expectErrorBody(samePort);
    expect(body.error).toBe('DEDICATED_PORT_IN_USE');
    expect(body.message).toContain('"Survival"');
    expect(existsSync(dirOf('Creative'))).toBe(false);
  });

  test.each([
    ['no port', { name: 'X', software: 'PAPER', version: '1.21.1' }, 'port'],
    ['port 0', { name: 'X', port: 0, software: 'PAPER', version: '1.21.1' }, 'port'],
    ['port 65536', { name: 'X', port: 65_536, software: 'PAPER', version: '1.21.1' }, 'port'],
    ['a bad name', { name: 'a/b', port: 25_600, software: 'PAPER', version: '1.21.1' }, 'name'],
    ['unknown software', { name: 'X', port: 25_600, software: 'SPIGOT', version: '1.21.1' }, 'software'],
    ['a bad version', { name: 'X', port: 25_600, software: 'PAPER', version: 'latest' }, 'version'],
    ['a bad memory', { name: 'X', port: 25_600, software: 'PAPER', version: '1.21.1', memory: 'lots' }, 'memory'],
    ['CUSTOM without a jar or command', { name: 'X', port: 25_600, software: 'CUSTOM', version: '1.21.1' }, 'jarName'],
    ['a broken ready pattern', { name: 'X', port: 25_600, software: 'PAPER', version: '1.21.1', readyPattern: 'Done (' }, 'readyPattern'],
  ])('400 VALIDATION_FAILED for %s', async (_what, json, fragment) => {
    const res = await post('/api/dedicated', json);
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toContain(fragment);
    expect(existsSync(join(c.dir, 'config', 'dedicated', 'X.toml'))).toBe(false);
  });

  test('a name a group (or its instances) uses is refused with 400', async () => {
    expect((await post('/api/groups', { name: 'Lobby', software: 'PAPER', version: '1.21.1', minInstances: 0 })).status).toBe(201);
    for (const name of ['Lobby', 'Lobby-3']) {
      const res = await post('/api/dedicated', fakeDedicated(name, freePort()));
      expect(res.status).toBe(400);
      expect((await expectErrorBody(res)).message).toContain('group "Lobby"');
    }
  });

  test('and the other way round: a group cannot take the name of a dedicated service (409)', async () => {
    const res = await post('/api/groups', { name: 'Survival', software: 'PAPER', version: '1.21.1', minInstances: 0 });
    expect(res.status).toBe(409);
    expect(await expectErrorBody(res)).toMatchObject({ error: 'GROUP_ALREADY_EXISTS', message: expect.stringContaining('a dedicated service is named Survival') });
  });
});

describe('partial update (PUT)', () => {
  const file = (name: string) => join(c.dir, 'config', 'dedicated', `${name}.toml`);
  const put = (name: string, json: unknown) => c.api(`/api/dedicated/${name}`, { method: 'PUT', json });
  /** Every config field of a view, in field-table order. */
  const configOf = (view: Record<string, unknown>) => Object.fromEntries(Object.keys(DEDICATED_FIELDS).map((key) => [key, view[key]]));
  /** What the dashboard's edit dialog sends: the loaded values, the three launch strings blanked, never startCommand. */
  const dashboardEdit = (view: Record<string, unknown>, edits: Record<string, unknown> = {}) => ({
    name: view.name,
    port: view.port,
    software: view.software,
    version: view.version,
    jarName: '',
    readyPattern: '',
    javaPath: '',
    proxyEnabled: view.proxyEnabled,
    memory: view.memory,
    restartOnCrash: view.restartOnCrash,
    maxRestarts: view.maxRestarts,
    jvmArgs: view.jvmArgs,
    jvmOptimize: view.jvmOptimize,
    ...edits,
  });

  let editedPort = 0;
  /** Every field away from its default. */
  const edited = () => ({
    name: 'Edited',
    port: editedPort,
    software: 'CUSTOM',
    version: '1.20.4',
    jarName: 'custom-server.jar',
    readyPattern: 'Ready in \\d+ms',
    javaPath: '/opt/java21/bin/java',
    startCommand: ['./launch.sh', '{port}', '{memory}'],
    proxyEnabled: false,
    memory: '3G',
    restartOnCrash: false,
    maxRestarts: 9,
    jvmArgs: ['-Xss1M', '-Dfile.encoding=UTF-8'],
    jvmOptimize: false,
  });

  beforeAll(async () => {
    editedPort = freePort();
    expect((await post('/api/dedicated', edited())).status).toBe(201);
  });

  test('the fixture covers every field with a non-default value', () => {
    const values: Record<string, unknown> = edited();
    for (const [key, field] of Object.entries(DEDICATED_FIELDS)) expect({ key, value: values[key] }).not.toEqual({ key, value: field.default });
  });

  test("the dashboard's edit body keeps startCommand; \"\" unsets jarName/readyPattern/javaPath; a CUSTOM service stays editable", async () => {
    const before = await detail('Edited');
    const res = await put('Edited', dashboardEdit(before, { maxRestarts: 4, memory: '4G' }));
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toMatchObject({ success: true, message: 'dedicated service Edited updated' });
    const after = await detail('Edited');
    expect(body.service).toEqual(after);
    expect(configOf(after)).toEqual({ ...configOf(before), jarName: '', readyPattern: '', javaPath: '', maxRestarts: 4, memory: '4G' });
    expect(after.startCommand).toEqual(['./launch.sh', '{port}', '{memory}']);
    const text = readFileSync(file('Edited'), 'utf8');
    expect(text).toContain('start_command = ["./launch.sh", "{port}", "{memory}"]');
    expect(text).toContain('jar_name = ""');
  });

  test('a body with one field changes that field only (every field round-trips)', async () => {
    // Back to every field non-default, then one field at a time.
    expect((await put('Edited', edited())).status).toBe(200);
    const start = await detail('Edited');
    expect(configOf(start)).toEqual(edited());
    const changes: Record<string, unknown> = {
      port: freePort(),
      software: 'PAPER',
      version: '1.21.4',
      jarName: 'other.jar',
      readyPattern: 'Done',
      javaPath: '/usr/bin/java',
      startCommand: ['./other.sh'],
      proxyEnabled: true,
      memory: '1G',
      restartOnCrash: true,
      maxRestarts: 1,
      jvmArgs: [],
      jvmOptimize: true,
    };
    let expected = configOf(start);
    for (const [key, value] of Object.entries(changes)) {
      const res = await put('Edited', { [key]: value });
      expect({ key, status: res.status }).toEqual({ key, status: 200 });
      expected = { ...expected, [key]: value };
      expect(configOf(await detail('Edited'))).toEqual(expected);
    }
  });

  test('an empty body changes nothing and keeps the file byte-stable', async () => {
    const before = readFileSync(file('Edited'), 'utf8');
    const view = await detail('Edited');
    const res = await put('Edited', {});
    expect(res.status).toBe(200);
    expect(await detail('Edited')).toEqual(view);
    expect(readFileSync(file('Edited'), 'utf8')).toBe(before);
  });

  test('memory "" means "not given": the current value stays', async () => {
    expect((await put('Edited', { memory: '5G' })).status).toBe(200);
    const res = await put('Edited', { memory: '', maxRestarts: 6 });
    expect(res.status).toBe(200);
    expect((await readJson(res)).service).toMatchObject({ memory: '5G', maxRestarts: 6 });
  });

  test('POST: memory "" is the default, "" launch strings are unset', async () => {
    const res = await post('/api/dedicated', { name: 'Blank', port: freePort(), software: 'PAPER', version: '1.21.4', memory: '', jarName: '', readyPattern: '', javaPath: '' });
    expect(res.status).toBe(201);
    expect((await readJson(res)).service).toMatchObject({ memory: '2G', jarName: '', readyPattern: '', javaPath: '' });
    expect((await c.api('/api/dedicated/Blank', { method: 'DELETE' })).status).toBe(200);
  });

  test.each([
    ['a bad memory', { memory: 'lots' }, '"memory"'],
    ['a bad port', { port: 0 }, '"port"'],
    ['a broken ready pattern', { readyPattern: 'Done (' }, 'readyPattern'],
    ['CUSTOM left without a jar or a command (after the merge)', { software: 'CUSTOM', jarName: '', startCommand: [] }, '"jarName" is required for CUSTOM'],
    ['another name', { name: 'Renamed' }, 'cannot change'],
  ])('400 VALIDATION_FAILED naming the field: %s; nothing changes', async (_what, json, fragment) => {
    const before = readFileSync(file('Edited'), 'utf8');
    const res = await put('Edited', json);
    expect(res.status).toBe(400);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('VALIDATION_FAILED');
    expect(body.message).toContain(fragment);
    expect(readFileSync(file('Edited'), 'utf8')).toBe(before);
  });

  test('the port of another dedicated service is 409 DEDICATED_PORT_IN_USE', async () => {
    const res = await put('Edited', { port: survivalPort });
    expect(res.status).toBe(409);
    expect((await expectErrorBody(res)).error).toBe('DEDICATED_PORT_IN_USE');
  });

  test('404 DEDICATED_NOT_FOUND for an unknown name, also with a partial body', async () => {
    for (const json of [{}, { maxRestarts: 2 }]) {
      const res = await put('Nope', json);
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('DEDICATED_NOT_FOUND');
    }
  });

  afterAll(async () => {
    expect((await c.api('/api/dedicated/Edited', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('lifecycle (real processes)', () => {
  test('start: READY on the Done line, on its fixed port; /api/services lists it as dedicated', async () => {
    const res = await post('/api/dedicated/Survival/start');
    expect(res.status).toBe(200);
    const started = await readJson(res);
    expect(started.service).toMatchObject({ name: 'Survival', state: 'STARTING', port: survivalPort });
    expect(started.service.pid).toBeGreaterThan(0);
    await waitFor(async () => (await detail('Survival')).state === 'READY', { what: 'Survival READY' });
    const status = await pingServer('127.0.0.1', survivalPort, { timeoutMs: 2000 });
    expect(status.players.max).toBeGreaterThan(0);

    const services = await readJson(await c.api('/api/services'));
    const listed = services.services.find((s: { name: string }) => s.name === 'Survival');
    expect(listed).toMatchObject({ name: 'Survival', groupName: 'Survival', state: 'READY', port: survivalPort, isDedicated: true, proxyEnabled: true, memoryMaxMb: memoryMaxMb('1G') });
    const list = await readJson(await c.api('/api/dedicated'));
    const view = list.services.find((s: { name: string }) => s.name === 'Survival');
    expect(view).toMatchObject({ state: 'READY', pid: listed.pid, playerCount: 0 });
    expect(view.pid).toBeGreaterThan(0);
    // Running: the reference's formatted string, and the number beside it.
    expect(view.uptime).toMatch(/^\d+h \d+m \d+s$/);
    expect(Number.isInteger(view.uptimeSeconds)).toBe(true);
    expect(view.uptime).toBe(formatUptime(view.uptimeSeconds));
    // The player count the server reports shows through, as a number.
    expect((await c.api('/api/services/Survival/players', { method: 'PUT', json: { playerCount: 3 } })).status).toBe(200);
    expect((await detail('Survival')).playerCount).toBe(3);
    // Back to empty: a stop drains players first.
    expect((await c.api('/api/services/Survival/players', { method: 'PUT', json: { playerCount: 0 } })).status).toBe(200);
    // The service ran in its own directory, which the server wrote into.
    expect(existsSync(join(dirOf('Survival'), 'logs', 'latest.log'))).toBe(true);
  });

  test('start again is 409 DEDICATED_ALREADY_RUNNING', async () => {
    const res = await post('/api/dedicated/Survival/start');
    expect(res.status).toBe(409);
    expect((await expectErrorBody(res)).error).toBe('DEDICATED_ALREADY_RUNNING');
  });

  test('PUT while running is accepted and applies at the next start', async () => {
    const res = await c.api('/api/dedicated/Survival', { method: 'PUT', json: fakeDedicated('Survival', survivalPort, { memory: '2G', maxRestarts: 3 }) });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.message).toContain('next start');
    expect(body.service).toMatchObject({ memory: '2G', maxRestarts: 3, state: 'READY' });
    expect(readFileSync(join(c.dir, 'config', 'dedicated', 'Survival.toml'), 'utf8')).toContain('max_restarts = 3');
    const renamed = await c.api('/api/dedicated/Survival', { method: 'PUT', json: fakeDedicated('Other', survivalPort) });
    expect(renamed.status).toBe(400);
    expect((await expectErrorBody(renamed)).message).toContain('cannot change');
  });

  test('delete while running is 409 DEDICATED_ALREADY_RUNNING', async () => {
    const res = await c.api('/api/dedicated/Survival', { method: 'DELETE' });
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('DEDICATED_ALREADY_RUNNING');
    expect(body.message).toContain('stop it first');
    expect(existsSync(join(c.dir, 'config', 'dedicated', 'Survival.toml'))).toBe(true);
  });

  test('restart: a new process with the current config, READY again', async () => {
    const before = (await detail('Survival')).pid;
    const res = await post('/api/dedicated/Survival/restart');
    expect(res.status).toBe(200);
    await waitFor(async () => (await detail('Survival')).state === 'READY', { what: 'Survival READY again' });
    const after = await readJson(await c.api('/api/services/Survival'));
    expect(after.pid).not.toBe(before);
    expect(after.memoryMaxMb).toBe(memoryMaxMb('2G')); // the PUT applied at this start
  });

  test('stop: STOPPED, unregistered, the port free, the directory kept; stopping again is a no-op', async () => {
    const res = await post('/api/dedicated/Survival/stop');
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.service).toMatchObject({ state: null, pid: null, playerCount: null, uptime: null, uptimeSeconds: 0 });
    expect(ofType('SERVICE_STOPPED', 'service', 'Survival').length).toBeGreaterThanOrEqual(1);
    expect((await c.api('/api/services/Survival')).status).toBe(404);
    expect(existsSync(join(dirOf('Survival'), 'server.properties'))).toBe(true);
    await expect(pingServer('127.0.0.1', survivalPort, { timeoutMs: 500 })).rejects.toThrow();
    const again = await post('/api/dedicated/Survival/stop');
    expect(again.status).toBe(200);
    expect((await readJson(again)).message).toContain('not running');
  });

  test('restart of a stopped service starts it', async () => {
    const res = await post('/api/dedicated/Survival/restart');
    expect(res.status).toBe(200);
    expect((await readJson(res)).message).toContain('not running');
    await waitFor(async () => (await detail('Survival')).state === 'READY', { what: 'Survival READY' });
    expect((await post('/api/dedicated/Survival/stop')).status).toBe(200);
  });

  test('a restart whose start half fails is 409 SERVICE_RESTART_FAILED naming that half', async () => {
    expect((await post('/api/dedicated', fakeDedicated('Fragile', freePort()))).status).toBe(201);
    expect((await post('/api/dedicated/Fragile/start')).status).toBe(200);
    await waitFor(async () => (await detail('Fragile')).state === 'READY', { what: 'Fragile READY' });
    // The directory goes away under the running server (an operator's mv): it stops, but cannot start again.
    renameSync(dirOf('Fragile'), `${dirOf('Fragile')}.moved`);
    const res = await post('/api/dedicated/Fragile/restart');
    expect(res.status).toBe(409);
    const body = await expectErrorBody(res);
    expect(body.error).toBe('SERVICE_RESTART_FAILED');
    expect(body.message).toMatch(/^restart of Fragile: it stopped, but the start half failed: the directory of Fragile .* is gone/);
    expect((await c.api('/api/services/Fragile')).status).toBe(404);
    renameSync(`${dirOf('Fragile')}.moved`, dirOf('Fragile'));
    expect((await c.api('/api/dedicated/Fragile', { method: 'DELETE' })).status).toBe(200);
  });

  test('a port held by another process: start is 409 DEDICATED_PORT_IN_USE', async () => {
    const foreign = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    try {
      expect((await post('/api/dedicated', fakeDedicated('Blocked', foreign.port))).status).toBe(201);
      const res = await post('/api/dedicated/Blocked/start');
      expect(res.status).toBe(409);
      const body = await expectErrorBody(res);
      expect(body.error).toBe('DEDICATED_PORT_IN_USE');
      expect(body.message).toContain(String(foreign.port));
      expect((await detail('Blocked')).state).toBeNull();
    } finally {
      foreign.stop(true);
    }
    expect((await c.api('/api/dedicated/Blocked', { method: 'DELETE' })).status).toBe(200);
  });

  test('a crash restarts it under its restart policy, up to maxRestarts', async () => {
    const port = freePort();
    expect((await post('/api/dedicated', fakeDedicated('Crashy', port, { maxRestarts: 1 }, ['--crash-after-ready', '3']))).status).toBe(201);
    expect((await post('/api/dedicated/Crashy/start')).status).toBe(200);
    await waitFor(() => ofType('SERVICE_CRASHED', 'service', 'Crashy').length >= 2, { what: 'two crashes', timeoutMs: 15_000 });
    const crashes = ofType('SERVICE_CRASHED', 'service', 'Crashy');
    expect(crashes.map((e) => [e.data.exitCode, e.data.restartAttempt])).toEqual([['3', '0'], ['3', '1']]);
    // maxRestarts 1: it stays CRASHED.
    await waitFor(async () => (await detail('Crashy')).state === 'CRASHED', { what: 'Crashy CRASHED' });
    // A crashed record keeps its state; nothing runs, so no players and no uptime.
    expect(await detail('Crashy')).toMatchObject({ state: 'CRASHED', playerCount: null, uptime: null, uptimeSeconds: 0 });
    const crashed = await readJson(await c.api('/api/services/Crashy'));
    expect(crashed).toMatchObject({ isDedicated: true, restartCount: 1, state: 'CRASHED' });
    expect(crashed.diagnosis).toContain('code 3');
    expect(ofType('SERVICE_STARTING', 'service', 'Crashy')).toHaveLength(2);
    // A crashed service is not running: stop clears it, delete is allowed.
    const stopped = await post('/api/dedicated/Crashy/stop');
    expect(stopped.status).toBe(200);
    expect((await readJson(stopped)).service.state).toBeNull();
    expect((await c.api('/api/dedicated/Crashy', { method: 'DELETE' })).status).toBe(200);
  }, 20_000);

  test('delete of a stopped service: 200, the directory stays, DEDICATED_DELETED', async () => {
    const res = await c.api('/api/dedicated/Survival', { method: 'DELETE' });
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.message).toContain('kept');
    expect(existsSync(join(c.dir, 'config', 'dedicated', 'Survival.toml'))).toBe(false);
    expect(existsSync(join(dirOf('Survival'), 'eula.txt'))).toBe(true);
    expect(ofType('DEDICATED_DELETED', 'name', 'Survival').map((e) => e.data)).toEqual([{ name: 'Survival' }]);
    expect((await c.api('/api/dedicated/Survival')).status).toBe(404);
  });

  test('a directory removed by hand: start is 404 DEDICATED_DIRECTORY_NOT_FOUND', async () => {
    expect((await post('/api/dedicated', fakeDedicated('Gone', freePort()))).status).toBe(201);
    rmSync(dirOf('Gone'), { recursive: true, force: true });
    const res = await post('/api/dedicated/Gone/start');
    expect(res.status).toBe(404);
    expect((await expectErrorBody(res)).error).toBe('DEDICATED_DIRECTORY_NOT_FOUND');
    expect((await c.api('/api/dedicated/Gone', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('auth and unknown names', () => {
  test('401 without a token, 403 with the service token', async () => {
    for (const [method, path] of [['GET', '/api/dedicated'], ['POST', '/api/dedicated'], ['POST', '/api/dedicated/Survival/start'], ['DELETE', '/api/dedicated/Survival']] as const) {
      const none = await c.api(path, { method, token: null });
      expect(none.status).toBe(401);
      expect((await expectErrorBody(none)).error).toBe('UNAUTHORIZED');
      const service = await c.api(path, { method, token: c.service });
      expect(service.status).toBe(403);
      expect((await expectErrorBody(service)).error).toBe('FORBIDDEN');
    }
  });

  test('404 DEDICATED_NOT_FOUND for unknown names on every route', async () => {
    const requests: [string, string, unknown?][] = [
      ['GET', '/api/dedicated/Nope'],
      ['PUT', '/api/dedicated/Nope', fakeDedicated('Nope', 25_600)],
      ['DELETE', '/api/dedicated/Nope'],
      ['POST', '/api/dedicated/Nope/start'],
      ['POST', '/api/dedicated/Nope/stop'],
      ['POST', '/api/dedicated/Nope/restart'],
    ];
    for (const [method, path, json] of requests) {
      const res = await c.api(path, { method, json });
      expect(res.status).toBe(404);
      expect((await expectErrorBody(res)).error).toBe('DEDICATED_NOT_FOUND');
    }
    expect((await c.api('/api/dedicated/bad%20name')).status).toBe(400);
  });
});

describe('boot', () => {
  test('a controller started on the same directory starts every dedicated service at boot', async () => {
    const port = freePort();
    expect((await post('/api/dedicated', fakeDedicated('Boot', port))).status).toBe(201);
    await c.controller.stop('restart test');
    const again = await Controller.start({ dir: c.dir, env: {}, stdout: { write: () => undefined }, exit: () => undefined, timing: TIMING });
    try {
      const { services } = again.kernel;
      await waitFor(() => services.get('Boot')?.state === 'READY', { what: 'Boot READY after the controller start', timeoutMs: 10_000 });
      expect(services.get('Boot')).toMatchObject({ isDedicated: true, port, workDir: dirOf('Boot') });
      const res = await fetch(`${again.url}/api/dedicated/Boot`, { headers: { authorization: `Bearer ${c.master}` } });
      expect(await readJson(res)).toMatchObject({ name: 'Boot', state: 'READY' });
    } finally {
      await again.stop('test finished');
    }
  }, 20_000);
});
