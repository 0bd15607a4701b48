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
import { accessSync, chmodSync, chownSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
 * The probe: POSIX sh only, so it runs in every mode. `<dir> <data> <other>` are the
 * controller's folder, its data/ and the other service's folder; `<marker>` a file in the
 * host's /tmp, `<tmpfile>` one it tries to create there.
 */
const PROBE = `#!/bin/sh
dir=$1 data=$2 other=$3 marker=$4 tmpfile=$5
say() { echo "probe $1: $2"; }
try_read() { if cat "$2" >/dev/null 2>&1; then say "read $1" allowed; else say "read $1" denied; fi; }
try_write() { if (echo pwned >"$2") 2>/dev/null; then say "write $1" allowed; else say "write $1" denied; fi; }
try_read token "$data/api-token"
try_read config "$dir/svc.toml"
try_read database "$data/svc.db"
try_read cluster-key "$data/cluster/cluster.key"
try_read session-key "$data/auth/session.key"
try_read legacy-session-key "$dir/config/modules/auth/session.key"
try_read other-service "$other/secret.txt"
others=$(ls "$(dirname "$other")" 2>/dev/null | grep -vx "$(basename "$PWD")")
[ -n "$others" ] && say "list services" allowed || say "list services" denied
try_write controller-dir "$dir/pwned.txt"
try_write data-dir "$data/pwned.txt"
try_write other-service "$other/pwned.txt"
if [ -e "$marker" ]; then say "see host tmp" allowed; else say "see host tmp" denied; fi
try_write tmp "$tmpfile"
try_write own-dir ./own.txt
try_read own-dir ./own.txt
try_write tmpdir "$TMPDIR/scratch"
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

const EXPECTED = [
  'probe read token: denied',
  'probe read config: denied',
  'probe read database: denied',
  'probe read cluster-key: denied',
  'probe read session-key: denied',
  'probe read legacy-session-key: denied',
  'probe read other-service: denied',
  'probe list services: denied',
  'probe write controller-dir: denied',
  'probe write data-dir: denied',
  'probe write other-service: denied',
  'probe see host tmp: denied',
  // Into the sandbox's own /tmp: the host's never gets the file (checked below).
  'probe write tmp: allowed',
  'probe write own-dir: allowed',
  'probe read own-dir: allowed',
  'probe write tmpdir: allowed',
  'probe home: own-dir',
  'probe env-cluster-token: absent',
];

interface Site {
  dir: string;
  /** The svc binary, where this site's user can run it. */
  binary: string;
  /** The user the controller runs as: root, or PLAIN_UID under setpriv. */
  asUid: number | null;
  marker: string;
  tmpfile: string;
}

function writeSite(site: Site): void {
  const { dir } = site;
  const data = join(dir, 'data');
  const other = join(dir, 'services', 'static', 'Other-1');
  writeFileSync(
    join(dir, 'svc.toml'),
    [
      '[api]',
      'port = 0',
      'rate_limit = 0',
      'service_rate_limit = 0',
      '[cluster]',
      'enabled = true',
      'agent_port = 0',
      'bind = "127.0.0.1"',
      '[services]',
      'isolation = "auto"',
      '',
    ].join('\n'),
  );
  mkdirSync(join(dir, 'config/groups'), { recursive: true });
  const group = (name: string, command: string[], extra: string) =>
    writeFileSync(
      join(dir, `config/groups/${name}.toml`),
      `[group]\ntype = "STATIC"\nsoftware = "CUSTOM"\nversion = "1.21.1"\nstart_command = ${JSON.stringify(command)}\nready_pattern = "${name === 'Probe' ? 'probe done' : 'other ready'}"\n[group.scaling]\nmin_instances = ${name === 'Other' ? 1 : 0}\nmax_instances = 1\n[group.lifecycle]\nrestart_on_crash = false\ndrain_timeout = 0\n${extra}`,
    );
  group('Other', ['/bin/sh', '-c', 'echo secret >secret.txt; echo other ready; while read -r l; do [ "$l" = stop ] && exit 0; done'], '');
  group('Probe', ['/bin/sh', 'probe.sh', dir, data, other, site.marker, site.tmpfile], 'deploy_on_stop = true\n[group.sync]\nenabled = true\n');
  mkdirSync(join(dir, 'templates/Probe'), { recursive: true });
  writeFileSync(join(dir, 'templates/Probe/probe.sh'), PROBE);
  writeFileSync(site.marker, 'host tmp\n');
  if (site.asUid !== null) Bun.spawnSync(['chown', '-R', `${site.asUid}:${site.asUid}`, dir]);
}

/** The compiled controller on the site, as root or as the site's user; its JSON log collected. */
async function startSite(site: Site) {
  const argv = site.asUid === null ? [site.binary, '--dir', site.dir] : ['setpriv', `--reuid=${site.asUid}`, `--regid=${site.asUid}`, '--clear-groups', site.binary, '--dir', site.dir];
  const child = Bun.spawn(argv, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: site.dir, SVC_LOG_FORMAT: 'json', SVC_CLUSTER_TOKEN: CLUSTER }, stdout: 'pipe', stderr: 'pipe' });
  cleanups.push(() => child.kill('SIGKILL'));
  const out = new LineCollector(child.stdout);
  const err = new LineCollector(child.stderr);
  let listening: string;
  try {
    listening = await out.waitForLine((l) => l.includes('API listening'), 20_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nstderr:\n${err.text}`);
  }
  const url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;
  const token = readFileSync(join(site.dir, 'data/api-token'), 'utf8').trim();
  const api = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
  return { child, out, api };
}

async function logLines(api: (path: string, init?: RequestInit) => Promise<Response>, name: string): Promise<string[]> {
  const body = await readJson(await api(`/api/services/${name}/logs?source=stdout&lines=200`));
  return (body.lines ?? []) as string[];
}

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

async function scenario(site: Site, expectedMode: 'uid+bwrap' | 'bwrap'): Promise<void> {
  const { dir } = site;
  writeSite(site);
  cleanups.push(() => killGameServers(dir, []));
  const first = await startSite(site);
  const resolved = JSON.parse(await first.out.waitForLine((l) => l.includes('services isolated') || l.includes('NOT isolated')));
  expect(resolved.isolation).toBe(expectedMode);

  await waitFor(async () => (await readJson(await first.api('/api/services/Other-1'))).state === 'READY', { what: 'Other-1 READY', timeoutMs: 20_000 });
  expect(readFileSync(join(dir, 'services/static/Other-1/secret.txt'), 'utf8')).toBe('secret\n');
  expect((await first.api('/api/services/Probe/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await first.api('/api/services/Probe-1'))).state === 'READY', { what: 'Probe-1 READY', timeoutMs: 20_000 });

  // Every attempt, as the probe reports it, in the log the supervisor captured (now under data/run).
  const lines = await logLines(first.api, 'Probe-1');
  const probe = lines.filter((l) => l.startsWith('probe ') && l !== 'probe done');
  expect(probe.filter((l) => !/^probe (uid|java):/.test(l))).toEqual(EXPECTED);
  if (HAS_JAVA) expect(probe).toContain('probe java: runs');
  const uid = Number(probe.find((l) => l.startsWith('probe uid: '))!.slice('probe uid: '.length));
  // The attempts really failed on the host too.
  for (const path of [join(dir, 'pwned.txt'), join(dir, 'data/pwned.txt'), join(dir, 'services/static/Other-1/pwned.txt'), site.tmpfile]) expect(existsSync(path)).toBe(false);
  expect(existsSync(join(dir, 'services/static/Probe-1/own.txt'))).toBe(true);

  const work = join(dir, 'services/static/Probe-1');
  // The supervisor's state is out of the service's reach; nothing of it in the work dir.
  expect(existsSync(join(dir, 'data/run/Probe-1/process.json'))).toBe(true);
  expect(existsSync(join(work, '.svc/process.json'))).toBe(false);
  if (expectedMode === 'uid+bwrap') {
    expect(uid).toBeGreaterThanOrEqual(1_900_000_000);
    expect(statSync(work).uid).toBe(uid);
    expect(statSync(work).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'svc.toml')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'services')).mode & 0o777).toBe(0o711);
    const uids = JSON.parse(readFileSync(join(dir, 'data/isolation-uids.json'), 'utf8'));
    expect(uids.services['Probe-1']).toBe(uid);
    expect(uids.services['Other-1']).not.toBe(uid);
    if (uid >= 1_900_000_000) cleanups.push(() => Bun.spawnSync(['pkill', '-9', '-U', String(uid)]));
  } else {
    expect(uid).toBe(site.asUid!);
  }
  // A session key existed to be refused, wherever this build keeps it.
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
  expect(() => process.kill(before.pid, 0)).not.toThrow();
  const second = await startSite(site);
  await second.out.waitForLine((l) => l.includes('recovered a running service') && l.includes('Probe-1'));
  expect(await readJson(await second.api('/api/services/Probe-1'))).toMatchObject({ state: 'READY', pid: before.pid });
  expect((await second.api('/api/services/Probe-1/exec', { method: 'POST', body: JSON.stringify({ command: 'hello after' }) })).status).toBe(200);
  await waitFor(async () => (await logLines(second.api, 'Probe-1')).includes('echo: hello after'), { what: 'the echo after re-attach' });

  // Stop: `stop` on stdin ends it cleanly; deploy-on-stop and the state push read its files.
  expect((await second.api('/api/services/Probe-1/stop', { method: 'POST' })).status).toBe(200);
  await waitFor(() => {
    try {
      process.kill(before.pid, 0);
      return false;
    } catch {
      return true;
    }
  }, { what: 'the probe to end' });
  await second.out.waitForLine((l) => l.includes('deployed changed files back into the template') && l.includes('Probe-1'));
  expect(readFileSync(join(dir, 'templates/Probe/deployed.txt'), 'utf8')).toBe('deployed\n');
  await waitFor(() => existsSync(join(dir, 'services/state/Probe-1')) && readFileSync(join(dir, 'data/run/Probe-1/exit-code'), 'utf8') === '0\n', { what: 'the clean exit and the canonical copy' });
  if (expectedMode === 'uid+bwrap') expect(Bun.spawnSync(['pgrep', '-U', String(uid)]).stdout.toString().trim()).toBe('');

  second.child.kill('SIGTERM');
  expect(await second.child.exited).toBe(0);
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
    await scenario({ dir, asUid: null, binary: binaryFor(dir, null), marker: `/tmp/svc-iso-${tag}-marker`, tmpfile: `/tmp/svc-iso-${tag}-probe` }, 'uid+bwrap');
    rmSync(`/tmp/svc-iso-${tag}-marker`, { force: true });
  }, 90_000);

  test('auto as an unprivileged user: the sandbox alone; the same attempts fail, the same features work', async () => {
    const { dir, remove } = siteDir('user');
    cleanups.push(remove);
    chownSync(dir, PLAIN_UID, PLAIN_UID);
    accessSync(dir, constants.R_OK);
    const tag = `${process.pid}-${Date.now()}`;
    await scenario({ dir, asUid: PLAIN_UID, binary: binaryFor(dir, PLAIN_UID), marker: `/tmp/svc-iso-${tag}-marker`, tmpfile: `/tmp/svc-iso-${tag}-probe` }, 'bwrap');
    rmSync(`/tmp/svc-iso-${tag}-marker`, { force: true });
  }, 90_000);
});
