/**
 * The controller's console over GET /api/console/stream (src/ws/console-protocol.ts): `hello`
 * on every opening (a session starts with it), `execute` with an id per command, `complete`
 * for Tab; each `output` line of a command is written in its kind's colour, `event` frames dim
 * (when the operator wants them). The socket reconnects by itself (ticket-socket.ts); a
 * completion still waiting when it drops is answered with no candidates.
 */
import { paint, plainText } from '../../terminal/ansi';
import type { TerminalOutput } from '../../terminal/output';
import { openTicketSocket, type SocketStatus, type TicketSocket } from '../../terminal/ticket-socket';

/** The frames this page reads (the protocol's outbound frames, the fields used here). */
type Frame =
  | { type: 'output'; id: string; kind: string; text: string }
  | { type: 'output_end'; id: string; success: boolean }
  | { type: 'completions'; id: string; candidates: string[] }
  | { type: 'event'; event: { type: string; data: Record<string, string> } };

/** A completion the controller has not answered within this is given up (no candidates). */
const COMPLETE_TIMEOUT_MS = 5_000;

const BY_KIND: Record<string, (text: string) => string> = {
  header: paint.bold,
  info: paint.cyan,
  success: paint.green,
  error: paint.red,
  item: (text) => `  ${text}`,
};

export class ControllerConsole {
  private nextId = 1;
  private readonly completions = new Map<string, (candidates: string[]) => void>();
  /** Commands that have printed something and not ended yet. */
  private readonly printed = new Set<string>();
  private readonly socket: TicketSocket;

  constructor(
    private readonly output: TerminalOutput,
    onStatus: (status: SocketStatus) => void,
    /** Whether event frames are shown (read at each one). */
    private readonly showEvents: () => boolean,
  ) {
    this.socket = openTicketSocket({
      path: '/api/console/stream',
      onOpen: (send) => send(JSON.stringify({ type: 'hello', text: JSON.stringify({ username: 'dashboard', hostname: location.hostname, os: 'browser' }) })),
      onMessage: (data) => this.receive(data),
      onStatus: (status) => {
        if (status.kind !== 'open') this.giveUpCompletions();
        onStatus(status);
      },
    });
  }

  /** Runs a command line; false when the socket is not open (nothing was sent). */
  execute(input: string): boolean {
    const id = String(this.nextId++);
    if (!this.socket.send(JSON.stringify({ type: 'execute', id, input }))) return false;
    this.output.line(paint.bold(`> ${plainText(input)}`));
    return true;
  }

  /** The candidates for the word at the end of `input`. */
  complete(input: string): Promise<string[]> {
    const id = String(this.nextId++);
    if (!this.socket.send(JSON.stringify({ type: 'complete', id, input }))) return Promise.resolve([]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => answer([]), COMPLETE_TIMEOUT_MS);
      const answer = (candidates: string[]) => {
        clearTimeout(timer);
        this.completions.delete(id);
        resolve(candidates);
      };
      this.completions.set(id, answer);
    });
  }

  close(): void {
    this.giveUpCompletions();
    this.socket.close();
  }

  private receive(data: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(data) as Frame;
    } catch {
      return;
    }
    switch (frame.type) {
      case 'output': {
        this.printed.add(frame.id);
        const text = plainText(String(frame.text));
        return this.output.line((BY_KIND[frame.kind] ?? String)(text));
      }
      case 'output_end':
        // A failed command has printed its error already; only a silent failure needs saying.
        if (!frame.success && !this.printed.has(frame.id)) this.output.line(paint.red('The command failed.'));
        this.printed.delete(frame.id);
        return;
      case 'completions':
        return this.completions.get(frame.id)?.(Array.isArray(frame.candidates) ? frame.candidates.map(String) : []);
      case 'event': {
        if (!this.showEvents()) return;
        const details = Object.entries(frame.event.data ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(', ');
        return this.output.line(paint.dim(plainText(`[event] ${frame.event.type}${details ? ` ${details}` : ''}`)));
      }
    }
  }

  private giveUpCompletions(): void {
    for (const answer of [...this.completions.values()]) answer([]);
  }
}
