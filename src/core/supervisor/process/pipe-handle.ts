import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { encodeConsoleLine } from './console-line';
import { launchEnv } from './launch-env';
import { LineFanout } from './line-fanout';
import { LineSplitter } from './line-splitter';
import { stateFiles } from './state-files';
import type { ExitInfo, LaunchSpec, ProcessHandle } from './types';

/**
 * Windows fallback (no FIFOs, no sh): a plain child with pipes. The server dies with the
 * controller and cannot be re-attached, hence survivesController: false. Output still goes to
 * console.log too. stdout and stderr are separate pipes, so their relative order is only as
 * good as arrival order. Not exercised by the test suite (it runs on Linux).
 */
export async function launchWithPipes(spec: LaunchSpec): Promise<ProcessHandle> {
  const workDir = resolve(spec.workDir);
  const files = stateFiles(resolve(workDir, spec.stateDir ?? '.svc'));
  mkdirSync(files.dir, { recursive: true });
  writeFileSync(files.log, '');
  const startedAt = new Date();
  const proc = Bun.spawn(spec.argv, { cwd: workDir, env: launchEnv(spec.env), stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
  const fanout = new LineFanout();
  let closed = false;
  let ended = false;
  const emit = (line: string) => {
    if (!closed) fanout.emit(line);
  };

  const pump = async (stream: ReadableStream<Uint8Array>) => {
    await new Promise((resolve) => setTimeout(resolve, 0)); // first delivery after the caller's await, as on POSIX
    const splitter = new LineSplitter();
    for await (const chunk of stream) {
      appendFileSync(files.log, chunk);
      splitter.push(chunk, emit);
    }
    splitter.flush(emit);
  };
  const exited: Promise<ExitInfo> = Promise.all([proc.exited, pump(proc.stdout), pump(proc.stderr)]).then(() => {
    ended = true;
    const signal = proc.signalCode;
    const signalNumber = typeof signal === 'number' ? signal : signal === null ? undefined : constants.signals[signal];
    return { code: proc.exitCode ?? (signalNumber === undefined ? null : 128 + signalNumber) };
  });

  return {
    name: spec.name,
    pid: proc.pid,
    wrapperPid: proc.pid,
    startedAt,
    stateDir: files.dir,
    logFile: files.log,
    survivesController: false,
    exited,
    onLine: (listener) => fanout.add(listener),
    write(line) {
      const bytes = encodeConsoleLine(line);
      if (closed || ended) throw new Error(`${spec.name}: the process has ended or the handle is closed`);
      proc.stdin.write(bytes);
      void proc.stdin.flush();
    },
    signal(signal) {
      if (!ended) proc.kill(signal);
    },
    lastLines: (count) => fanout.last(count),
    isAlive: () => !ended && proc.exitCode === null && proc.signalCode === null,
    close() {
      closed = true; // the pipes stay read (a full pipe would stall the server), lines just go nowhere
    },
  };
}
