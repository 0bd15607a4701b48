import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setprivArgv } from '../../../src/core/isolation/owner';
import { probeArgv, runtimeDir, sandboxArgv, type SandboxLayout } from '../../../src/core/isolation/sandbox';
import { applyModes, controllerModes, reachableByOthers } from '../../../src/core/isolation/tighten';
import { UidMap } from '../../../src/core/isolation/uid-map';
import { DEFAULT_UID_BASE, MAX_UID_BASE, UID_COUNT } from '../../../src/core/isolation/range';
import { wrapperArgv } from '../../../src/core/supervisor/process/wrapper-script';

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-isolation-unit-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const LAYOUT: SandboxLayout = {
  bwrap: '/usr/bin/bwrap',
  init: '/usr/bin/timeout',
  roots: [
    { path: '/bin', symlink: 'usr/bin' },
    { path: '/lib', symlink: 'usr/lib' },
    { path: '/lib64', bind: true },
  ],
  etc: ['/etc/resolv.conf', '/etc/java-21-openjdk'],
};

/** The value after each occurrence of `flag` (one or two operands). */
const operands = (argv: string[], flag: string, count = 1) => argv.flatMap((arg, i) => (arg === flag ? [argv.slice(i + 1, i + 1 + count).join(' ')] : []));

describe('the sandbox argv', () => {
  const argv = sandboxArgv(LAYOUT, { workDir: '/srv/svc/services/static/Lobby-1', realWorkDir: '/data/svc/services/static/Lobby-1', readOnly: ['/opt/jdk-21'] }, ['java', '-jar', 'server.jar', '--nogui']);

  test('bwrap with every namespace but the network, its own pid 1, no nested user namespaces, dying with its parent', () => {
    expect(argv[0]).toBe('/usr/bin/bwrap');
    for (const flag of ['--unshare-all', '--share-net', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--as-pid-1']) expect(argv).toContain(flag);
    expect(operands(argv, '--info-fd')).toEqual(['4']);
  });

  test('the program follows `--` behind the timeout init, argv untouched', () => {
    const dashdash = argv.lastIndexOf('--');
    expect(argv.slice(dashdash + 1)).toEqual(['/usr/bin/timeout', '0', 'java', '-jar', 'server.jar', '--nogui']);
  });

  test('system read-only, merged-usr links recreated, real root folders bound, /etc only entry by entry', () => {
    expect(operands(argv, '--ro-bind', 2)).toEqual(['/usr /usr', '/opt/jdk-21 /opt/jdk-21']);
    expect(operands(argv, '--symlink', 2)).toEqual(['usr/bin /bin', 'usr/lib /lib']);
    expect(operands(argv, '--ro-bind-try', 2)).toEqual(['/lib64 /lib64', '/etc/resolv.conf /etc/resolv.conf', '/etc/java-21-openjdk /etc/java-21-openjdk']);
    expect(argv).not.toContain('/etc');
  });

  test('its own folder is the one writable bind, at its configured path, and the cwd; then the root goes read-only', () => {
    expect(operands(argv, '--bind', 2)).toEqual(['/data/svc/services/static/Lobby-1 /srv/svc/services/static/Lobby-1']);
    expect(operands(argv, '--chdir')).toEqual(['/srv/svc/services/static/Lobby-1']);
    // /tmp is mounted before anything under it could be bound; the root is remounted read-only after every mount.
    expect(argv.indexOf('--tmpfs')).toBeLessThan(argv.indexOf('--bind'));
    expect(operands(argv, '--remount-ro')).toEqual(['/']);
    expect(argv.indexOf('--remount-ro')).toBeGreaterThan(argv.indexOf('--chdir'));
  });

  test('the probe is the same sandbox without a folder or an info fd', () => {
    const probe = probeArgv(LAYOUT);
    expect(probe).not.toContain('--bind');
    expect(probe).not.toContain('--info-fd');
    expect(probe.slice(probe.lastIndexOf('--') + 1)).toEqual(['/usr/bin/timeout', '0', '/bin/sh', '-c', 'exit 0']);
  });
});

describe('setpriv', () => {
  test('one uid and the gid of the same number, no groups, no privileges to gain, no capabilities left', () => {
    expect(setprivArgv('/usr/bin/setpriv', 1_900_000_123)).toEqual([
      '/usr/bin/setpriv',
      '--reuid=1900000123',
      '--regid=1900000123',
      '--clear-groups',
      '--no-new-privs',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--',
    ]);
  });
});

describe('the wrapper argv', () => {
  test('the info file is "-" unless a plain file name is given', () => {
    expect(wrapperArgv('m', '/state', ['x']).slice(4)).toEqual(['m', '/state', '-', 'x']);
    expect(wrapperArgv('m', '/state', ['x'], 'sandbox.json').slice(4)).toEqual(['m', '/state', 'sandbox.json', 'x']);
    for (const bad of ['-', '', '../x', 'a/b']) expect(() => wrapperArgv('m', '/state', ['x'], bad)).toThrow('plain file name');
  });
});

describe('runtimeDir: the Java runtime bound read-only when it lives outside /usr', () => {
  const root = scratch();
  const jdk = join(root, 'opt', 'jdk-21');
  mkdirSync(join(jdk, 'bin'), { recursive: true });
  writeFileSync(join(jdk, 'bin', 'java'), '');
  mkdirSync(join(root, 'links'));
  symlinkSync(join(jdk, 'bin', 'java'), join(root, 'links', 'java'));
  const controller = join(root, 'svc');
  mkdirSync(join(controller, 'bin'), { recursive: true });
  writeFileSync(join(controller, 'bin', 'java'), '');
  const work = join(controller, 'services', 'static', 'Lobby-1');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'run.sh'), '');
  const options = { cwd: work, path: `${join(root, 'links')}:/usr/bin`, forbidden: [controller, join(controller, 'data')] };

  test('a JDK outside /usr: its home (the folder above bin/), through links and PATH', () => {
    expect(runtimeDir(join(jdk, 'bin', 'java'), options)).toBe(jdk);
    expect(runtimeDir('java', options)).toBe(jdk);
  });

  test('under /usr, inside the service folder, or not found: nothing to bind', () => {
    expect(runtimeDir('/usr/bin/sh', options)).toBeNull();
    expect(runtimeDir('./run.sh', options)).toBeNull();
    expect(runtimeDir('no-such-program', options)).toBeNull();
  });

  test('never the controller folder, anything holding it, or a top-level folder', () => {
    expect(runtimeDir(join(controller, 'bin', 'java'), options)).toBeNull();
    expect(runtimeDir(join(jdk, 'bin', 'java'), { ...options, forbidden: [join(jdk, 'secrets')] })).toBeNull();
    expect(runtimeDir(join(jdk, 'bin', 'java'), { ...options, forbidden: [root] })).toBeNull();
  });
});

describe('the controller\'s own modes in uid mode', () => {
  test('secrets owner-only, service parents 0711, each service folder 0700; links never followed', () => {
    const dir = scratch();
    for (const path of ['data', 'config', 'templates', 'services/static/Lobby-1', 'services/temp/Game-1_ab', 'services/state', 'dedicated/Survival']) mkdirSync(join(dir, path), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, 'svc.toml'), '', { mode: 0o644 });
    const outside = scratch();
    chmodSync(outside, 0o755);
    symlinkSync(outside, join(dir, 'services', 'static', 'linked'));
    const rules = controllerModes({
      dir,
      configFile: join(dir, 'svc.toml'),
      ownerOnly: [join(dir, 'data'), join(dir, 'config'), join(dir, 'templates'), join(dir, 'services', 'state')],
      serviceRoots: [
        { root: join(dir, 'services'), sub: ['static', 'temp'] },
        { root: join(dir, 'dedicated'), sub: [] },
      ],
    });
    const changed = applyModes(rules);
    const mode = (path: string) => statSync(join(dir, path)).mode & 0o777;
    expect(mode('.')).toBe(0o711);
    expect(mode('svc.toml')).toBe(0o600);
    for (const path of ['data', 'config', 'templates', 'services/state', 'services/static/Lobby-1', 'services/temp/Game-1_ab', 'dedicated/Survival']) expect(mode(path)).toBe(0o700);
    for (const path of ['services', 'services/static', 'services/temp', 'dedicated']) expect(mode(path)).toBe(0o711);
    expect(lstatSync(join(dir, 'services', 'static', 'linked')).isSymbolicLink()).toBe(true);
    expect(statSync(outside).mode & 0o777).toBe(0o755);
    expect(changed).toContain(join(dir, 'svc.toml'));
    expect(applyModes(rules)).toEqual([]); // a second start changes nothing
  });

  test('a folder above the service roots that others cannot search is named', () => {
    const top = scratch();
    const closed = join(top, 'closed');
    mkdirSync(join(closed, 'svc', 'services'), { recursive: true });
    chmodSync(top, 0o755);
    chmodSync(closed, 0o700);
    const check = reachableByOthers([join(closed, 'svc', 'services')], [join(closed, 'svc'), join(closed, 'svc', 'services')]);
    expect(check).toEqual({ ok: false, why: `${closed} (mode 700) is not searchable by other users, so a service uid cannot reach ${join(closed, 'svc', 'services')}` });
    chmodSync(closed, 0o711);
    expect(reachableByOthers([join(closed, 'svc', 'services')], [join(closed, 'svc'), join(closed, 'svc', 'services')])).toEqual({ ok: true });
  });
});

describe('UidMap: one stable uid per service name', () => {
  test('stable across instances, distinct per name, in range, kept owner-only', () => {
    const dir = scratch();
    const file = join(dir, 'isolation-uids.json');
    const first = new UidMap(file, DEFAULT_UID_BASE, dir, () => false);
    const lobby = first.uidOf('Lobby-1');
    const game = first.uidOf('Game-1');
    expect(lobby).not.toBe(game);
    for (const uid of [lobby, game]) {
      expect(uid).toBeGreaterThanOrEqual(DEFAULT_UID_BASE);
      expect(uid).toBeLessThan(DEFAULT_UID_BASE + UID_COUNT);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = new UidMap(file, DEFAULT_UID_BASE, dir, () => false);
    expect([again.uidOf('Lobby-1'), again.uidOf('Game-1')]).toEqual([lobby, game]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ base: DEFAULT_UID_BASE, services: { 'Game-1': game, 'Lobby-1': lobby } });
  });

  test('another installation hashes the same name elsewhere; a uid that owns a process is skipped', () => {
    const a = scratch();
    const b = scratch();
    const inA = new UidMap(join(a, 'uids.json'), DEFAULT_UID_BASE, a, () => false).uidOf('Lobby-1');
    const inB = new UidMap(join(b, 'uids.json'), DEFAULT_UID_BASE, b, () => false).uidOf('Lobby-1');
    expect(inA).not.toBe(inB);
    const busy = new UidMap(join(b, 'other.json'), DEFAULT_UID_BASE, a, (uid) => uid === inA).uidOf('Lobby-1');
    expect(busy).toBe(inA + 1 === DEFAULT_UID_BASE + UID_COUNT ? DEFAULT_UID_BASE : inA + 1);
  });

  test('a moved base gives every remembered uid outside it a new one', () => {
    const dir = scratch();
    const file = join(dir, 'uids.json');
    const old = new UidMap(file, DEFAULT_UID_BASE, dir, () => false).uidOf('Lobby-1');
    const moved = new UidMap(file, MAX_UID_BASE, dir, () => false).uidOf('Lobby-1');
    expect(moved).toBeGreaterThanOrEqual(MAX_UID_BASE);
    expect(moved).not.toBe(old);
    expect(moved + 0).toBeLessThan(2 ** 31);
  });
});
