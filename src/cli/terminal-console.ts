import { resolve } from 'node:path';
import type { Kernel } from '../kernel';
import { LocalConsole } from './local-transport';
import { InteractiveShell } from './shell';

/**
 * The controller's own interactive console, when it runs on a terminal. Log lines go through
 * `sink`: straight to stdout until the prompt exists, then above the prompt, so a log line
 * never tears what the operator is typing.
 */
export class TerminalConsole {
  private shell: InteractiveShell | undefined;

  readonly sink = {
    write: (chunk: string): void => {
      if (this.shell) this.shell.printRaw(chunk);
      else process.stdout.write(chunk);
    },
  };

  open(kernel: Kernel, onInterrupt: () => void): void {
    const { config } = kernel;
    const colored = config.console.colored;
    this.shell = new InteractiveShell({
      transport: new LocalConsole(kernel),
      input: process.stdin,
      output: process.stdout,
      prompt: colored ? `\x1b[36m${config.network.name}\x1b[0m » ` : `${config.network.name} » `,
      colored,
      historyFile: resolve(kernel.dir, config.console.history_file),
      // Both are hot keys (PATCH /api/config): read at each event.
      showEvents: () => config.console.log_events,
      onInterrupt,
      exitWords: false,
      banner: '`help` lists the commands, Tab completes, `screen <service>` attaches to a console; Ctrl+C stops the controller.',
    });
  }

  close(): void {
    this.shell?.close();
    this.shell = undefined;
  }
}
