/**
 * The systemd units in config/: valid for systemd (systemd-analyze verify when it is installed,
 * else parsed here), hardened, compatible with the bubblewrap sandbox, reloading in place, and
 * with a stop timeout that covers a clean stop of the worst case.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MANAGER_TIMING } from '../../src/core/services/manager-timing';

const UNITS = ['svc.service', 'svc-agent.service'] as const;
const read = (name: string) => readFileSync(join(import.meta.dir, '../../config', name), 'utf8');

/** `[Section]` → key → values (a key may repeat). Continuation lines are not used in these files. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const pair = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!pair || !current) throw new Error(`line ${index + 1} is neither a section, a comment nor Key=value: ${raw}`);
    current.set(pair[1]!, [...(current.get(pair[1]!) ?? []), pair[2]!]);
  }
  return sections;
}

/** What the bubblewrap sandbox cannot live with (each verified to make bwrap fail "Can't mount proc", or block its syscalls). */
const BREAKS_THE_SANDBOX = ['RestrictNamespaces', 'PrivateUsers', 'ProtectKernelTunables', 'ProtectKernelLogs', 'ProcSubset', 'SystemCallFilter', 'MemoryDenyWriteExecute'];
const HARDENING = ['NoNewPrivileges', 'ProtectSystem', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID', 'ProtectKernelModules', 'ProtectControlGroups', 'LockPersonality', 'RestrictRealtime'];

describe.each(UNITS)('config/%s', (name) => {
  const unit = parseUnit(read(name));
  const service = unit.get('Service')!;
  const one = (key: string) => service.get(key)?.at(-1);

  test('parses: Unit, Service and Install sections, a Type=simple service run as svc', () => {
    expect([...unit.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(one('Type')).toBe('simple');
    expect(one('User')).toBe('svc');
    expect(one('ExecStart')).toMatch(/^\/opt\/svc\/svc (controller|agent) --dir \/var\/lib\/svc(-agent)?$/);
  });

  test('hardened, and nothing that breaks the bubblewrap sandbox', () => {
    for (const key of HARDENING) expect({ key, value: one(key) }).toEqual({ key, value: expect.stringMatching(/^(true|strict)$/) });
    expect(one('ProtectSystem')).toBe('strict');
    // the working directory and the binary's folder (self-update) stay writable
    expect(one('ReadWritePaths')).toContain('-/opt/svc');
    for (const key of BREAKS_THE_SANDBOX) expect({ key, set: service.has(key) }).toEqual({ key, set: false });
  });

  test('KillMode=process (game servers outlive the process) and reload restarts in place with SIGUSR2', () => {
    expect(one('KillMode')).toBe('process');
    expect(one('ExecReload')).toBe('/bin/kill -s USR2 $MAINPID');
    expect(one('RestartPreventExitStatus')).toBe('2');
  });

  test('systemd-analyze verify accepts it (when systemd-analyze is installed)', () => {
    const analyze = Bun.which('systemd-analyze');
    if (!analyze) return; // parsed above; verify needs systemd's tools
    const dir = mkdtempSync(join(tmpdir(), 'svc-unit-'));
    try {
      // ExecStart must name an executable that exists here: bun stands in for the svc binary.
      const file = join(dir, name);
      writeFileSync(file, read(name).replaceAll('/opt/svc/svc', process.execPath));
      const result = Bun.spawnSync([analyze, 'verify', file], { stderr: 'pipe', stdout: 'pipe' });
      expect({ status: result.exitCode, stderr: result.stderr.toString() }).toEqual({ status: 0, stderr: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("the controller's TimeoutStopSec covers a clean stop: 4 waves of stop timeout + kill grace, and time for the rest", () => {
  const service = parseUnit(read('svc.service')).get('Service')!;
  const { stopTimeoutMs, killTimeoutMs } = DEFAULT_MANAGER_TIMING;
  const waves = 4; // dedicated, stop-on-empty, other backends, proxies (services/shutdown.ts)
  const worstCase = (waves * (stopTimeoutMs + killTimeoutMs)) / 1000;
  expect(Number(service.get('TimeoutStopSec')![0])).toBeGreaterThanOrEqual(worstCase + 10);
});

/**
 * The hardening keeps the sandbox working: svc's own bubblewrap probe, run in a mount namespace
 * set up the way systemd sets one up for the unit (ProtectSystem=strict, PrivateTmp,
 * PrivateDevices, ProtectControlGroups, ProtectProc=invisible). And the settings the unit leaves
 * out really break it (ProtectKernelTunables, here). Needs root, unshare and bwrap.
 */
describe('the sandbox under the unit hardening', () => {
  const unshare = Bun.which('unshare');
  const canRun = process.getuid?.() === 0 && unshare !== null && Bun.which('bwrap') !== null;

  const probeUnder = async (setup: string) => {
    const { discoverSandboxLayout, probeArgv } = await import('../../src/core/isolation/sandbox');
    const found = discoverSandboxLayout();
    if (!('layout' in found)) throw new Error(found.missing);
    const result = Bun.spawnSync([unshare!, '-m', '--propagation', 'private', 'sh', '-ec', `${setup}\nexec "$@"`, 'sh', ...probeArgv(found.layout)], { stdout: 'pipe', stderr: 'pipe' });
    return { status: result.exitCode, stderr: result.stderr.toString() };
  };

  const UNIT_NAMESPACE = [
    // PrivateDevices: a fresh /dev with the few devices a service gets
    'old=$(mktemp -d); mount --bind /dev "$old"; mount -t tmpfs -o mode=755 tmpfs /dev',
    'for d in null zero full random urandom tty; do touch /dev/$d; mount --bind "$old/$d" /dev/$d; done',
    'mkdir /dev/pts /dev/shm; ln -s /proc/self/fd /dev/fd',
    // PrivateTmp, ProtectControlGroups, ProtectProc=invisible
    'mount -t tmpfs tmpfs /tmp',
    'mount --bind /sys/fs/cgroup /sys/fs/cgroup 2>/dev/null && mount -o remount,bind,ro /sys/fs/cgroup 2>/dev/null || true',
    'mount -t proc -o hidepid=invisible proc /proc',
    // ProtectSystem=strict: the root read-only (the API file systems /proc, /dev, /sys are mounts of their own)
    'mount -o remount,bind,ro /',
    'if touch /.svc-unit-test 2>/dev/null; then echo "/ is still writable" >&2; exit 1; fi',
  ].join('\n');

  test.skipIf(!canRun)('the unit settings: the probe runs', async () => {
    expect(await probeUnder(UNIT_NAMESPACE)).toEqual({ status: 0, stderr: '' });
  });

  test.skipIf(!canRun)('ProtectKernelTunables (a read-only /proc/sys over /proc): the probe fails, which is why the unit leaves it out', async () => {
    const result = await probeUnder('mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("Can't mount proc");
  });
});
