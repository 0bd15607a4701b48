import { join } from 'node:path';

/**
 * The files of one service's state dir. The wrapper (wrapper-script.ts) writes server.pid,
 * console.log and exit-code; the controller writes process.json. Names are fixed: the wrapper
 * script and older controllers rely on them.
 */
export interface StateFiles {
  dir: string;
  /** stdin of the server; the wrapper holds it open read-write for its whole life. */
  fifo: string;
  /** Raw stdout+stderr of the server, appended by the server itself. */
  log: string;
  /** The server's exit status as sh reports it, written atomically (tmp + mv) once it ended. */
  exitFile: string;
  /** The server's pid, written by the wrapper before exec; complete once it ends in "\n". */
  pidFile: string;
  /** ProcessRecord as JSON, written atomically by the controller once the pid is known. */
  record: string;
  /** A sandboxed launch only: bwrap's --info-fd output (sandbox-pid.ts). */
  sandboxInfo: string;
}

export const LOG_NAME = 'console.log';
export const EXIT_NAME = 'exit-code';
/** The wrapper's `<info>` file name for a sandboxed launch (wrapper-script.ts). */
export const SANDBOX_INFO_NAME = 'sandbox.json';

export function stateFiles(dir: string): StateFiles {
  return {
    dir,
    fifo: join(dir, 'stdin.fifo'),
    log: join(dir, LOG_NAME),
    exitFile: join(dir, EXIT_NAME),
    pidFile: join(dir, 'server.pid'),
    record: join(dir, 'process.json'),
    sandboxInfo: join(dir, SANDBOX_INFO_NAME),
  };
}
