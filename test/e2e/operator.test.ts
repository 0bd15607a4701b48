/**
 * An operator's first day, through the compiled binary: `svc init` says what to do next; one
 * controller per directory (a second one is refused before it touches anything, a stale lock is
 * taken over); `svc restart` restarts in place and keeps every game server; service lifecycle
 * lines reach stdout and svc.log without a terminal; `svc cli --dir` finds the controller and its
 * token; `group create` on the console; "did you mean"; one-line errors instead of stack traces.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killGameServers, LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir, waitFor } from '../support/controller';

const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const TOKEN = 'operator-e2e-token-0123456789abcdef';
let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).reverse().forEach((f) => f()));

const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SVC_API_TOKEN: TOKEN, ...extra });

/** A working directory with port 0, no isolation (Bun fixtures), and backend ports of its own. */
function workDir(extraToml = ''): string {
  const { dir, remove } = tempDir('svc-e2e-operator-');
  cleanups.push(remove);
  const ports = 42000 + Math.floor(Math.random() * 2000) * 4;
  writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\nrate_limit = 0\n[controller]\nbackend_port_start = ${ports}\n[services]\nisolation = "none"\n${extraToml}`);
  return dir;
}

function group(dir: string, name: string, args: string[], extra = '[group.scaling]\nmin_instances = 1\n'): void {
  extra += '[group.resources]\nmemory = "128M"\n';
  mkdirSync(join(dir, 'config/groups'), { recursive: true });
  const command = [process.execPath, FAKE_PAPER, '--port', '{port}', '--max-lifetime-ms', '120000', ...args].map((a) => JSON.stringify(a)).join(', ');
  writeFileSync(join(dir, `config/groups/${name}.toml`), `[group]\nsoftware = "CUSTOM"\nversion = "1.21.1"\nstart_command = [${command}]\n${extra}`);
}

/** The binary as under systemd: no terminal, readable log lines (not JSON) on stdout. */
async function startController(dir: string, extraEnv: Record<string, string> = {}) {
  const child = Bun.spawn([svc, '--dir', dir], { env: env(extraEnv), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  cleanups.push(() => child.kill('SIGKILL'));
  const out = new LineCollector(child.stdout);
  const err = new LineCollector(child.stderr);
  const listening = await out.waitForLine((l) => /API listening on http/.test(l), 30_000);
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(listening)![1]!;
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers } });
  return { child, out, err, url, api };
}

const run = (args: string[], extraEnv: Record<string, string> = {}) => {
  const result = Bun.spawnSync([svc, ...args], { env: env(extraEnv), stdout: 'pipe', stderr: 'pipe' });
  return { status: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

type Note = { pid: number; since: string; state: string; api?: string; role: string };
/** The lock file's note (its first line, as svc reads it). */
const lockNote = (dir: string) => JSON.parse(readFileSync(join(dir, 'svc.lock'), 'utf8').split('\n')[0]!) as Note;
/** The note once it says ready (it is written just after the API line is logged). */
const readyNote = (dir: string, other: (note: Note) => boolean = () => true) => waitFor(() => (lockNote(dir).state === 'ready' && other(lockNote(dir)) ? lockNote(dir) : null), { what: 'the lock note to say ready', timeoutMs: 30_000 });

describe('svc init', () => {
  test('writes svc.toml and the folders, then prints the next steps', () => {
    const { dir, remove } = tempDir('svc-e2e-init-');
    cleanups.push(remove);
    const result = run(['init', '--dir', dir]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`wrote ${join(dir, 'svc.toml')}`);
    expect(result.stdout).toContain('Next steps:');
    expect(result.stdout).toContain(`svc doctor --dir ${dir}`);
    expect(result.stdout).toContain(`svc --dir ${dir}`);
    expect(result.stdout).toContain('group create Proxy VELOCITY');
    expect(result.stdout).toContain('group create Lobby PAPER');
    expect(result.stdout).toContain(`svc cli --dir ${dir}`);
    expect(result.stdout).toContain('Backups run by themselves');
    // a second run leaves the file alone and still says what comes next
    const again = run(['init', '--dir', dir]);
    expect(again.stdout).toContain('already exists; left unchanged');
    expect(again.stdout).toContain('Next steps:');
  });
});

describe('one controller per directory', () => {
  test('a second controller on the same directory is refused with the holder named, before it touches anything; the first runs on untouched', async () => {
    const dir = workDir();
    group(dir, 'Lobby', []);
    const first = await startController(dir);
    await waitFor(async () => (await readJson(await first.api('/api/services/Lobby-1'))).state === 'READY', { what: 'Lobby-1 READY', timeoutMs: 20_000 });
    const server = (await readJson(await first.api('/api/services/Lobby-1'))) as { pid: number };
    cleanups.push(() => killGameServers(dir, [server.pid]));
    const note = await readyNote(dir);
    expect(note).toMatchObject({ pid: first.child.pid, role: 'controller', state: 'ready', api: first.url });
    const starts = () => readFileSync(join(dir, 'logs/svc.log'), 'utf8').split('\n').filter((l) => l.includes('module loaded') || l.includes('master token')).length;
    const startsBefore = starts();

    const second = run(['--dir', dir]);
    expect(second.status).toBe(1);
    expect(second.stderr).toBe(`svc: another controller, pid ${first.child.pid}, runs here (${dir}) since ${note.since}, API ${first.url}: one controller or agent per directory. Stop it first (systemctl stop, or shutdown on its console), restart it in place with \`svc restart --dir ${dir}\`, or use another --dir\n`);
    expect(second.stdout).toBe('');
    // nothing touched: no start of its own in the log, not the lock, not the server
    expect(starts()).toBe(startsBefore);
    expect(lockNote(dir)).toEqual(note);
    expect(alive(server.pid)).toBe(true);
    expect(await readJson(await first.api('/api/services/Lobby-1'))).toMatchObject({ state: 'READY', pid: server.pid });
    // another user, who may not write the lock file, is told who runs there too
    if (process.getuid?.() === 0 && Bun.which('setpriv')) {
      chmodSync(dir, 0o755);
      const other = Bun.spawnSync(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', svc, '--dir', dir], { env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe', stderr: 'pipe' });
      expect(other.exitCode).toBe(1);
      expect(other.stderr.toString()).toContain(`svc: another controller, pid ${first.child.pid}, runs here (${dir})`);
    }
    // an agent on the same directory is refused the same way
    writeFileSync(join(dir, 'agent.toml'), '[agent]\ncontroller = "http://127.0.0.1:1"\ntoken = "x"\n');
    const agent = run(['agent', '--dir', dir]);
    expect(agent.status).toBe(1);
    expect(agent.stderr).toContain(`another controller, pid ${first.child.pid}, runs here`);

    // a clean stop says so in the lock and frees it
    first.child.kill('SIGTERM');
    expect(await first.child.exited).toBe(0);
    expect(lockNote(dir)).toMatchObject({ pid: first.child.pid, state: 'stopped' });
    expect(alive(server.pid)).toBe(false);
  }, 60_000);

  test('a stale lock is taken over: a pid that no longer runs, or a pid that is not svc', async () => {
    for (const [pid, said] of [
      [2 ** 22 + 17, 'no longer running'], // above Linux's pid_max: never a live process
      [process.pid, 'now another program'], // alive, and holds no lock: not an svc controller of this directory
    ] as const) {
      const dir = workDir();
      writeFileSync(join(dir, 'svc.lock'), `${JSON.stringify({ pid, role: 'controller', since: '2020-01-01T00:00:00.000Z', version: '0.12.0', state: 'ready' })}\n`);
      const controller = await startController(dir);
      await controller.out.waitForLine((l) => l.includes(`took over the lock of a controller that did not stop cleanly (pid ${pid}, ${said})`));
      expect(await readyNote(dir)).toMatchObject({ pid: controller.child.pid, state: 'ready' });
      controller.child.kill('SIGTERM');
      expect(await controller.child.exited).toBe(0);
    }
  }, 60_000);
});

describe('restart in place', () => {
  test('svc restart: same controller pid, every game server kept with its pid and console, the lock kept throughout', async () => {
    const dir = workDir();
    group(dir, 'Lobby', []);
    const controller = await startController(dir);
    await waitFor(async () => (await readJson(await controller.api('/api/services/Lobby-1'))).state === 'READY', { what: 'Lobby-1 READY', timeoutMs: 20_000 });
    const before = (await readJson(await controller.api('/api/services/Lobby-1'))) as { pid: number; port: number };
    cleanups.push(() => killGameServers(dir, [before.pid]));
    const noteBefore = await readyNote(dir);

    const restart = run(['restart', '--dir', dir]);
    expect(restart.stderr).toBe('');
    expect(restart.status).toBe(0);
    expect(restart.stdout).toContain(`asked the controller (pid ${controller.child.pid}) in ${dir} to restart in place; its game servers keep running`);
    expect(restart.stdout).toMatch(new RegExp(`restarted in [\\d.]+ s: svc 0\\.13\\.0, pid ${controller.child.pid}, API http`));

    // the same process (exec in place), still holding the lock, with a new start time
    expect(controller.child.exitCode).toBeNull();
    const noteAfter = lockNote(dir);
    expect(noteAfter).toMatchObject({ pid: controller.child.pid, state: 'ready' });
    expect(noteAfter.since).not.toBe(noteBefore.since);
    expect(run(['--dir', dir]).stderr).toContain(`another controller, pid ${controller.child.pid}, runs here`);
    await controller.out.waitForLine((l) => l.includes('restarting in place (signal SIGUSR2): the 1 running service(s) keep running'));
    await controller.out.waitForLine((l) => l.includes('svc 0.13.0 restarted in place (signal SIGUSR2), 1 running service(s) re-attached'));

    // the server is the same process, and its console works
    const api = (path: string, init: RequestInit = {}) => fetch(noteAfter.api! + path, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } });
    expect(await readJson(await api('/api/services/Lobby-1'))).toMatchObject({ state: 'READY', pid: before.pid, port: before.port });
    const frames: string[] = [];
    const socket = new WebSocket(`${noteAfter.api!.replace('http', 'ws')}/api/services/Lobby-1/console?token=${TOKEN}`);
    socket.addEventListener('message', (m) => frames.push(String(m.data)));
    await new Promise((resolve) => socket.addEventListener('open', resolve));
    expect((await api('/api/services/Lobby-1/exec', { method: 'POST', body: JSON.stringify({ command: 'say kept across the restart' }) })).status).toBe(200);
    await waitFor(() => frames.some((f) => f.includes('[Server] kept across the restart')), { what: 'the console line' });
    socket.close();

    // SIGUSR2 itself does the same (systemctl reload)
    controller.child.kill('SIGUSR2');
    await readyNote(dir, (note) => note.since !== noteAfter.since);
    expect(lockNote(dir).pid).toBe(controller.child.pid);
    expect(alive(before.pid)).toBe(true);

    controller.child.kill('SIGTERM');
    expect(await controller.child.exited).toBe(0);
    expect(alive(before.pid)).toBe(false);
  }, 90_000);

  test('an agent: refuses a second one, restarts in place with svc restart (even while it still waits for its controller), stops on SIGTERM', async () => {
    const dir = workDir();
    writeFileSync(join(dir, 'agent.toml'), '[agent]\ncontroller = "http://127.0.0.1:1"\ntoken = "abcdefghijklmnopqrstuvwxyz0123456789"\nnode_name = "n1"\nauto_update = false\n[services]\nisolation = "none"\n');
    const agent = Bun.spawn([svc, 'agent', '--dir', dir], { env: env(), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    cleanups.push(() => agent.kill('SIGKILL'));
    const out = new LineCollector(agent.stdout);
    await out.waitForLine((l) => l.includes('cannot reach the controller'), 30_000);
    const before = lockNote(dir);
    expect(before).toMatchObject({ pid: agent.pid, role: 'agent' });
    const second = run(['agent', '--dir', dir]);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`another agent, pid ${agent.pid}, runs here (${dir})`);

    const restart = run(['restart', '--dir', dir]);
    expect(restart.stderr).toBe('');
    expect(restart.status).toBe(0);
    expect(restart.stdout).toContain(`restarted in`);
    expect(agent.exitCode).toBeNull();
    expect(lockNote(dir)).toMatchObject({ pid: agent.pid, role: 'agent' });
    expect(lockNote(dir).since).not.toBe(before.since);

    agent.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    expect(lockNote(dir).state).toBe('stopped');
  }, 60_000);

  test('svc restart without a controller on the directory says so', () => {
    const dir = workDir();
    const result = run(['restart', '--dir', dir]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`no controller has run in ${dir}`);
  });
});

describe('service lifecycle in the log, without a terminal', () => {
  test('start (port, pid), ready, crash with its diagnosis, restart, quarantine and stop: on stdout and in svc.log, and a start banner', async () => {
    const dir = workDir();
    group(dir, 'Lobby', []);
    // ten instances that die at once: ten crashes of one group trip the breaker within a second
    group(dir, 'Crashy', ['--exit-immediately', '137'], '[group.scaling]\nmin_instances = 10\nmax_instances = 10\n');
    const controller = await startController(dir);
    const { out } = controller;
    const banner = await out.waitForLine((l) => l.includes('svc 0.13.0 started:'));
    expect(banner).toContain(`dir ${dir}, API ${controller.url}, isolation none, modules players, display, perms, auth, punishments, resourcepacks, backup, scaling, pid ${controller.child.pid}`);
    await out.waitForLine((l) => l.includes('backups run on their own: hourly (0 * * * *'));
    await out.waitForLine((l) => l.includes('first start: automatic backups of every service'));
    const starting = await out.waitForLine((l) => /Lobby-1 starting on port \d+ \(pid \d+\)/.test(l), 20_000);
    const ready = await out.waitForLine((l) => l.includes('Lobby-1 is READY'), 20_000);
    const crashed = await out.waitForLine((l) => l.includes('service crashed service=Crashy-') && l.includes('exitCode=137 diagnosis='), 20_000);
    const restarting = await out.waitForLine((l) => l.includes('restarting after a crash service=Crashy-'), 20_000);
    const quarantine = await out.waitForLine((l) => /quarantine/i.test(l) && l.includes('Crashy'), 30_000);
    for (const line of [starting, ready, crashed, restarting, quarantine]) expect(line).toMatch(/^\d\d:\d\d:\d\d (INFO|WARN|ERROR) /);
    const { pid } = (await readJson(await controller.api('/api/services/Lobby-1'))) as { pid: number };
    expect(starting).toContain(`(pid ${pid})`);

    controller.child.kill('SIGTERM');
    expect(await controller.child.exited).toBe(0);
    const stopping = out.lines.find((l) => l.includes('Lobby-1 stopping'));
    const stopped = out.lines.find((l) => l.includes('Lobby-1 stopped'));
    expect(stopping).toBeDefined();
    expect(stopped).toBeDefined();

    // the same lines, as JSON, in svc.log
    const logged = readFileSync(join(dir, 'logs/svc.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; service?: string; pid?: number; port?: number; diagnosis?: string });
    const find = (test: (e: { msg: string; service?: string }) => boolean) => logged.find(test);
    expect(find((e) => e.msg.startsWith('svc 0.13.0 started:'))).toBeDefined();
    expect(find((e) => e.msg.startsWith('Lobby-1 starting on port'))).toMatchObject({ service: 'Lobby-1', pid });
    expect(find((e) => e.msg.startsWith('Lobby-1 is READY'))).toBeDefined();
    expect(find((e) => e.msg === 'service crashed' && e.service!.startsWith('Crashy-'))).toMatchObject({ diagnosis: expect.any(String) });
    expect(find((e) => e.msg === 'restarting after a crash')).toBeDefined();
    expect(find((e) => /quarantine/i.test(e.msg) && e.msg.includes('Crashy'))).toBeDefined();
    expect(find((e) => e.msg === 'Lobby-1 stopping')).toBeDefined();
    expect(find((e) => e.msg === 'Lobby-1 stopped')).toBeDefined();
  }, 90_000);
});

describe('svc cli --dir, group create, did you mean', () => {
  test('reads the address and the token from the directory; group create checks like POST /api/groups; a typo gets a suggestion', async () => {
    const dir = workDir();
    // the controller generates its token (no SVC_API_TOKEN): only data/api-token has it
    const controller = await startController(dir, { SVC_API_TOKEN: '' });
    const cli = (command: string) => run(['cli', '--dir', dir, '-c', command], { SVC_API_TOKEN: '' });

    const status = cli('status');
    expect(status.stderr).toBe('');
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('svc: offline');

    const created = cli('group create Lobby PAPER 1.21.1 --type lobby --min 0 --max 3 --memory 2G');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain('✓ group Lobby created: PAPER 1.21.1, LOBBY, 2G, 0–3 instance(s)');
    const file = readFileSync(join(dir, 'config/groups/Lobby.toml'), 'utf8');
    expect(file).toContain('type = "LOBBY"');
    expect(file).toContain('max_instances = 3');
    // a host field: the console is the operator's
    const custom = cli(`group create Tool CUSTOM 1.21.1 --startCommand "${process.execPath} ${FAKE_PAPER} --port {port}" --min 0`);
    expect(custom.status).toBe(0);
    const token = readFileSync(join(dir, 'data/api-token'), 'utf8').trim();
    const api = (path: string) => fetch(controller.url + path, { headers: { authorization: `Bearer ${token}` } });
    expect(await readJson(await api('/api/groups/Tool'))).toMatchObject({ startCommand: [process.execPath, FAKE_PAPER, '--port', '{port}'], minInstances: 0 });
    const audit = (await readJson(await api('/api/audit?action=GROUP_CREATED'))) as { entries: { target: string; actor: string }[] };
    expect(audit.entries.map((e) => e.target).sort()).toEqual(['Lobby', 'Tool']);

    // checked as the route checks: field schemas, cross-field rules, names taken
    for (const [command, message] of [
      ['group create Bad PAPER 1.21.1 --min x', '✗ --minInstances must be an integer between 0 and 1000, got "x"'],
      ['group create Bad PAPR 1.21.1', '✗ the software must be one of "VELOCITY", "PAPER"'],
      ['group create Bad PAPER latest', '✗ the version must be a string matching'],
      ['group create Bad PAPER 1.21.1 --min 5 --max 2', '✗ --minInstances (5) must be at most --maxInstances (2)'],
      ['group create Bad PAPER 1.21.1 --mni 1', '✗ no field --mni; did you mean "min"?'],
      ['group create lobby PAPER 1.21.1', '✗ group "Lobby" already exists (names differ only in case)'],
      ['group make Bad PAPER 1.21.1', '✗ no subcommand "make"'],
    ] as const) {
      const result = cli(command);
      expect({ command, status: result.status }).toEqual({ command, status: 1 });
      expect(result.stdout).toContain(message);
    }
    expect(await (await api('/api/groups/Bad')).status).toBe(404);

    // did you mean, on the console and for svc itself
    const typo = cli('stauts');
    expect(typo.status).toBe(1);
    expect(typo.stdout).toContain('✗ unknown command "stauts"; did you mean "status"? (`help` lists the commands)');
    const top = run(['restrat']);
    expect(top.status).toBe(2);
    expect(top.stderr).toStartWith('svc: unknown command "restrat"; did you mean "restart"?');

    controller.child.kill('SIGTERM');
    expect(await controller.child.exited).toBe(0);
  }, 60_000);

  test('a token this user cannot read is named, with what to do', () => {
    if (process.getuid?.() !== 0 || !Bun.which('setpriv')) return;
    const dir = workDir();
    mkdirSync(join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'data/api-token'), `${'t'.repeat(40)}\n`, { mode: 0o600 });
    chmodSync(dir, 0o755);
    const result = Bun.spawnSync(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', svc, 'cli', '--dir', dir, '-c', 'status'], { env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe', stderr: 'pipe' });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toBe(`svc cli: no token: ${join(dir, 'data/api-token')} cannot be read by this user (it is the controller user's, mode 600): run svc cli as that user (sudo -u svc svc cli --dir ${dir}), or pass SVC_API_TOKEN\n`);
  });
});

describe('expected errors are one line with the fix', () => {
  test('a working directory svc cannot write: one line naming it and the fix, no stack trace', () => {
    if (process.getuid?.() !== 0 || !Bun.which('setpriv')) return;
    const { dir, remove } = tempDir('svc-e2e-unwritable-');
    cleanups.push(remove);
    chmodSync(dir, 0o755); // root's; nobody may not write in it
    const result = Bun.spawnSync(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', svc, '--dir', dir], { env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe', stderr: 'pipe' });
    const stderr = result.stderr.toString();
    expect(result.exitCode).toBe(1);
    expect(stderr).toBe(`svc: cannot write ${join(dir, 'svc.lock')} (permission denied): svc runs as nobody and needs to own its working directory; run it as the directory's owner, or: sudo chown -R nobody ${dir}\n`);
  });

  test('a failed download (an unreachable upstream): the log line says why, without a stack', async () => {
    const dir = workDir('[software]\npapermc_url = "http://127.0.0.1:1"\n');
    mkdirSync(join(dir, 'config/groups'), { recursive: true });
    writeFileSync(join(dir, 'config/groups/Lobby.toml'), '[group]\nsoftware = "PAPER"\nversion = "1.21.1"\n[group.scaling]\nmin_instances = 1\n');
    const controller = await startController(dir);
    const line = await controller.out.waitForLine((l) => l.includes('start failed'), 20_000);
    expect(line).toContain('could not be downloaded');
    expect(line).toContain('could not be reached');
    controller.child.kill('SIGTERM');
    expect(await controller.child.exited).toBe(0);
    expect(controller.out.lines.filter((l) => /^\s+at /.test(l))).toEqual([]);
  }, 60_000);
});
