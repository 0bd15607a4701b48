import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { launchEnv } from './launch-env';
import { isFifo, type FifoPool } from './fifo-pool';
import { createPosixHandle } from './posix-handle';
import { prepareStateDir } from './prepare-state-dir';
import { writeProcessRecord } from './process-record';
import { readLogTail } from './read-log-tail';
import { waitForSandboxedPid } from './sandbox-pid';
import { SANDBOX_INFO_NAME, stateFiles } from './state-files';
import type { LaunchSpec, ProcessHandle } from './types';
import { waitForPidFile } from './wait-for-pid-file';
import { wrapperArgv } from './wrapper-script';

const PID_TIMEOUT_MS = 10_000;

/**
 * Starts the server under the sh wrapper (wrapper-script.ts), detached in its own session with
 * no stdio tied to the controller, so it keeps running if the controller dies. Resolves once
 * the server's pid is known and process.json records it for a later reattach().
 */
export async function launchPosix(spec: LaunchSpec, fifos?: FifoPool): Promise<ProcessHandle> {
  const workDir = resolve(spec.workDir);
  const files = stateFiles(resolve(workDir, spec.stateDir ?? '.svc'));
  prepareStateDir(files);
  if (fifos && !isFifo(files.fifo)) fifos.take(files.fifo); // else the wrapper makes one

  const marker = `svc-${randomUUID()}`;
  const startedAt = new Date();
  const wrapper = Bun.spawn(wrapperArgv(marker, files.dir, spec.argv, spec.sandboxed ? SANDBOX_INFO_NAME : undefined), {
    cwd: workDir,
    env: launchEnv(spec.env),
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  wrapper.unref(); // the server's life is not ours to hold up: the controller may exit any time

  let pid: number;
  try {
    pid = await waitForPidFile(files.pidFile, wrapper.exited, PID_TIMEOUT_MS);
    // Sandboxed: server.pid is bwrap's; signals go to the server inside (sandbox-pid.ts).
    if (spec.sandboxed) pid = await waitForSandboxedPid(files.sandboxInfo, pid, wrapper.exited, PID_TIMEOUT_MS);
  } catch (error) {
    try {
      process.kill(-wrapper.pid, 'SIGKILL'); // a wrapper stuck before the server started: the whole group
    } catch {
      // Already gone.
    }
    const said = lastLogLine(files.log);
    throw new Error(`${spec.name}: ${error instanceof Error ? error.message : String(error)}${said ? `: ${said}` : ''}`);
  }

  const record = {
    name: spec.name,
    marker,
    wrapperPid: wrapper.pid,
    pid,
    startedAt: startedAt.toISOString(),
    logFile: files.log,
    fifo: files.fifo,
    exitFile: files.exitFile,
  };
  writeProcessRecord(files.record, record);
  return createPosixHandle({ record, files, startOffset: 0, wrapperExited: wrapper.exited, logBound: spec.logBound, notice: spec.notice });
}

/** What the program (or bwrap, when the sandbox could not be set up) last said, for the error of a failed launch. */
function lastLogLine(log: string): string | undefined {
  try {
    const size = statSync(log).size;
    if (size === 0) return undefined;
    const { lines, partial } = readLogTail(log, size, 1, 4096);
    const last = partial.length > 0 ? Buffer.from(partial).toString('utf8') : lines[0];
    return last?.trim() || undefined;
  } catch {
    return undefined;
  }
}
