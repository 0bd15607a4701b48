import type { Kernel } from '../kernel';
import type { OutputLine } from '../core/commands/command';
import type { CommandResult } from '../core/commands/registry';
import { attachScreen, screenInput } from '../core/commands/screen';
import { EVENTS_NOT_FORWARDED } from '../ws/console-protocol';
import { LOGGED_LIFECYCLE_EVENTS } from '../core/services/lifecycle-log';
import type { ConsoleEvent, ConsoleTransport, ScreenListener } from '../cli/transport';

/** The controller's own terminal: commands run in-process with the `console` actor. */
export class LocalConsole implements ConsoleTransport {
  private screen: { service: string; stop: () => void } | null = null;
  private readonly notices = new Set<(text: string) => void>();

  constructor(private readonly kernel: Kernel) {}

  async execute(input: string, onLine: (line: OutputLine) => void): Promise<CommandResult> {
    const line = this.kernel.commands.resolveLine(input);
    if ('empty' in line) return { success: true };
    if ('error' in line) {
      onLine({ kind: 'error', text: line.error });
      return { success: false, message: line.error };
    }
    return this.kernel.commands.run(line.command, { args: line.args, actor: 'console', caller: 'console' }, onLine);
  }

  async complete(buffer: string, cursor: number): Promise<string[]> {
    return this.kernel.commands.complete(buffer, cursor);
  }

  async attach(service: string, listener: ScreenListener): Promise<void> {
    this.detach();
    const result = attachScreen(this.kernel, service, {
      line: (text) => listener.line(text),
      ended: (reason) => {
        this.screen = null;
        listener.detached(reason);
      },
    });
    if (typeof result === 'string') throw new Error(result);
    this.screen = { service, stop: result.stop };
  }

  screenInput(text: string): void {
    if (!this.screen) return;
    const problem = screenInput(this.kernel, this.screen.service, text);
    if (problem) for (const notice of this.notices) notice(problem);
  }

  detach(): void {
    this.screen?.stop();
    this.screen = null;
  }

  onEvent(listener: (event: ConsoleEvent) => void): () => void {
    return this.kernel.bus.subscribe((event) => {
      // A service's start, ready and stop already print as log lines on this terminal: not twice.
      if (!EVENTS_NOT_FORWARDED.has(event.type) && !LOGGED_LIFECYCLE_EVENTS.has(event.type)) listener({ type: event.type, data: event.data });
    });
  }

  onNotice(listener: (text: string) => void): () => void {
    this.notices.add(listener);
    return () => this.notices.delete(listener);
  }
}
