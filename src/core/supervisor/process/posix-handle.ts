import { encodeConsoleLine } from './console-line';
import { FifoWriter } from './fifo-writer';
import { LineFanout } from './line-fanout';
import { LineSplitter } from './line-splitter';
import { DEFAULT_LOG_BOUND, LogTrimmer, type LogBound } from './log-bound';
import { LogTail } from './log-tail';
import { pidAlive } from './pid-probe';
import { probeExit } from './probe-exit';
import { endGroup } from './process-group';
import type { ProcessRecord } from './process-record';
import type { LogTailSeed } from './read-log-tail';
import { sendSignal } from './send-signal';
import { EXIT_NAME, LOG_NAME, type StateFiles } from './state-files';
import type { ExitInfo, ProcessHandle } from './types';
import { watchDir } from './watch-dir';

/**
 * Safety net behind the directory watch: re-read the log and re-check for the end this often.
 * Latency comes from the watch; this only bounds the damage of a missed event.
 */
const POLL_MS = 500;

/**
 * Bun's fs.watch drops a change event for a file that comes too soon after the last event it
 * delivered for that file (same name and type, millisecond timestamps at most 1 apart: under
 * 2 ms after it; measured on Bun 1.4.5), and the dropped event never arrives (see
 * oven-sh/bun#7919). A server answering a command right after its previous line hits exactly
 * that. So every event re-arms one trailing re-read this long after it arrives (which is after
 * Bun stamped it): whatever was written inside the suppression window is read at most this late.
 */
const TRAILING_MS = 3;

export interface PosixHandleInit {
  record: ProcessRecord;
  files: StateFiles;
  /** Where in console.log delivery starts (0 for a fresh launch). */
  startOffset: number;
  /** What came before startOffset (re-attach): ring context and the unfinished line. */
  seed?: LogTailSeed;
  /** Launch only: the wrapper is our child, Bun reaps it and tells us at once. */
  wrapperExited?: Promise<unknown>;
  /** How much of console.log stays on disk while the server runs (default DEFAULT_LOG_BOUND). */
  logBound?: LogBound;
  /** Told once when console.log cannot be kept bounded here (no hole punching on this file system). */
  notice?: (message: string) => void;
}

/**
 * A ProcessHandle over a state dir written by the wrapper: console.log is tailed on change
 * events of the state dir (plus the slow poll), stdin goes through the FIFO, and the end is
 * seen when exit-code appears or the wrapper vanishes. Nothing here holds the server itself,
 * so dropping the handle (close(), or the controller dying) leaves it running. `exited` settles
 * once nothing of the service's process group is left (process-group.ts), and the log's disk
 * use is kept bounded meanwhile (log-bound.ts).
 */
export function createPosixHandle(init: PosixHandleInit): ProcessHandle {
  const { record, files } = init;
  const fanout = new LineFanout();
  const splitter = new LineSplitter();
  for (const line of init.seed?.lines ?? []) fanout.remember(line);
  if (init.seed) splitter.seed(init.seed.partial);
  const emit = (line: string) => fanout.emit(line);
  const tail = new LogTail(files.log, init.startOffset, (bytes) => splitter.push(bytes, emit));
  const trimmer = new LogTrimmer(files.log, init.logBound ?? DEFAULT_LOG_BOUND, init.notice);
  const drain = () => {
    tail.drain();
    trimmer.afterRead(tail.offset);
  };
  const stdin = new FifoWriter(files.fifo);
  const group = { wrapperPid: record.wrapperPid, marker: record.marker };

  let ended: ExitInfo | undefined;
  let closed = false;
  let resolveExited: (exit: ExitInfo) => void = () => {};
  const exited = new Promise<ExitInfo>((resolve) => {
    resolveExited = resolve;
  });

  const exitTarget = { wrapperPid: record.wrapperPid, pid: record.pid, exitFile: files.exitFile };
  // Nothing is delivered, and no end is seen, before the first macrotask: whoever awaited
  // launch()/reattach() adds listeners first (see ProcessHandle.onLine). A server that ended
  // before its handle was returned would otherwise deliver its lines, and settle, to nobody.
  let listening = false;
  const check = () => {
    if (ended || closed || !listening) return;
    const exit = probeExit(exitTarget);
    if (exit) finish(exit);
  };
  const finish = (exit: ExitInfo) => {
    // The server is gone, so console.log is complete: deliver all of it before `exited` settles.
    tail.drain();
    splitter.flush(emit);
    ended = exit;
    release();
    // Whatever the server forked ends with it: the wrapper kills its group once it has recorded
    // the exit; this covers a wrapper that was killed first. Bounded: a process stuck in the
    // kernel must not hold up the end forever.
    void endGroup(group).then(() => resolveExited(exit));
  };
  const tick = () => {
    if (closed || ended || !listening) return;
    drain();
    check();
  };
  let trailing: ReturnType<typeof setTimeout> | undefined;
  const onChange = (filename: string | null) => {
    if (closed || ended) return;
    clearTimeout(trailing);
    trailing = setTimeout(tick, TRAILING_MS);
    // Before the first read, an event still arms the trailing re-read: Bun may drop the next
    // event for that file (see TRAILING_MS), and nothing else would look before the slow poll.
    if (!listening) return;
    if (filename === LOG_NAME) drain();
    else if (filename === EXIT_NAME) check();
    else if (filename === null) tick();
  };

  const watcher = watchDir(files.dir, onChange);
  const poll = setInterval(tick, POLL_MS);
  const first = setTimeout(() => {
    listening = true;
    tick();
  }, 0);
  void init.wrapperExited?.then(check);

  let released = false;
  /** Idempotent: a listener may close() the handle while finish() is delivering the last lines. */
  function release(): void {
    if (released) return;
    released = true;
    watcher.close();
    clearInterval(poll);
    clearTimeout(first);
    clearTimeout(trailing);
    trimmer.stop();
    tail.close();
    stdin.close();
  }

  return {
    name: record.name,
    pid: record.pid,
    wrapperPid: record.wrapperPid,
    startedAt: new Date(record.startedAt),
    stateDir: files.dir,
    logFile: files.log,
    survivesController: true,
    exited,
    onLine: (listener) => fanout.add(listener),
    write(line) {
      const bytes = encodeConsoleLine(line);
      if (closed) throw new Error(`${record.name}: the handle is closed`);
      if (ended) throw new Error(`${record.name}: the process has ended`);
      stdin.write(bytes);
    },
    signal(signal) {
      if (!ended) sendSignal(record.pid, group, signal);
    },
    lastLines: (count) => fanout.last(count),
    isAlive: () => !ended && pidAlive(record.pid),
    close() {
      if (closed) return;
      closed = true;
      if (!ended) release();
    },
  };
}
