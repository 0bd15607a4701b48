/**
 * Isolation through the compiled binary (issue 36, item 3): a real service whose start command
 * tries every read and write a plugin would try against the controller, prints one line per
 * attempt and then serves its console; the test asserts every line, then console, stdin,
 * re-attach across a kill -9 of the controller, stop, deploy-on-stop and state sync.
 *
 *   - `auto` with the controller as root: each service under its own uid, in a bubblewrap
 *     sandbox (uid+bwrap);
 *   - `auto` with the controller as an unprivileged user (the binary run under setpriv on a
 *     folder that user owns): the bubblewrap sandbox alone.
 *
 * Needs root (to run the controller as another user) and bubblewrap (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { killGameServers, LineCollector, svcBinary } from '../support/binary';
import { readJson, waitFor } from '../support/controller';

const IS_ROOT = process.getuid?.() === 0 && process.platform === 'linux';
/** The unprivileged controller's uid: nobody's, far below the service range. */
const PLAIN_UID = 43_217;
const CLUSTER = 'isolation-cluster-token-0123456789';
const HAS_JAVA = Bun.spawnSync(['sh', '-c', 'command -v java']).success;

let svc: string;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);
afterAll(() => cleanups.splice(0).forEach((f) => f()));

/**
 * The probe: POSIX sh only, so it runs in every mode. Its arguments are the attempts, each
 * `read <label> <file>`, `write <label> <file>`, `list <label> <folder>` (anything there but
 * its own folder) or `see <label> <path>`; then the same fixed checks everywhere: its own folder
 * (read, write), TMPDIR, HOME, the controller's SVC_CLUSTER_TOKEN, its uid, Java.
 */
const PROBE = `#!/bin/sh
say() { echo "probe $1: $2"; }
while [ $# -ge 3 ]; do
  kind=$1 label=$2 path=$3
  shift 3
  case $kind in
    read) if cat "$path" >/dev/null 2>&1; then say "read $label" allowed; else say "read $label" denied; fi ;;
    write) if (echo pwned >"$path") 2>/dev/null; then say "write $label" allowed; else say "write $label" denied; fi ;;
    list) others=$(ls "$path" 2>/dev/null | grep -vx "$(basename "$PWD")"); [ -n "$others" ] && say "list $label" allowed || say "list $label" denied ;;
    see) if [ -e "$path" ]; then say "see $label" allowed; else say "see $label" denied; fi ;;
  esac
done
if (echo mine >./own.txt) 2>/dev/null && [ "$(cat ./own.txt)" = mine ]; then say own-dir writable; else say own-dir refused; fi
if (echo scratch >"$TMPDIR/scratch") 2>/dev/null; then say tmpdir writable; else say tmpdir refused; fi
[ "$HOME" = "$(pwd)" ] && say home own-dir || say home "$HOME"
[ -n "\${SVC_CLUSTER_TOKEN-}" ] && say env-cluster-token leaked || say env-cluster-token absent
say uid "$(id -u)"
if command -v java >/dev/null 2>&1 && java -version >/dev/null 2>&1; then say java runs; else say java missing; fi
echo deployed >deployed.txt
echo "probe done"
while IFS= read -r line; do
  echo "echo: $line"
  [ "$line" = stop ] && exit 0
done
`;

/** One attempt: the probe's arguments and the line it must print. */
type Attempt = [kind: 'read' | 'write' | 'list' | 'see', label: string, path: string, outcome: 'allowed' | 'denied'];

const FIXED = ['probe own-dir: writable', 'probe tmpdir: writable', 'probe home: own-dir', 'probe env-cluster-token: absent'];

/** What a service may try against the controller's installation `dir` (its folder in `services/static`). */
function controllerAttempts(dir: string, marker: string, tmpfile: string): Attempt[] {
  const data = join(dir, 'data');
  const other = join(dir, 'services/static/Other-1');
  return [
    ['read', 'token', join(data, 'api-token'), 'denied'],
    ['read', 'config', join(dir, 'svc.toml'), 'denied'],
    ['read', 'database', join(data, 'svc.db'), 'denied'],
    ['read', 'cluster-key', join(data, 'cluster/cluster.key'), 'denied'],
    ['read', 'session-key', join(data, 'auth/session.key'), 'denied'],
    ['read', 'legacy-session-key', join(dir, 'config/modules/auth/session.key'), 'denied'],
    ['read', 'uid-map', join(data, 'isolation-uids.json'), 'denied'],
    ['read', 'other-service', join(other, 'secret.txt'), 'denied'],
    ['list', 'services', join(dir, 'services/static'), 'denied'],
    ['write', 'controller-dir', join(dir, 'pwned.txt'), 'denied'],
    ['write', 'data-dir', join(data, 'pwned.txt'), 'denied'],
    ['write', 'other-service', join(other, 'pwned.txt'), 'denied'],
    ['see', 'host-tmp', marker, 'denied'],
    // Into the sandbox's own /tmp: the host's never gets the file (checked after).
    ['write', 'tmp', tmpfile, 'allowed'],
  ];
}

const probeArgs = (attempts: Attempt[]) => attempts.flatMap(([kind, label, path]) => [kind, label, path]);
const expectedLines = (attempts: Attempt[]) => [...attempts.map(([kind, label, , outcome]) => `probe ${kind} ${label}: ${outcome}`), ...FIXED];

interface Site {
  dir: string;
  /** The svc binary, where this site's user can run it. */
  binary: string;
  /** The user the controller runs as: root, or PLAIN_UID under setpriv. */
  asUid: number | null;
  marker: string;
  tmpfile: string;
}

/** A group file: STATIC, one instance, `ready` its ready line; `extra` more [group.lifecycle] lines and tables. */
function writeGroup(dir: string, name: string, command: string[], ready: string, minInstances: number, extra = ''): void {
  writeFileSync(
    join(dir, `config/groups/${name}.toml`),
    `[group]\ntype = "STATIC"\nsoftware = "CUSTOM"\nversion = "1.21.1"\nstart_command = ${JSON.stringify(command)}\nready_pattern = "${ready}"\n[group.scaling]\nmin_instances = ${minInstances}\nmax_instances = 1\n[group.lifecycle]\nrestart_on_crash = false\ndrain_timeout = 0\n${extra}`,
  );
}

/**
 * svc.toml with the cluster on (so data/cluster holds a real key), `Other` (writes secret.txt,
 * runs at boot) and `Probe` (started by the test, its script from its template, deploy-on-stop
 * and state sync on); `probe` the attempts, `placement` its node.
 */
function writeSite(site: Site, attempts: Attempt[], placement = ''): void {
  const { dir } = site;
  writeFileSync(
    join(dir, 'svc.toml'),
    ['[api]', 'port = 0', 'rate_limit = 0', 'service_rate_limit = 0', '[cluster]', 'enabled = true', 'agent_port = 0', 'bind = "127.0.0.1"', 'public_host = "127.0.0.1"', 'heartbeat_interval = 300', '[services]', 'isolation = "auto"', ''].join('\n'),
  );
  mkdirSync(join(dir, 'config/groups'), { recursive: true });
  writeGroup(dir, 'Other', ['/bin/sh', '-c', 'echo secret >secret.txt; echo other ready; while read -r l; do [ "$l" = stop ] && exit 0; done'], 'other ready', 1);
  writeGroup(dir, 'Probe', ['/bin/sh', 'probe.sh', ...probeArgs(attempts)], 'probe done', 0, `deploy_on_stop = true\n[group.sync]\nenabled = true\n${placement ? `[group.placement]\nnode = "${placement}"\n` : ''}`);
  mkdirSync(join(dir, 'templates/Probe'), { recursive: true });
  writeFileSync(join(dir, 'templates/Probe/probe.sh'), PROBE);
  writeFileSync(site.marker, 'host tmp\n');
  if (site.asUid !== null) Bun.spawnSync(['chown', '-R', `${site.asUid}:${site.asUid}`, dir]);
}

/** The compiled controller (or `svc agent`) on a folder, as root or as `asUid`; its JSON log collected. */
function spawnSvc(binary: string, args: string[], dir: string, asUid: number | null) {
  const argv = asUid === null ? [binary, ...args] : ['setpriv', `--reuid=${asUid}`, `--regid=${asUid}`, '--clear-groups', binary, ...args];
  const child = Bun.spawn(argv, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, SVC_LOG_FORMAT: 'json', SVC_CLUSTER_TOKEN: CLUSTER }, stdout: 'pipe', stderr: 'pipe' });
  cleanups.push(() => child.kill('SIGKILL'));
  return { child, out: new LineCollector(child.stdout), err: new LineCollector(child.stderr) };
}

async function startSite(site: Site) {
  const { child, out, err } = spawnSvc(site.binary, ['--dir', site.dir], site.dir, site.asUid);
  let listening: string;
  try {
    listening = await out.waitForLine((l) => l.includes('API listening'), 20_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nstderr:\n${err.text}`);
  }
  const url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;
  const token = readFileSync(join(site.dir, 'data/api-token'), 'utf8').trim();
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
  return { child, out, api, url };
}

type Api = (path: string, init?: RequestInit) => Promise<Response>;

async function logLines(api: Api, name: string): Promise<string[]> {
  const body = await readJson(await api(`/api/services/${name}/logs?source=stdout&lines=200`));
  return (body.lines ?? []) as string[];
}

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

/** The binary as an unprivileged user can run it: a copy next to its folder when its own path is not open to others. */
function binaryFor(dir: string, asUid: number | null): string {
  if (asUid === null) return svc;
  let open = true;
  for (let path = svc; path !== '/'; path = dirname(path)) {
    const mode = statSync(path).mode;
    if ((mode & (path === svc ? 0o005 : 0o001)) !== (path === svc ? 0o005 : 0o001)) open = false;
  }
  if (open) return svc;
  const copy = join(dirname(dir), `svc-isolation-${process.pid}`);
  copyFileSync(svc, copy);
  chmodSync(copy, 0o755);
  cleanups.push(() => rmSync(copy, { force: true }));
  return copy;
}

/** Every attempt as the probe reported it; the uid it ran as. */
async function checkProbe(api: Api, attempts: Attempt[]): Promise<number> {
  const probe = (await logLines(api, 'Probe-1')).filter((l) => l.startsWith('probe ') && l !== 'probe done');
  expect(probe.filter((l) => !/^probe (uid|java):/.test(l))).toEqual(expectedLines(attempts));
  if (HAS_JAVA) expect(probe).toContain('probe java: runs');
  // The attempts really failed on the host: nothing written where it was refused, nor in the host's /tmp.
  for (const [kind, , path, outcome] of attempts) if (kind === 'write' && (outcome === 'denied' || path.startsWith('/tmp/'))) expect(existsSync(path)).toBe(false);
  return Number(probe.find((l) => l.startsWith('probe uid: '))!.slice('probe uid: '.length));
}

async function scenario(site: Site, expectedMode: 'uid+bwrap' | 'bwrap'): Promise<void> {
  const { dir } = site;
  const attempts = controllerAttempts(dir, site.marker, site.tmpfile);
  writeSite(site, attempts);
  cleanups.push(() => killGameServers(dir, []));
  const first = await startSite(site);
  const resolved = JSON.parse(await first.out.waitForLine((l) => l.includes('services isolated') || l.includes('NOT isolated')));
  expect(resolved.isolation).toBe(expectedMode);

  await waitFor(async () => (await readJson(await first.api('/api/services/Other-1'))).state === 'READY', { what: 'Other-1 READY', timeoutMs: 20_000 });
  expect(readFileSync(join(dir, 'services/static/Other-1/secret.txt'), 'utf8')).toBe('secret\n');
  expect((await first.api('/api/services/Probe/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await first.api('/api/services/Probe-1'))).state === 'READY', { what: 'Probe-1 READY', timeoutMs: 20_000 });

  // Every attempt, as the probe reports it, from the log the supervisor captured (now under data/run).
  const uid = await checkProbe(first.api, attempts);
  const work = join(dir, 'services/static/Probe-1');
  expect(readFileSync(join(work, 'own.txt'), 'utf8')).toBe('mine\n');
  // The supervisor's state is out of the service's reach; nothing of it in the work dir.
  expect(existsSync(join(dir, 'data/run/Probe-1/process.json'))).toBe(true);
  expect(existsSync(join(work, '.svc/process.json'))).toBe(false);
  if (expectedMode === 'uid+bwrap') {
    expect(uid).toBeGreaterThanOrEqual(1_900_000_000);
    if (uid >= 1_900_000_000) cleanups.push(() => Bun.spawnSync(['pkill', '-9', '-U', String(uid)]));
    expect(statSync(work).uid).toBe(uid);
    expect(statSync(work).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'svc.toml')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'services')).mode & 0o777).toBe(0o711);
    const uids = JSON.parse(readFileSync(join(dir, 'data/isolation-uids.json'), 'utf8'));
    expect(uids.services['Probe-1']).toBe(uid);
    expect(uids.services['Other-1']).not.toBe(uid);
  } else {
    expect(uid).toBe(site.asUid!);
  }
  // There was a key to refuse, wherever this build keeps the session key.
  expect(existsSync(join(dir, 'data/auth/session.key')) || existsSync(join(dir, 'config/modules/auth/session.key'))).toBe(true);
  expect(existsSync(join(dir, 'data/cluster/cluster.key'))).toBe(true);

  // The doctor shows the mode.
  const report = await readJson(await first.api('/api/doctor'));
  const environment = report.sections.find((s: { name: string }) => s.name === 'Environment');
  expect(environment.findings.some((f: { level: string; message: string }) => f.level === 'OK' && f.message.startsWith(`isolation: ${expectedMode} `))).toBe(true);

  // stdin: a command comes back on the console.
  expect((await first.api('/api/services/Probe-1/exec', { method: 'POST', body: JSON.stringify({ command: 'hello before' }) })).status).toBe(200);
  await waitFor(async () => (await logLines(first.api, 'Probe-1')).includes('echo: hello before'), { what: 'the echo' });

  // kill -9 the controller: the service runs on, the next controller adopts it.
  const before = await readJson(await first.api('/api/services/Probe-1'));
  first.child.kill('SIGKILL');
  await first.child.exited;
  expect(gone(before.pid)).toBe(false);
  const second = await startSite(site);
  await second.out.waitForLine((l) => l.includes('recovered a running service') && l.includes('Probe-1'));
  expect(await readJson(await second.api('/api/services/Probe-1'))).toMatchObject({ state: 'READY', pid: before.pid });
  expect((await second.api('/api/services/Probe-1/exec', { method: 'POST', body: JSON.stringify({ command: 'hello after' }) })).status).toBe(200);
  await waitFor(async () => (await logLines(second.api, 'Probe-1')).includes('echo: hello after'), { what: 'the echo after re-attach' });

  // Stop: `stop` on stdin ends it cleanly; deploy-on-stop and the state push read its files.
  expect((await second.api('/api/services/Probe-1/stop', { method: 'POST' })).status).toBe(200);
  await waitFor(() => gone(before.pid), { what: 'the probe to end' });
  await second.out.waitForLine((l) => l.includes('deployed changed files back into the template') && l.includes('Probe-1'));
  expect(readFileSync(join(dir, 'templates/Probe/deployed.txt'), 'utf8')).toBe('deployed\n');
  await waitFor(() => existsSync(join(dir, 'services/state/Probe-1/own.txt')) && readFileSync(join(dir, 'data/run/Probe-1/exit-code'), 'utf8') === '0\n', { what: 'the clean exit and the canonical copy' });
  if (expectedMode === 'uid+bwrap') expect(Bun.spawnSync(['pgrep', '-U', String(uid)]).stdout.toString().trim()).toBe('');

  second.child.kill('SIGTERM');
  expect(await second.child.exited).toBe(0);
}

/**
 * The same against an agent: the controller and `svc agent` both as root on this machine, the
 * probe placed on the agent. It must not read the agent's files (agent.toml holds the cluster
 * token) nor the controller's, and console, stdin, re-attach after kill -9 of the agent, stop
 * and the state push all work.
 */
async function agentScenario(dir: string): Promise<void> {
  const tag = `${process.pid}-${Date.now()}`;
  const site: Site = { dir, binary: svc, asUid: null, marker: `/tmp/svc-iso-${tag}-marker`, tmpfile: `/tmp/svc-iso-${tag}-probe` };
  cleanups.push(() => rmSync(site.marker, { force: true }));
  const agentDir = join(dir, 'node');
  const attempts: Attempt[] = [
    ['read', 'agent-config', join(agentDir, 'agent.toml'), 'denied'],
    ['read', 'agent-pins', join(agentDir, 'data/pinned.json'), 'denied'],
    ['read', 'agent-state', join(agentDir, 'data/services.json'), 'denied'],
    ['read', 'agent-uid-map', join(agentDir, 'data/isolation-uids.json'), 'denied'],
    ['read', 'controller-token', join(dir, 'data/api-token'), 'denied'],
    ['read', 'controller-service', join(dir, 'services/static/Other-1/secret.txt'), 'denied'],
    ['list', 'agent-services', join(agentDir, 'services/static'), 'denied'],
    ['write', 'agent-dir', join(agentDir, 'pwned.txt'), 'denied'],
    ['write', 'agent-data', join(agentDir, 'data/pwned.txt'), 'denied'],
    ['write', 'controller-dir', join(dir, 'pwned.txt'), 'denied'],
    ['see', 'host-tmp', site.marker, 'denied'],
    ['write', 'tmp', site.tmpfile, 'allowed'],
  ];
  writeSite(site, attempts, 'node-iso');
  cleanups.push(() => killGameServers(dir, []));
  const controller = await startSite(site);
  await waitFor(async () => (await readJson(await controller.api('/api/services/Other-1'))).state === 'READY', { what: 'Other-1 READY', timeoutMs: 20_000 });

  mkdirSync(agentDir);
  writeFileSync(join(agentDir, 'agent.toml'), `[agent]\ncontroller = "${controller.url}"\ntoken = "${CLUSTER}"\nnode_name = "node-iso"\npublic_host = "127.0.0.1"\nbackend_port_start = 41700\n[services]\nisolation = "auto"\n`);
  const startAgent = () => spawnSvc(svc, ['agent', '--dir', agentDir], agentDir, null);
  let agent = startAgent();
  const resolved = JSON.parse(await agent.out.waitForLine((l) => l.includes('services isolated') || l.includes('NOT isolated')));
  expect(resolved.isolation).toBe('uid+bwrap');
  await waitFor(async () => ((await readJson(await controller.api('/api/nodes'))).nodes ?? []).some((n: { nodeId: string; isConnected: boolean }) => n.nodeId === 'node-iso' && n.isConnected), { what: 'the agent connected', timeoutMs: 20_000 });
  // The controller's doctor names the node's mode.
  const report = await readJson(await controller.api('/api/doctor'));
  expect(report.sections.find((s: { name: string }) => s.name === 'Cluster').findings.map((f: { message: string }) => f.message)).toContain('node node-iso isolates its services: uid+bwrap');

  expect((await controller.api('/api/services/Probe/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await controller.api('/api/services/Probe-1'))).state === 'READY', { what: 'Probe-1 READY on the agent', timeoutMs: 20_000 });
  expect((await readJson(await controller.api('/api/services/Probe-1'))).nodeId).toBe('node-iso');
  const uid = await checkProbe(controller.api, attempts);
  expect(uid).toBeGreaterThanOrEqual(1_900_000_000);
  if (uid >= 1_900_000_000) cleanups.push(() => Bun.spawnSync(['pkill', '-9', '-U', String(uid)]));
  const work = join(agentDir, 'services/static/Probe-1');
  expect(statSync(work).uid).toBe(uid);
  expect(statSync(join(agentDir, 'agent.toml')).mode & 0o777).toBe(0o600);
  expect(existsSync(join(agentDir, 'data/run/Probe-1/process.json'))).toBe(true);

  // kill -9 the agent: the service runs on; the next agent re-attaches it and relays again.
  const pid = (await readJson(await controller.api('/api/services/Probe-1'))).pid as number;
  agent.child.kill('SIGKILL');
  await agent.child.exited;
  expect(gone(pid)).toBe(false);
  agent = startAgent();
  await agent.out.waitForLine((l) => l.includes('re-attached a running service') && l.includes('Probe-1'), 20_000);
  await waitFor(async () => {
    await controller.api('/api/services/Probe-1/exec', { method: 'POST', body: JSON.stringify({ command: 'hello node' }) });
    return (await logLines(controller.api, 'Probe-1')).includes('echo: hello node');
  }, { what: 'the echo through the re-attached agent', timeoutMs: 20_000, intervalMs: 200 });

  // Stop through the controller; the agent pushes the state it reads from the uid's folder.
  expect((await controller.api('/api/services/Probe-1/stop', { method: 'POST' })).status).toBe(200);
  await waitFor(() => gone(pid), { what: 'the probe on the agent to end' });
  await waitFor(() => existsSync(join(dir, 'services/state/Probe-1/own.txt')), { what: 'the canonical copy from the agent', timeoutMs: 20_000 });
  expect(Bun.spawnSync(['pgrep', '-U', String(uid)]).stdout.toString().trim()).toBe('');

  agent.child.kill('SIGTERM');
  await agent.child.exited;
  controller.child.kill('SIGTERM');
  expect(await controller.child.exited).toBe(0);
}

/**
 * Under /var/tmp, not /tmp: inside a sandbox /tmp is a private tmpfs, and the folders bwrap
 * makes there to hold the service folder's mount point would be writable (harmlessly, but the
 * probe could not tell); a controller folder anywhere else is what production looks like.
 */
function siteDir(kind: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join('/var/tmp', `svc-isolation-${kind}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

describe.skipIf(!IS_ROOT)('services are isolated (compiled binary)', () => {
  test('bubblewrap is installed (.ci/run installs it)', () => {
    expect(existsSync('/usr/bin/bwrap') || existsSync('/bin/bwrap')).toBe(true);
  });

  test('auto as root: each service under its own uid in a sandbox; forbidden reads and writes fail; console, stdin, re-attach, stop', async () => {
    const { dir, remove } = siteDir('root');
    cleanups.push(remove);
    const tag = `${process.pid}-${Date.now()}`;
    cleanups.push(() => rmSync(`/tmp/svc-iso-${tag}-marker`, { force: true }));
    await scenario({ dir, asUid: null, binary: binaryFor(dir, null), marker: `/tmp/svc-iso-${tag}-marker`, tmpfile: `/tmp/svc-iso-${tag}-probe` }, 'uid+bwrap');
  }, 90_000);

  test('auto as an unprivileged user: the sandbox alone; the same attempts fail, the same features work', async () => {
    const { dir, remove } = siteDir('user');
    cleanups.push(remove);
    chownSync(dir, PLAIN_UID, PLAIN_UID);
    const tag = `${process.pid}-${Date.now()}`;
    cleanups.push(() => rmSync(`/tmp/svc-iso-${tag}-marker`, { force: true }));
    await scenario({ dir, asUid: PLAIN_UID, binary: binaryFor(dir, PLAIN_UID), marker: `/tmp/svc-iso-${tag}-marker`, tmpfile: `/tmp/svc-iso-${tag}-probe` }, 'bwrap');
  }, 90_000);

  test('an agent as root: its services under their own uids in a sandbox, kept from its files and the controller\'s; re-attach after kill -9 of the agent', async () => {
    const { dir, remove } = siteDir('agent');
    cleanups.push(remove);
    chmodSync(dir, 0o711);
    await agentScenario(dir);
  }, 90_000);
});
