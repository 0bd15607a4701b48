import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { MIN_UID_BASE } from './range';
import { monotonicNow } from '../time/monotonic';

/** setpriv's arguments for one service uid (and the gid of the same number), up to the program. */
export function setprivArgv(setpriv: string, uid: number): string[] {
  // --no-new-privs: no setuid binary can give anything back; --inh-caps/--bounding-set: no
  // capability survives into the server or anything it runs.
  return [setpriv, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--'];
}

/** Pids of live (non-zombie) processes whose real uid is `uid`, from /proc. */
export function processesOf(uid: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'latin1');
    } catch {
      continue; // ended meanwhile
    }
    const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    if (real !== undefined && Number(real) === uid && state !== 'Z' && state !== 'X') pids.push(pid);
  }
  return pids;
}

export function uidHasProcesses(uid: number): boolean {
  return processesOf(uid).length > 0;
}

/**
 * Ends every process still running as `uid` (children a crashed server left, which must not
 * write into the folder while it is provisioned again), and resolves once none is left.
 * kill(-1, SIGKILL) from a process of that uid reaches all of them at once (the kernel holds
 * the task list for it, so nothing forks out of the way), and it never reaches anyone else's.
 */
export async function killProcessesOf(setpriv: string, uid: number, timeoutMs = 5000): Promise<void> {
  // kill(-1) from anything but a service uid would end far more than its processes.
  if (!Number.isInteger(uid) || uid < MIN_UID_BASE) throw new Error(`refusing to kill the processes of uid ${uid}: not a service uid`);
  if (!uidHasProcesses(uid)) return;
  const deadline = monotonicNow() + timeoutMs;
  for (;;) {
    // The shell checks who it is before kill -1: never as anyone but the service uid.
    const kill = Bun.spawn([...setprivArgv(setpriv, uid), '/bin/sh', '-c', '[ "$(id -u)" = "$0" ] && kill -9 -1', String(uid)], { stdio: ['ignore', 'ignore', 'ignore'], env: { PATH: '/usr/bin:/bin' } });
    await kill.exited;
    for (let wait = 1; wait < 64 && uidHasProcesses(uid); wait *= 2) await Bun.sleep(wait);
    const left = processesOf(uid);
    if (left.length === 0) return;
    if (monotonicNow() > deadline) throw new Error(`processes of uid ${uid} still run after SIGKILL: ${left.join(', ')}`);
  }
}

/**
 * Gives a service folder to its uid: every folder, link and singly-linked file under it,
 * never through a link (find -P, chown -h), never another file system (-xdev), never a file
 * with more than one link (a template may share a read-only jar with it by hardlink: chowning
 * it would hand the template's copy to this service). The folder itself becomes 0700.
 * Only called while no process of the uid runs (see killProcessesOf), so nothing moves under it.
 */
export async function giveFolderTo(dir: string, uid: number): Promise<void> {
  const owner = `${uid}:${uid}`;
  const find = Bun.spawn(
    ['find', '-P', dir, '-xdev', '(', '-type', 'd', '-o', '-links', '1', ')', '!', '(', '-user', String(uid), '-group', String(uid), ')', '-exec', 'chown', '-h', owner, '{}', '+'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } },
  );
  const [code, stderr] = await Promise.all([find.exited, new Response(find.stderr).text()]);
  if (code !== 0) throw new Error(`could not give ${dir} to uid ${uid}: ${stderr.trim().split('\n')[0] || `find exited with ${code}`}`);
  chmodSync(dir, 0o700);
}

/** The supervisor files an earlier version kept in `<workDir>/.svc` (its state dir now lives under data/run). */
const LEGACY_STATE_FILES = ['stdin.fifo', 'console.log', 'exit-code', 'exit-code.tmp', 'server.pid', 'process.json'];

/**
 * `<workDir>/.svc/tmp`, emptied, for TMPDIR: the service's own temp folder (backups, deploy
 * and the state dir skip `.svc`). The server owns its folder, so anything here may be a link it
 * planted: nothing is followed, a non-folder in the way is removed. The files an earlier
 * version's supervisor kept in `.svc` go too.
 */
export function prepareTempDir(workDir: string): string {
  const svc = join(workDir, '.svc');
  ensureRealDir(svc);
  for (const name of LEGACY_STATE_FILES) {
    try {
      if (!lstatSync(join(svc, name)).isDirectory()) unlinkSync(join(svc, name));
    } catch {
      // absent
    }
  }
  const tmp = join(svc, 'tmp');
  rmSync(tmp, { recursive: true, force: true }); // removes links, never follows them
  mkdirSync(tmp, { mode: 0o700 });
  return tmp;
}

function ensureRealDir(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isDirectory()) return;
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path, { mode: 0o700 });
}
