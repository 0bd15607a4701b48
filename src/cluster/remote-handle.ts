import { LineFanout } from '../core/supervisor/process/line-fanout';
import type { ExitInfo, ProcessHandle } from '../core/supervisor/process';
import type { ControllerMessage } from './protocol';

/** The live channel to a node; absent while the node is away. */
export interface AgentLink {
  send(message: ControllerMessage): void;
}

/**
 * A service process on an agent, seen through the same interface as a local one, so the
 * manager's READY detection, graceful stop, kill and crash handling work unchanged. Lines and
 * the exit come from the agent's frames; stdin and signals go back as commands.
 *
 * While its node is away the handle is detached: it still counts as alive (the agent keeps
 * the process running), writes fail with a clear error, and a kill is remembered and sent when
 * the node returns. It ends when the agent reports the exit, or when the node is declared failed.
 */
export class RemoteProcessHandle implements ProcessHandle {
  readonly wrapperPid: number;
  readonly logFile = '';
  readonly survivesController = true;
  readonly exited: Promise<ExitInfo>;
  private readonly fanout = new LineFanout();
  private resolveExit!: (exit: ExitInfo) => void;
  private ended = false;
  private closed = false;
  private pendingKill = false;

  constructor(
    readonly name: string,
    readonly nodeId: string,
    public pid: number,
    public startedAt: Date,
    private link: AgentLink | null,
    private readonly onClose: (handle: RemoteProcessHandle) => void,
  ) {
    this.wrapperPid = pid;
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
  }

  get stateDir(): string {
    return `node:${this.nodeId}`;
  }

  get attached(): boolean {
    return this.link !== null;
  }

  /** The node (re)connected and reported this process. */
  attach(link: AgentLink, pid: number): void {
    this.link = link;
    this.pid = pid;
    if (this.pendingKill) this.signal('SIGKILL');
  }

  /** The node went away; the process is presumed running until the node fails. */
  detach(): void {
    this.link = null;
  }

  /** Lines from the agent, in order. */
  deliver(lines: readonly string[]): void {
    if (this.closed || this.ended) return;
    for (const line of lines) this.fanout.emit(line);
  }

  /** The process ended (agent report) or its node failed (code null). */
  end(code: number | null): void {
    if (this.ended) return;
    this.ended = true;
    this.link = null;
    this.resolveExit({ code });
  }

  onLine(listener: (line: string) => void): () => void {
    return this.fanout.add(listener);
  }

  write(line: string): void {
    if (/[\r\n]/.test(line)) throw new Error('a console line cannot contain a line break');
    if (this.closed || this.ended) throw new Error(`${this.name} has ended`);
    if (!this.link) throw new Error(`node ${this.nodeId} of ${this.name} is not connected`);
    this.link.send({ type: 'SEND_COMMAND', serviceName: this.name, command: line });
  }

  signal(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.ended) return;
    if (!this.link) {
      if (signal === 'SIGKILL') this.pendingKill = true;
      return;
    }
    this.pendingKill = false;
    this.link.send({ type: 'SIGNAL_SERVICE', serviceName: this.name, signal });
  }

  lastLines(count: number): string[] {
    return this.fanout.last(count);
  }

  isAlive(): boolean {
    return !this.ended;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }
}
