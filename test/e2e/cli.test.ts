/**
 * `svc cli` through the compiled binary, against a controller that is the compiled binary too:
 * one-shot commands with their exit statuses (0 done, 1 failed, 2 usage, 3 no connection or a
 * refused token), progress streamed while a command runs, saved profiles, the sessions in the
 * audit log, and one whole interactive session under a pseudo-terminal (completion, screen,
 * live events, history).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';
import { PtySession } from '../support/pty-session';

const TOKEN = 'e2e-cli-token-0123456789abcdef0123';
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
/** The name the CLI reports in its hello (Bun's userInfo() reads $USER). */
const OPERATOR = 'e2e-operator';
const ANSI = /\x1b/;
const CTRL_Q = '\x11';

let svc: string;
let url: string;
let controller: Subprocess<'ignore', 'pipe', 'ignore'>;
const cleanups: (() => void)[] = [];
/** `svc cli` runs that got a session (exit 0 or 1): each must be in the audit log. */
let sessionsOpened = 0;

function api(path: string, init: { method?: string; json?: unknown } = {}): Promise<Response> {
  return fetch(url + path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

/** A fresh, empty config and home dir for CLI children, so profiles and history stay in the test. */
function cliHome(): { config: string; home: string } {
  const { dir, remove } = tempDir('svc-e2e-cli-home-');
  cleanups.push(remove);
  const config = join(dir, 'config');
  const home = join(dir, 'home');
  mkdirSync(home);
  return { config, home };
}

function cliEnv(where: { config: string; home: string }, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: where.home, XDG_CONFIG_HOME: where.config, USER: OPERATOR, ...extra };
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `svc cli <args>` to its end (bounded); stdout and stderr are pipes, so not a TTY. */
async function cli(args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<CliRun> {
  const child = Bun.spawn([svc, 'cli', ...args], { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  cleanups.push(() => child.kill('SIGKILL'));
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const code = await exitWithin(child, timeoutMs);
  if (code === null) {
    child.kill('SIGKILL');
    throw new Error(`svc cli ${args.join(' ')} did not end within ${timeoutMs} ms; stdout:\n${await stdout}\nstderr:\n${await stderr}`);
  }
  const run = { code, stdout: await stdout, stderr: await stderr };
  if (code === 0 || code === 1) sessionsOpened += 1;
  return run;
}

/** The exit code, or null when the process is still running after `timeoutMs`. */
async function exitWithin(child: Subprocess, timeoutMs: number): Promise<number | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  const code = await Promise.race([child.exited, timeout]);
  clearTimeout(timer);
  return code;
}

async function serviceState(name: string): Promise<string | undefined> {
  const response = await api(`/api/services/${name}`);
  return response.status === 200 ? (await readJson(response)).state : undefined;
}

beforeAll(async () => {
  svc = await svcBinary();
  const { dir, remove } = tempDir('svc-e2e-cli-');
  cleanups.push(remove);
  // No rate limit: every CLI run is a request too, and the audit test polls.
  writeFileSync(join(dir, 'svc.toml'), '[api]\nport = 0\nrate_limit = 0\nservice_rate_limit = 0\n[services]\nisolation = "none"\n');
  controller = Bun.spawn([svc, '--dir', dir], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', SVC_API_TOKEN: TOKEN }, stdin: 'ignore', stdout: 'pipe', stderr: 'ignore' });
  // afterAll stops it with SIGTERM first, so its fake servers go with it; this is the fallback.
  cleanups.push(() => controller.kill('SIGKILL'));
  const out = new LineCollector(controller.stdout);
  const listening = await out.waitForLine((line) => line.includes('API listening'), 30_000);
  url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;

  const group = { name: 'Lobby', type: 'LOBBY', software: 'CUSTOM', version: '1.21.1', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--max-lifetime-ms', '120000'], minInstances: 0 };
  expect((await api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
  expect((await api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await serviceState('Lobby-1')) === 'READY', { timeoutMs: 20_000, what: 'Lobby-1 READY' });
}, 120_000);

afterAll(async () => {
  if (controller && controller.exitCode === null) {
    controller.kill('SIGTERM');
    await exitWithin(controller, 10_000);
  }
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe('svc cli (compiled binary) against a running controller', () => {
  test('-c status prints the network, exits 0, and writes no ANSI escapes to a pipe', async () => {
    const home = cliHome();
    const run = await cli(['--url', url, '-c', 'status'], cliEnv(home, { SVC_API_TOKEN: TOKEN }));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('svc: online');
    expect(run.stdout).toContain('Lobby: 1/');
    expect(run.stdout).not.toMatch(ANSI);
    expect(run.stderr).toBe('');
  }, 30_000);

  test('a failing command exits 1 with its error on stdout', async () => {
    const run = await cli(['--url', url, '-c', 'info Nope'], cliEnv(cliHome(), { SVC_API_TOKEN: TOKEN }));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('✗ service "Nope" does not exist');
  }, 30_000);

  test('start streams its progress until READY; stop ends the instance again', async () => {
    const env = cliEnv(cliHome(), { SVC_API_TOKEN: TOKEN });
    const started = await cli(['--url', url, '-c', 'start Lobby'], env);
    expect(started.code).toBe(0);
    const starting = started.stdout.indexOf('Lobby-2 is starting on port');
    expect(starting).toBeGreaterThanOrEqual(0);
    expect(started.stdout.indexOf('Lobby-2 is READY', starting)).toBeGreaterThan(starting);
    expect(await serviceState('Lobby-2')).toBe('READY');

    const stopped = await cli(['--url', url, '-c', 'stop Lobby-2'], env);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain('Lobby-2 stopped');
    expect(await serviceState('Lobby-2')).not.toBe('READY');

    // Lines are printed as they arrive: with a server that takes 1.5 s to be ready, the first
    // line is on stdout while the service is still starting (a CLI that printed only at the
    // end would show it after READY).
    const slow = { name: 'Slow', software: 'CUSTOM', version: '1.21.1', startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}', '--done-delay-ms', '1500', '--max-lifetime-ms', '120000'], minInstances: 0 };
    expect((await api('/api/groups', { method: 'POST', json: slow })).status).toBe(201);
    const child = Bun.spawn([svc, 'cli', '--url', url, '-c', 'start Slow'], { env, stdin: 'ignore', stdout: 'pipe', stderr: 'ignore' });
    cleanups.push(() => child.kill('SIGKILL'));
    const lines = new LineCollector(child.stdout);
    await lines.waitForLine((line) => line.includes('Slow-1 is starting on port'), 15_000);
    sessionsOpened += 1;
    expect(await serviceState('Slow-1')).not.toBe('READY');
    expect(child.exitCode).toBeNull();
    expect(lines.lines.some((line) => line.includes('is READY'))).toBe(false);
    expect(await exitWithin(child, 20_000)).toBe(0);
    await lines.waitForLine((line) => line.includes('Slow-1 is READY'), 1000);
    expect((await cli(['--url', url, '-c', 'stop Slow-1'], env)).code).toBe(0);
  }, 45_000);

  test('connection problems exit 3, usage problems exit 2', async () => {
    const home = cliHome();
    const refused = await cli(['--url', url, '-c', 'status'], cliEnv(home, { SVC_API_TOKEN: 'not-the-token-0123456789abcdef' }));
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('refused the token');
    expect(refused.stdout).toBe('');

    // A port that was just free: bound, noted, released.
    const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const closedPort = listener.port;
    listener.stop(true);
    const closedUrl = `http://127.0.0.1:${closedPort}`;
    const unreachable = await cli(['--url', closedUrl, '-c', 'status'], cliEnv(home, { SVC_API_TOKEN: TOKEN }));
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(`nothing answers at ${closedUrl}`);

    const noToken = await cli(['--url', url, '-c', 'status'], cliEnv(home));
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('no token');

    const badUrl = await cli(['--url', 'ftp://x', '-c', 'status'], cliEnv(home, { SVC_API_TOKEN: TOKEN }));
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--url must be an http:// or https:// address');
  }, 30_000);

  test('a saved profile carries the url and token; an unknown profile is a usage error', async () => {
    const home = cliHome();
    const saved = await cli(['--url', url, '--token', TOKEN, '--save', '--profile', 'prod', '-c', 'version'], cliEnv(home));
    expect(saved.code).toBe(0);
    const file = join(home.config, 'svc', 'cli.toml');
    expect(saved.stderr).toContain(`saved profile "prod" in ${file}`);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain(url);

    const { version } = await readJson(await fetch(`${url}/api/health`));
    expect(typeof version).toBe('string');
    const fromProfile = await cli(['--profile', 'prod', '-c', 'version'], cliEnv(home));
    expect(fromProfile.code).toBe(0);
    expect(fromProfile.stdout.split('\n')[0]).toBe(`svc ${version}`);

    const missing = await cli(['--profile', 'missing', '-c', 'version'], cliEnv(home));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no profile "missing" (saved: prod)');
  }, 30_000);

  // Counts the sessions the tests above opened, so it runs after them.
  test('the controller audits every session the CLI opened, with the client it named', async () => {
    expect(sessionsOpened).toBeGreaterThan(0);
    type Entry = { actor: string; action: string; target: string; details: string };
    const entries = async (action: string): Promise<Entry[]> => {
      const response = await api(`/api/audit?action=${action}&limit=500`);
      expect(response.status).toBe(200);
      return (await readJson(response)).entries;
    };
    // DISCONNECTED follows the socket close, which the CLI's exit does not wait for.
    const connected = await waitFor(async () => {
      const found = await entries('CLI_SESSION_CONNECTED');
      return found.length === sessionsOpened ? found : undefined;
    }, { timeoutMs: 5000, what: `${sessionsOpened} CLI_SESSION_CONNECTED entries` });
    const disconnected = await waitFor(async () => {
      const found = await entries('CLI_SESSION_DISCONNECTED');
      return found.length === sessionsOpened ? found : undefined;
    }, { timeoutMs: 5000, what: `${sessionsOpened} CLI_SESSION_DISCONNECTED entries` });

    for (const entry of connected) {
      expect(entry.actor).toBe('api:admin');
      expect(entry.target).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(entry.details).toContain(`sessionId=${entry.target}`);
      expect(entry.details).toContain(`clientUsername=${OPERATOR}`);
      expect(entry.details).toContain(`clientHostname=${hostname()}`);
      expect(entry.details).toMatch(/remoteIp=(::ffff:)?127\.0\.0\.1/);
    }
    // Each -c session ran exactly one command, and each connect has its disconnect.
    expect(new Set(disconnected.map((e) => e.target))).toEqual(new Set(connected.map((e) => e.target)));
    for (const entry of disconnected) expect(entry.details).toContain('commandCount=1');
  }, 30_000);

  test('an interactive session under a pseudo-terminal: completion, screen, live events, exit and history', async () => {
    const home = cliHome();
    const session = new PtySession([svc, 'cli', '--url', url], { env: cliEnv(home, { SVC_API_TOKEN: TOKEN, TERM: 'xterm-256color' }), cols: 140, name: 'svc cli' });
    cleanups.push(() => session.kill());

    await session.expect(`connected to ${url}`);
    await session.expect('» ');
    session.type('status\r');
    await session.expect('svc: online');
    await session.expect('Lobby: 1/');
    await session.expect('» ');

    // One candidate: the word is completed with a space, so the argument follows at once.
    session.type('inf\t');
    await session.expect('info ');
    session.type('Lobby-1\r');
    await session.expect('Lobby-1 (Lobby)');
    await session.expect('state: READY');

    session.type('screen Lobby-1\r');
    await session.expect('attached to Lobby-1');
    await session.expect('Lobby-1 » ');
    session.type('say hello-from-pty\r');
    await session.expect('[Server] hello-from-pty');
    session.type(CTRL_Q);
    await session.expect('detached from Lobby-1');
    // Out of the screen, a line is a command again: `say` is none of the controller's.
    session.type('say after-detach\r');
    await session.expect('unknown command "say"');

    expect((await api('/api/maintenance/global', { method: 'POST', json: { enabled: true, reason: 'pty' } })).status).toBe(200);
    await session.expect(/MAINTENANCE_ENABLED scope=global reason=pty/);
    expect((await api('/api/maintenance/global', { method: 'POST', json: { enabled: false } })).status).toBe(200);
    await session.expect('MAINTENANCE_DISABLED');

    session.type('exit\r');
    expect(await session.exitCode()).toBe(0);

    const history = join(home.config, 'svc', 'history');
    expect(readFileSync(history, 'utf8').split('\n')).toContain('status');
    expect(statSync(history).mode & 0o777).toBe(0o600);
  }, 45_000);
});

describe('the command routes (compiled binary)', () => {
  test('list, execute, complete, and their errors carry the error body', async () => {
    const listed = await readJson(await api('/api/commands'));
    expect(listed.total).toBe(listed.commands.length);
    expect(listed.commands.map((c: { name: string }) => c.name)).toContain('status');

    const ok = await api('/api/commands/list/execute', { method: 'POST', json: { args: ['Lobby'] } });
    expect(ok.status).toBe(200);
    expect((await readJson(ok)).lines[0]).toEqual({ type: 'header', text: expect.stringMatching(/^\d+ service\(s\) of Lobby$/) });

    const completed = await readJson(await api('/api/console/complete', { method: 'POST', json: { buffer: 'info Lob', cursor: 8 } }));
    expect(completed.candidates).toContain('Lobby-1');

    const cases: [string, unknown, number, string][] = [
      ['/api/commands/frobnicate/execute', { args: [] }, 404, 'COMMAND_NOT_FOUND'],
      ['/api/commands/screen/execute', { args: ['Lobby-1'] }, 400, 'COMMAND_NOT_REMOTE'],
      ['/api/commands/info/execute', { args: ['Nope'] }, 422, 'COMMAND_EXECUTION_FAILED'],
      ['/api/commands/status/execute', { args: ['two\nlines'] }, 400, 'VALIDATION_FAILED'],
      ['/api/console/complete', { buffer: 'x', cursor: -1 }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [path, json, status, error] of cases) {
      const response = await api(path, { method: 'POST', json });
      expect(response.status).toBe(status);
      const body = await readJson(response);
      expect(body).toMatchObject({ success: false, error });
      expect(body.message.length).toBeGreaterThan(0);
    }
  });
});
