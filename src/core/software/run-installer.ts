import type { Logger } from '../../log';
import { LineRing } from '../supervisor/process/line-ring';
import { LineSplitter } from '../supervisor/process/line-splitter';
import { seconds } from './upstream/http';
import { monotonicNow } from '../time/monotonic';

/** How many of the installer's last lines a failure quotes. */
export const QUOTED_LINES = 8;
/** A quoted line longer than this is cut (a stack trace line, a progress bar without newlines). */
const MAX_QUOTED_CHARS = 300;
const MAX_LINE_BYTES = 64 * 1024;

export interface InstallerRunOptions {
  /** The Java binary (`selectJava`). */
  java: string;
  /** How that Java was chosen (`describeJava`), for messages. */
  javaDescription: string;
  /** The installer's file name inside `cwd`. */
  installer: string;
  /** Where it runs and writes: the staging folder, never a template. */
  cwd: string;
  timeoutMs: number;
  log: Logger;
  /** Installer lines reach the info log at most this often; every line goes to debug. */
  progressEveryMs: number;
}

/** The installer could not run, failed or took too long. The message names the Java and quotes its last lines. */
export class InstallerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallerError';
  }
}

/**
 * Runs `<java> -jar <installer> --installServer` in `cwd` and resolves when it exits 0. Its
 * output (stdout and stderr) is logged as it comes. Otherwise InstallerError: Java not found
 * or not runnable, a non-zero exit, or no exit within `timeoutMs`, when the installer's whole
 * process group is killed and waited for, so nothing writes into `cwd` once this returns.
 */
export async function runInstaller(options: InstallerRunOptions): Promise<void> {
  const { log, installer } = options;
  let proc: ReturnType<typeof spawnInstaller>;
  try {
    proc = spawnInstaller(options);
  } catch (error) {
    throw new InstallerError(`Java could not be started: ${options.javaDescription} ${spawnProblem(error)}`);
  }

  const ring = new LineRing(QUOTED_LINES);
  let lastInfo = -Infinity;
  const onLine = (line: string) => {
    if (line.trim() === '') return;
    ring.push(line.length > MAX_QUOTED_CHARS ? `${line.slice(0, MAX_QUOTED_CHARS)}…` : line);
    log.debug({ installer }, line);
    if (monotonicNow() - lastInfo >= options.progressEveryMs) {
      lastInfo = monotonicNow();
      log.info({ installer }, `installer: ${line}`);
    }
  };

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(proc);
  }, options.timeoutMs);
  try {
    await Promise.all([proc.exited, pump(proc.stdout, onLine), pump(proc.stderr, onLine)]);
  } finally {
    clearTimeout(timer);
  }

  const ran = `the installer (${installer}, run with ${options.javaDescription})`;
  const lines = ring.last(QUOTED_LINES);
  const quoted = lines.length > 0 ? `; its last lines:\n${lines.join('\n')}` : '; it printed nothing';
  if (timedOut) throw new InstallerError(`${ran} did not finish within ${seconds(options.timeoutMs)} and was killed${quoted}`);
  if (proc.exitCode === 0) return;
  const how = proc.exitCode === null ? `was killed by ${proc.signalCode ?? 'a signal'}` : `exited with code ${proc.exitCode}`;
  throw new InstallerError(`${ran} ${how}${quoted}`);
}

function spawnInstaller(options: InstallerRunOptions) {
  // Its own process group, so a timeout can kill whatever the installer started too.
  return Bun.spawn([options.java, '-jar', options.installer, '--installServer'], {
    cwd: options.cwd,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
  });
}

async function pump(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const splitter = new LineSplitter(MAX_LINE_BYTES);
  for await (const chunk of stream) splitter.push(chunk, onLine);
  splitter.flush(onLine);
}

function killGroup(proc: { pid: number; kill(signal?: NodeJS.Signals): void }): void {
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    proc.kill('SIGKILL'); // no process groups (Windows), or the group is already gone
  }
}

/** Why spawning failed, in an operator's words. */
function spawnProblem(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ENOENT') return 'was not found: install that Java, or point the group\'s javaPath or the [java] key at one';
  if (code === 'EACCES') return 'is not executable (check the path and its permissions)';
  if (code === 'ENOEXEC') return 'is not an executable program';
  return `failed: ${(error as Error).message ?? String(error)}`;
}
