import type { LogBound } from './log-bound';

/**
 * The public shapes of the process layer: how a game server is started, watched and ended.
 * Implementations: posix-handle.ts (survives the controller), pipe-handle.ts (Windows fallback).
 */
export interface LaunchSpec {
  /** Service name, recorded in process.json and shown in errors. */
  name: string;
  /** The server's working directory (its cwd). */
  workDir: string;
  /** The command, one argument an element; passed to the program verbatim, never through a shell. */
  argv: string[];
  /**
   * The whole environment of the server: nothing of the controller's own is added (it may hold
   * SVC_CLUSTER_TOKEN, database passwords and the like), and the controller's own settings
   * overrides (launch-env.ts) are dropped even when given. Absent: PATH only.
   */
  env?: Record<string, string>;
  /**
   * Where stdin.fifo, console.log, exit-code and process.json live; default `<workDir>/.svc`.
   * Services put it out of the server's reach (core/isolation: `<data>/run/<name>`): a server
   * that could write process.json would choose the pid the controller signals.
   */
  stateDir?: string;
  /**
   * argv starts bubblewrap with `--info-fd 4` and an init whose only child is the server
   * (core/isolation): the server's pid, where signals go, is then found through the sandbox
   * (sandbox-pid.ts) instead of being the pid the wrapper exec'd.
   */
  sandboxed?: boolean;
  /** How much of console.log stays on disk while the server runs (default: log-bound.ts DEFAULT_LOG_BOUND). */
  logBound?: LogBound;
  /** Told once when console.log cannot be kept bounded (no hole punching on the state dir's file system). */
  notice?: (message: string) => void;
}

/** 137 for SIGKILL, 143 for SIGTERM (128+n, as sh reports a signal death); null if unknown. */
export interface ExitInfo {
  code: number | null;
}

export interface ProcessHandle {
  readonly name: string;
  /** The game server's own pid (signals go here). */
  readonly pid: number;
  /** The sh wrapper that waits for the server and records its exit code (the process group leader). */
  readonly wrapperPid: number;
  readonly startedAt: Date;
  readonly stateDir: string;
  readonly logFile: string;
  /** False where the process dies with the controller and cannot be re-attached (Windows). */
  readonly survivesController: boolean;
  /**
   * Every stdout/stderr line, in order, without the newline (nor a trailing \r). Delivery starts
   * on the next macrotask after launch/reattach resolves, so listeners registered right after
   * the `await` miss nothing; lines from before a listener was added are only in lastLines().
   * Returns the unsubscribe function.
   */
  onLine(listener: (line: string) => void): () => void;
  /** One line to the server's stdin (a newline is added). Throws on an embedded \n or \r, after close(), or once the process has ended. */
  write(line: string): void;
  /**
   * Never blocks, never queued: the signal is sent before this returns. A no-op once ended.
   * SIGTERM goes to the server; SIGKILL to the server and every other process of its group but
   * the wrapper (send-signal.ts).
   */
  signal(signal: 'SIGTERM' | 'SIGKILL'): void;
  /**
   * Settles once, when the server process has ended (after every one of its lines was delivered)
   * and nothing it forked is left in its process group (bounded wait). Never settles after close().
   */
  readonly exited: Promise<ExitInfo>;
  /** Up to `count` most recent lines, oldest first (the buffer keeps RING_CAPACITY lines). */
  lastLines(count: number): string[];
  isAlive(): boolean;
  /** Stop tailing and watching and release every fd and timer; the process keeps running. */
  close(): void;
}

export interface ReattachOptions {
  /** Deliver console.log from this byte offset instead of from its current end. */
  fromOffset?: number;
  /** As LaunchSpec.logBound. */
  logBound?: LogBound;
  /** As LaunchSpec.notice. */
  notice?: (message: string) => void;
}

export type ReattachResult =
  | { kind: 'attached'; handle: ProcessHandle }
  | { kind: 'ended'; exit: ExitInfo }
  | { kind: 'unknown'; reason: string };
