import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LOCK_FILE, lockHeld, readLockNote, type LockNote } from '../core/lock/dir-lock';

export const RESTART_USAGE = `svc restart: restart the controller (or agent) running on a directory, in place

Usage:
  svc restart [--dir <path>] [--no-wait]

Options:
  --dir <path>   its working directory (default: the current directory)
  --no-wait      send the request and return; do not wait for it to be back

The controller stops serving without stopping any game server, starts again from its binary
in the same process (same pid: systemd and its terminal keep it) and re-attaches every server,
as after an update. The same as SIGUSR2 to its pid, and as \`systemctl reload svc\` under the unit.
To stop the game servers too, stop the controller (systemctl stop, SIGTERM, \`shutdown\`).
`;

const POLL_MS = 100;
const RESTART_TIMEOUT_MS = 120_000;

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** `svc restart …`: 0 restarted (or asked, with --no-wait), 1 it did not happen, 2 usage. */
export async function runRestart(argv: string[], io: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { dir: { type: 'string' }, 'no-wait': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    io.err(`svc restart: ${(error as Error).message}\n\n${RESTART_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(RESTART_USAGE);
    return 0;
  }
  const dir = resolve(values.dir ?? '.');
  const file = join(dir, LOCK_FILE);
  if (!existsSync(file)) {
    io.err(`svc restart: no controller has run in ${dir} (there is no ${LOCK_FILE}); start one with: svc --dir ${dir}\n`);
    return 1;
  }
  const before = readLockNote(file);
  if (lockHeld(file) === false || !before) {
    io.err(`svc restart: no controller runs in ${dir}${before ? ` (the last one, pid ${before.pid}, ${before.state === 'stopped' ? 'stopped cleanly' : 'ended'})` : ''}; start one with: svc --dir ${dir}\n`);
    return 1;
  }
  const role = before.role;
  try {
    process.kill(before.pid, 'SIGUSR2');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPERM') {
      io.err(`svc restart: the ${role} (pid ${before.pid}) runs as another user; run this as that user (sudo -u <user> svc restart --dir ${dir}) or as root, or: sudo systemctl reload svc\n`);
      return 1;
    }
    io.err(`svc restart: the ${role} (pid ${before.pid}) is gone; start one with: svc --dir ${dir}\n`);
    return 1;
  }
  io.out(`asked the ${role} (pid ${before.pid}) in ${dir} to restart in place; its game servers keep running\n`);
  if (values['no-wait']) return 0;
  const began = performance.now();
  const back = await waitForRestart(file, before);
  if (back === 'stopped') {
    io.err(`svc restart: the ${role} stopped instead (a stop was already under way, or its restart failed); see its log (journalctl -u svc, or ${join(dir, 'logs', 'svc.log')})\n`);
    return 1;
  }
  if (!back) {
    io.err(`svc restart: the ${role} did not come back within ${RESTART_TIMEOUT_MS / 1000} s; see its log (journalctl -u svc, or ${join(dir, 'logs', 'svc.log')})\n`);
    return 1;
  }
  const seconds = ((performance.now() - began) / 1000).toFixed(1);
  io.out(`restarted in ${seconds} s: svc ${back.version}, pid ${back.pid}${back.api ? `, API ${back.api}` : ''}${back.state === 'ready' ? '' : ` (${back.state})`}\n`);
  return 0;
}

/** The new note once the restarted process took the lock and is ready; 'stopped' when it stopped cleanly instead; null after the timeout. */
async function waitForRestart(file: string, before: LockNote): Promise<LockNote | 'stopped' | null> {
  const deadline = performance.now() + RESTART_TIMEOUT_MS;
  while (performance.now() < deadline) {
    await Bun.sleep(POLL_MS);
    const now = readLockNote(file);
    // An agent is up once it holds the lock again: it may wait for its controller a long time before it says ready.
    if (now && now.since !== before.since && (now.state === 'ready' || now.role === 'agent') && lockHeld(file) !== false) return now;
    // Free and marked stopped: it stopped cleanly instead (an exec keeps the lock held throughout;
    // a process that died may still be started again by its service manager, so that is waited for).
    if (now?.state === 'stopped' && lockHeld(file) === false) return 'stopped';
  }
  return null;
}
