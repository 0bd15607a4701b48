import type { OutputLine } from '../core/commands/command';
import type { CommandResult } from '../core/commands/registry';

/** An event as consoles show it (the multiplex socket's `event` envelope). */
export interface ConsoleEvent {
  type: string;
  data: Record<string, string>;
}

/** What an attached service console reports. */
export interface ScreenListener {
  line(text: string): void;
  /** The attachment ended: on request, because the service stopped, or the connection went. */
  detached(reason?: string): void;
}

/**
 * What an interactive shell talks to: the controller itself (the local console) or a
 * controller over `/api/console/stream` (`svc cli`). The shell never knows which.
 */
export interface ConsoleTransport {
  /** Runs one console line; its lines arrive through `onLine` in order, then the promise settles. */
  execute(input: string, onLine: (line: OutputLine) => void): Promise<CommandResult>;
  /** Candidates for the word under the cursor. */
  complete(buffer: string, cursor: number): Promise<string[]>;
  /** Attaches to a service console; rejects with a message a person can act on. */
  attach(service: string, listener: ScreenListener): Promise<void>;
  /** One line to the attached service's stdin. */
  screenInput(text: string): void;
  detach(): void;
  onEvent(listener: (event: ConsoleEvent) => void): () => void;
  /** Connection news worth a line on the console (lost, retrying, back). */
  onNotice(listener: (text: string) => void): () => void;
}
