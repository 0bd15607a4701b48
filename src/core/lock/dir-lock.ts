import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { dlopen, FFIType } from 'bun:ffi';

/**
 * The lock on a working directory: one svc process (controller or agent) per directory, held
 * from before anything in it is touched until the process ends.
 *
 * `<dir>/svc.lock` is locked with flock(2): the kernel holds the lock for exactly as long as the
 * process that took it lives, so a lock left by a crash or a kill -9 is free again at once, and
 * a pid that was reused by another program holds nothing. The file's text says who holds it
 * (pid, role, since, version, state), for the refusal message and for `svc restart`. The file is
 * never removed (removing a locked file lets two processes lock two different files); a clean
 * stop leaves `"state":"stopped"` in it.
 *
 * A restart in place (self-update, SIGUSR2) execs the new binary in this same process: the lock's
 * descriptor is kept open across the exec and named in SVC_DIR_LOCK_FD, and the new process
 * adopts it, so no other process can slip in between.
 */

export type LockRole = 'controller' | 'agent';

/** What the lock file says about its holder. */
export interface LockNote {
  pid: number;
  role: LockRole;
  /** When this process (or its latest exec in place) took the lock, ISO time. */
  since: string;
  version: string;
  /** `starting`, then `ready` once it serves, `stopped` after a clean stop. */
  state: 'starting' | 'ready' | 'stopped';
  /** The API address once it listens (controller). */
  api?: string;
}

export const LOCK_FILE = 'svc.lock';
/** The inherited descriptor of a restart in place. */
export const LOCK_FD_ENV = 'SVC_DIR_LOCK_FD';

/** Another live process holds the directory. */
export class DirLockedError extends Error {
  constructor(
    readonly file: string,
    readonly holder: LockNote | null,
  ) {
    super(refusal(file, holder));
    this.name = 'DirLockedError';
  }
}

function refusal(file: string, holder: LockNote | null): string {
  const dir = file.slice(0, -LOCK_FILE.length - 1) || '/';
  if (!holder) return `another svc process holds ${file}: one controller or agent per directory; stop it first, or use another --dir`;
  const role = holder.role === 'agent' ? 'agent' : 'controller';
  return `another ${role}, pid ${holder.pid}, runs here (${dir}) since ${holder.since}${holder.api ? `, API ${holder.api}` : ''}: one controller or agent per directory. Stop it first (systemctl stop, or shutdown on its console), restart it in place with \`svc restart --dir ${dir}\`, or use another --dir`;
}

interface Libc {
  flock(fd: number, operation: number): number;
  fcntl(fd: number, command: number, arg: number): number;
}

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

let libc: Libc | null | undefined;
function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  try {
    const lib = dlopen(process.platform === 'darwin' ? 'libSystem.B.dylib' : 'libc.so.6', {
      flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
    libc = { flock: (fd, op) => lib.symbols.flock(fd, op), fcntl: (fd, cmd, arg) => lib.symbols.fcntl(fd, cmd, arg) };
  } catch {
    // No libc to call (Windows): the pid in the file is all there is, see acquire().
    libc = null;
  }
  return libc;
}

/** The holder the file names, or null when it is empty or not ours to read. */
export function readLockNote(file: string): LockNote | null {
  try {
    const note = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as Partial<LockNote>;
    if (typeof note.pid !== 'number' || !Number.isSafeInteger(note.pid) || note.pid <= 0) return null;
    return {
      pid: note.pid,
      role: note.role === 'agent' ? 'agent' : 'controller',
      since: String(note.since ?? ''),
      version: String(note.version ?? ''),
      state: note.state === 'ready' || note.state === 'stopped' ? note.state : 'starting',
      ...(typeof note.api === 'string' ? { api: note.api } : {}),
    };
  } catch {
    return null;
  }
}

/** What `acquire` found before it took the lock: the previous holder's note, when it had not stopped cleanly. */
export interface StaleHolder {
  pid: number;
  /** Why its lock was free: it ended, or its pid is now another program's. */
  reason: 'not running' | 'not svc';
}

export class DirLock {
  private note: LockNote;
  private released = false;

  private constructor(
    readonly file: string,
    private fd: number,
    role: LockRole,
    version: string,
    /** The holder before us, when it did not stop cleanly (a crash, kill -9). */
    readonly stale: StaleHolder | null,
    /** True when this process took the lock over from its own exec (a restart in place). */
    readonly inherited: boolean,
  ) {
    this.note = { pid: process.pid, role, since: new Date().toISOString(), version, state: 'starting' };
    this.write();
  }

  /**
   * Takes the lock on `dir` (created when missing) or throws DirLockedError naming the holder.
   * Nothing else in the directory is touched.
   */
  static acquire(dir: string, role: LockRole, version: string, env: Record<string, string | undefined> = process.env): DirLock {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, LOCK_FILE);
    const lib = loadLibc();
    const adopted = adoptInherited(file, env, lib);
    if (adopted !== null) return new DirLock(file, adopted, role, version, null, true);
    const previous = readLockNote(file);
    // Read-write without O_APPEND or O_TRUNC: the note is rewritten in place (see write()).
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o644);
    } catch (error) {
      // Another user's lock file: say who runs there rather than "permission denied", when someone does.
      if ((error as NodeJS.ErrnoException).code === 'EACCES' && lockHeld(file) === true) throw new DirLockedError(file, previous);
      throw error;
    }
    if (lib) {
      if (lib.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
        closeSync(fd);
        throw new DirLockedError(file, previous);
      }
    } else if (previous && previous.state !== 'stopped' && previous.pid !== process.pid && pidAlive(previous.pid)) {
      closeSync(fd);
      throw new DirLockedError(file, previous);
    }
    const stale = previous && previous.state !== 'stopped' && previous.pid !== process.pid ? { pid: previous.pid, reason: pidAlive(previous.pid) ? ('not svc' as const) : ('not running' as const) } : null;
    return new DirLock(file, fd, role, version, stale, false);
  }

  get holder(): LockNote {
    return { ...this.note };
  }

  /** Records what the holder is now (ready, its API address). */
  update(change: Partial<Pick<LockNote, 'state' | 'api'>>): void {
    if (this.released) return;
    this.note = { ...this.note, ...change };
    this.write();
  }

  /**
   * For an exec in place: the descriptor stays open in the new program (its close-on-exec flag
   * cleared) and `env` names it. Returns the descriptor, which the exec must not close.
   */
  handOver(env: Record<string, string | undefined>): number {
    loadLibc()?.fcntl(this.fd, F_SETFD, 0);
    env[LOCK_FD_ENV] = String(this.fd);
    return this.fd;
  }

  /** After a clean stop: says so in the file and frees the lock. */
  release(): void {
    this.update({ state: 'stopped' });
    this.close();
  }

  /** Frees the lock and leaves the note as it is (a hand-over that could not exec: the next process takes it). */
  close(): void {
    if (this.released) return;
    this.released = true;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }

  /**
   * The note as one line from offset 0 in one write, then the file cut to it: a reader sees the
   * old line or the new one first (readLockNote reads the first line), never an empty file.
   */
  private write(): void {
    try {
      const line = Buffer.from(`${JSON.stringify(this.note)}\n`);
      writeSync(this.fd, line, 0, line.length, 0);
      ftruncateSync(this.fd, line.length);
    } catch {
      // A full disk leaves the old text; the lock itself holds all the same.
    }
  }
}

/**
 * The descriptor an exec in place left open for us, when it is really the lock file's (same
 * inode) and still locked by us. The variable is removed either way: game servers never see it.
 */
function adoptInherited(file: string, env: Record<string, string | undefined>, lib: Libc | null): number | null {
  const named = env[LOCK_FD_ENV];
  delete env[LOCK_FD_ENV];
  if (named === undefined || !/^\d+$/.test(named)) return null;
  const fd = Number(named);
  try {
    const held = fstatSync(fd);
    const onDisk = statSync(file);
    if (held.ino !== onDisk.ino || held.dev !== onDisk.dev) return null;
  } catch {
    return null;
  }
  // Re-locking a description we already hold succeeds; anything else means it is not ours.
  if (lib && lib.flock(fd, LOCK_EX | LOCK_NB) !== 0) return null;
  lib?.fcntl(fd, F_SETFD, (lib.fcntl(fd, F_GETFD, 0) | FD_CLOEXEC) >>> 0);
  return fd;
}

/**
 * Whether a live process holds the lock at `file` right now: true, false, or null when this
 * cannot be told (no file, no libc). Takes nothing: a free lock is let go at once.
 */
export function lockHeld(file: string): boolean | null {
  const lib = loadLibc();
  if (!lib) return null;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    return lib.flock(fd, LOCK_SH | LOCK_NB) !== 0;
  } finally {
    closeSync(fd);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
