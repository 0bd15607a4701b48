import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';

/**
 * The bubblewrap sandbox a service runs in: a fresh root with /usr and the few /etc entries a
 * JVM and DNS need read-only, its own /proc (a pid namespace of its own), /dev and /tmp, the
 * Java runtime read-only when it lives outside /usr, and its own directory the one writable
 * place. Never the controller's folder, data/ or /etc as a whole (svc.toml may live in
 * /etc/svc). The network is shared: servers listen on their ports and call the API.
 */
export interface SandboxLayout {
  /** Absolute path of bwrap. */
  bwrap: string;
  /** Absolute path of coreutils `timeout`, the sandbox's pid 1 (see sandboxArgv). */
  init: string;
  /** Top-level system folders: merged-usr symlinks recreated, real folders bound read-only. */
  roots: ({ path: string; symlink: string } | { path: string; bind: true })[];
  /** Entries of /etc bound read-only when present. */
  etc: string[];
}

/** The top-level folders a program may reach /usr through (merged /usr makes them links). */
const ROOT_ENTRIES = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * /etc entries for name resolution (resolv.conf, hosts, nsswitch.conf, host.conf, gai.conf),
 * TLS roots (ssl, ca-certificates, pki), the dynamic linker, Java's configuration (its conf/
 * links into /etc/java-*), alternatives (the java on PATH), users and groups (user.name),
 * time zone and fonts. Nothing with a secret in it: each is world-readable on a stock system.
 */
const ETC_ENTRIES = [
  'resolv.conf', 'hosts', 'host.conf', 'gai.conf', 'nsswitch.conf', 'ssl', 'ca-certificates', 'ca-certificates.conf', 'pki', 'crypto-policies',
  'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'alternatives', 'passwd', 'group', 'localtime', 'timezone', 'fonts', 'mime.types', 'os-release',
];

/** Where bwrap and timeout are looked for: system folders only, never the controller's PATH. */
const SYSTEM_BIN = ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'];

/** An executable file named `name` in one of the system folders, or null. */
export function findSystemProgram(name: string): string | null {
  for (const dir of SYSTEM_BIN) {
    const path = join(dir, name);
    try {
      if (statSync(path).isFile()) return path;
    } catch {
      // not here
    }
  }
  return null;
}

/** This host's layout (which root folders are links, which /etc entries exist); null without bwrap or timeout. */
export function discoverSandboxLayout(): { layout: SandboxLayout } | { missing: string } {
  const bwrap = findSystemProgram('bwrap');
  if (!bwrap) return { missing: 'bwrap is not installed (Debian: apt-get install bubblewrap)' };
  const init = findSystemProgram('timeout');
  if (!init) return { missing: 'coreutils timeout is not installed (the sandbox\'s init)' };
  const roots: SandboxLayout['roots'] = [];
  for (const path of ROOT_ENTRIES) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) roots.push({ path, symlink: readlinkSync(path) });
      else if (stat.isDirectory()) roots.push({ path, bind: true });
    } catch {
      // absent on this system
    }
  }
  const etc = ETC_ENTRIES.map((name) => `/etc/${name}`).filter((path) => existsSync(path));
  try {
    for (const name of readdirSync('/etc').sort()) if (/^java(-|$)/.test(name)) etc.push(`/etc/${name}`);
  } catch {
    // no /etc to read: the binds above are -try anyway
  }
  return { layout: { bwrap, init, roots, etc } };
}

/** What bwrap needs before the program: every mount, then `--`. */
function bwrapPrefix(layout: SandboxLayout, binds: { workDir: string; realWorkDir: string; readOnly: readonly string[] } | null): string[] {
  const args = [
    layout.bwrap,
    '--unshare-all',
    '--share-net',
    // Explicit, for --disable-userns: no user namespace inside (less kernel surface to attack).
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--as-pid-1',
    // The wrapper opens fd 4 on the state dir's sandbox.json (supervisor sandbox-pid.ts); a probe has none.
    ...(binds ? ['--info-fd', '4'] : []),
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const root of layout.roots) args.push(...('symlink' in root ? ['--symlink', root.symlink, root.path] : ['--ro-bind-try', root.path, root.path]));
  // /tmp before any bind under it (a service folder may live in /tmp).
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const path of layout.etc) args.push('--ro-bind-try', path, path);
  if (binds) {
    for (const path of binds.readOnly) args.push('--ro-bind', path, path);
    args.push('--bind', binds.realWorkDir, binds.workDir, '--chdir', binds.workDir);
  }
  // The sandbox's own root (a tmpfs holding the mount points above) read-only: nothing can be
  // written beside the service folder but /tmp, which is the sandbox's own.
  args.push('--remount-ro', '/');
  return args;
}

/**
 * bwrap, then its init, then the program. The init is `timeout 0` (a duration of 0 never
 * times out): pid 1 of a namespace only receives the signals it handles, so a server that
 * leaves SIGTERM at its default would ignore our stop if it were pid 1 itself. As the init's
 * child it is an ordinary process (signals reach it, nothing inherited ignored, stdin kept),
 * `timeout` exits with its status (128+n after signal n, like sh), and when it ends the pid
 * namespace ends with everything the server left behind. The server's pid, where signals go,
 * is the init's child (supervisor sandbox-pid.ts).
 */
export function sandboxArgv(layout: SandboxLayout, options: { workDir: string; realWorkDir: string; readOnly: readonly string[] }, argv: readonly string[]): string[] {
  return [...bwrapPrefix(layout, options), '--', layout.init, '0', ...argv];
}

/** The probe: the same sandbox, without a service folder, running `sh -c 'exit 0'`. */
export function probeArgv(layout: SandboxLayout): string[] {
  return [...bwrapPrefix(layout, null), '--', layout.init, '0', '/bin/sh', '-c', 'exit 0'];
}

/**
 * The folder to bind read-only so the program can run in the sandbox: the installation its
 * binary belongs to (`<home>` for `<home>/bin/java`, else the binary's folder), found through
 * every link, when it lives outside /usr. Null when nothing is needed (under /usr, in the
 * service's own folder, not found) or when binding it would expose too much: the root, a
 * top-level folder, or anything holding or inside one of `forbidden` (the controller's
 * folder, data/, the config file's folder, the service roots).
 */
export function runtimeDir(argv0: string, options: { cwd: string; path: string | undefined; forbidden: readonly string[] }): string | null {
  const program = locate(argv0, options.cwd, options.path);
  if (!program) return null;
  let real: string;
  try {
    real = realpathSync(program);
  } catch {
    return null;
  }
  if (isInside(real, '/usr')) return null;
  let realCwd = options.cwd;
  try {
    realCwd = realpathSync(options.cwd);
  } catch {
    // the work dir is made before launch; keep the given path
  }
  if (isInside(real, realCwd)) return null;
  const parent = dirname(real);
  const dir = basename(parent) === 'bin' ? dirname(parent) : parent;
  if (dir.split(sep).filter(Boolean).length < 2) return null;
  for (const path of options.forbidden) if (isInside(path, dir) || isInside(dir, path)) return null;
  return dir;
}

function locate(argv0: string, cwd: string, path: string | undefined): string | null {
  if (argv0.includes('/')) return isAbsolute(argv0) ? argv0 : resolve(cwd, argv0);
  for (const dir of (path ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, argv0);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this one
    }
  }
  return null;
}

/** `path` is `dir` or below it (both absolute, normalized). */
export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
