import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCollector, svcBinary } from '../support/binary';
import { readJson, tempDir } from '../support/controller';

let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).forEach((f) => f()));

function emptyDir(): string {
  const { dir, remove } = tempDir('svc-e2e-');
  cleanups.push(remove);
  return dir;
}

function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = Bun.spawnSync([svc, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdout: 'pipe', stderr: 'pipe' });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** `svc init` in an empty dir, then the port set to 0 the way an operator edits the file. */
function initOnFreePort(extra = ''): string {
  const dir = emptyDir();
  expect(run(['init', '--dir', dir]).code).toBe(0);
  const file = join(dir, 'svc.toml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('port = 8080', 'port = 0') + extra);
  return dir;
}

/** Starts the binary with its working directory (cwd) set to `dir`. */
function startBinaryIn(dir: string) {
  return startBinary(dir, {}, dir);
}

async function startBinary(dir: string, env: Record<string, string> = {}, cwd?: string) {
  const child = Bun.spawn([svc, '--dir', dir], {
    cwd,
    env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  cleanups.push(() => child.kill('SIGKILL'));
  const out = new LineCollector(child.stdout);
  const err = new LineCollector(child.stderr);
  const listening = await out.waitForLine((l) => l.includes('API listening'));
  const port = (JSON.parse(listening) as { port: number }).port;
  return { child, out, err, url: `http://127.0.0.1:${port}` };
}

describe('svc (compiled binary)', () => {
  test('version and help list only what works', () => {
    const version = run(['version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe('svc 0.13.0');
    const help = run(['--help']);
    expect(help.code).toBe(0);
    for (const word of ['controller', 'init', 'agent', 'version', 'cli', '--dir', '--config']) expect(help.stdout).toContain(word);
    const cli = run(['cli', '--help']);
    expect(cli.code).toBe(0);
    for (const word of ['--url', '--token', '--profile', '--save', '-c, --command', 'Exit status']) expect(cli.stdout).toContain(word);
  });

  test('doctor checks a config dir without starting the controller; its exit status is the verdict', () => {
    const dir = emptyDir();
    const missing = run(['doctor', '--dir', dir]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('svc.toml does not exist');
    expect(run(['init', '--dir', dir]).code).toBe(0);
    const fine = run(['doctor', '--dir', dir, '--json']);
    expect(fine.code).toBe(0);
    const report = JSON.parse(fine.stdout);
    expect(report.sections.map((s: { name: string }) => s.name)).toEqual(['Environment', 'Configuration', 'Storage', 'Database', 'Services', 'Cluster']);
    expect(report.failCount).toBe(0);
    // Nothing was started or created: no database, no generated token.
    expect(existsSync(join(dir, 'data', 'svc.db'))).toBe(false);
    const toml = readFileSync(join(dir, 'svc.toml'), 'utf8');
    writeFileSync(join(dir, 'svc.toml'), toml.replace('# Accept agents on other machines.\nenabled = false', '# Accept agents on other machines.\nenabled = true'));
    const cluster = run(['doctor', '--dir', dir]);
    expect(cluster.stdout).toContain('FAIL  [cluster] enabled without a token');
    expect(cluster.code).toBe(1);
    const broken = emptyDir();
    writeFileSync(join(broken, 'svc.toml'), '[api]\nport = "eighty"\n');
    expect(run(['doctor', '--dir', broken]).code).toBe(2);
  });

  test('an unknown command or option exits 2 with the usage', () => {
    const unknown = run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(run(['--bogus']).code).toBe(2);
  });

  test('init writes the embedded commented svc.toml and the folders, and never overwrites', () => {
    const dir = emptyDir();
    const first = run(['init', '--dir', dir]);
    expect(first.code).toBe(0);
    const written = readFileSync(join(dir, 'svc.toml'), 'utf8');
    expect(written).toBe(readFileSync(join(import.meta.dir, '../../config/svc.toml'), 'utf8'));
    for (const folder of ['config', 'data', 'templates', 'services', 'logs']) expect(existsSync(join(dir, folder))).toBe(true);
    writeFileSync(join(dir, 'svc.toml'), `${written}\n# mine\n`);
    const second = run(['init', '--dir', dir]);
    expect(second.stdout).toContain('left unchanged');
    expect(readFileSync(join(dir, 'svc.toml'), 'utf8')).toEndWith('# mine\n');
  });

  test('a .env in the working directory is not loaded (configuration is svc.toml and the real environment)', async () => {
    const dir = initOnFreePort();
    writeFileSync(join(dir, '.env'), 'SVC_API_TOKEN=token-from-a-stray-dotenv-file\n');
    const { child, url } = await startBinaryIn(dir);
    expect((await fetch(`${url}/api/config`, { headers: { authorization: 'Bearer token-from-a-stray-dotenv-file' } })).status).toBe(401);
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  }, 30_000);

  test('a bad config exits 2 with one line naming file, key and expectation; nothing rewritten', () => {
    const dir = emptyDir();
    const file = join(dir, 'svc.toml');
    const text = '[api]\nport = "eighty"\n';
    writeFileSync(file, text);
    const result = run(['--dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([`svc: ${file}: [api] port: expected an integer between 0 and 65535, got "eighty"`]);
    expect(readFileSync(file, 'utf8')).toBe(text);
    writeFileSync(file, '[api\n');
    const malformed = run(['--config', file]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(`${file}:1:`);
  });

  test('runs alone: serves, keeps a generated token, logs to a file, stops cleanly on SIGTERM', async () => {
    const dir = initOnFreePort();
    const { child, out, url } = await startBinary(dir);
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(200);
    expect(await readJson(health)).toMatchObject({ status: 'ok', version: '0.13.0', apiEnabled: true });

    const tokenFile = join(dir, 'data/api-token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(out.text).toContain(token.slice(0, 8));
    expect(out.text).not.toContain(token);
    expect((await fetch(`${url}/api/config`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(existsSync(join(dir, 'data/svc.db'))).toBe(true);

    const events = new WebSocket(`${url.replace('http', 'ws')}/api/events?token=${token}`);
    const frames: string[] = [];
    events.addEventListener('message', (m) => frames.push(String(m.data)));
    await new Promise((resolve) => events.addEventListener('open', resolve));

    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(frames.some((f) => JSON.parse(f).type === 'API_STOPPED')).toBe(true);
    await out.waitForLine((l) => l.includes('controller stopped'));
    // A closed database leaves no write-ahead log behind.
    expect(existsSync(join(dir, 'data/svc.db-wal'))).toBe(false);
    expect(readFileSync(join(dir, 'logs/svc.log'), 'utf8')).toContain('API listening');
  }, 30_000);

  test('SIGINT stops it cleanly too, and the token survives a restart', async () => {
    const dir = initOnFreePort();
    const first = await startBinary(dir);
    const token = readFileSync(join(dir, 'data/api-token'), 'utf8').trim();
    first.child.kill('SIGINT');
    expect(await first.child.exited).toBe(0);
    const second = await startBinary(dir);
    expect((await fetch(`${second.url}/api/config`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.child.exited).toBe(0);
  }, 30_000);

  test('a port already in use stops the start with a clear message, never a shared port', async () => {
    const dir = initOnFreePort();
    const { child, url } = await startBinary(dir);
    const taken = new URL(url).port;
    const other = emptyDir();
    writeFileSync(join(other, 'svc.toml'), `[api]\nport = ${taken}\n`);
    const second = run(['--dir', other]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('already in use');
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  }, 30_000);

  test('POST /api/shutdown answers 202 and the process exits 0', async () => {
    const dir = initOnFreePort();
    const { child, url } = await startBinary(dir, { SVC_API_TOKEN: 'e2e-token-from-the-environment' });
    const res = await fetch(`${url}/api/shutdown`, { method: 'POST', headers: { authorization: 'Bearer e2e-token-from-the-environment' } });
    expect(res.status).toBe(202);
    expect(await child.exited).toBe(0);
    // The environment token won: nothing was generated.
    expect(existsSync(join(dir, 'data/api-token'))).toBe(false);
  }, 30_000);

  test('the events socket and the error body work through the binary', async () => {
    const dir = initOnFreePort();
    const { child, url } = await startBinary(dir, { SVC_API_TOKEN: 'e2e-token-0123456789' });
    const refused = new WebSocket(`${url.replace('http', 'ws')}/api/events`);
    expect(await new Promise((resolve) => refused.addEventListener('close', (e) => resolve(e.code)))).toBe(1008);
    const bad = await fetch(`${url}/api/tokens`, { method: 'POST', headers: { authorization: 'Bearer e2e-token-0123456789', 'content-type': 'application/json' }, body: '{"subject":' });
    expect(bad.status).toBe(400);
    expect(await readJson(bad)).toMatchObject({ success: false, error: 'VALIDATION_FAILED' });
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  }, 30_000);
});
