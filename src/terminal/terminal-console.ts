import { resolve } from 'node:path';
import type { Kernel } from '../kernel';
import { LocalConsole } from './local-transport';
import { InteractiveShell } from '../cli/shell';

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

  /** `onStop`: the operator confirmed that Ctrl+C should stop the controller and every server. */
  open(kernel: Kernel, onStop: () => void): void {
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
      onInterrupt: () => void this.confirmStop(kernel, onStop),
      exitWords: false,
      banner: '`help` lists the commands, Tab completes, `screen <service>` attaches to a console; Ctrl+C asks before it stops the controller and its servers.',
    });
  }

  /**
   * Ctrl+C on an empty line asks first: stopping the controller from its terminal stops every
   * game server, which a stray key press must not do. `svc restart` keeps them running.
   */
  private async confirmStop(kernel: Kernel, onStop: () => void): Promise<void> {
    const shell = this.shell;
    if (!shell) return;
    const running = kernel.services.all().filter((s) => s.pid !== null).length;
    const yes = await shell.ask(`stop the controller and ${running} server${running === 1 ? '' : 's'}? (y/N) `);
    if (yes) return onStop();
    if (this.shell === shell) shell.print('nothing stopped (`svc restart` restarts the controller and keeps the servers running)');
  }

  close(): void {
    this.shell?.close();
    this.shell = undefined;
  }
}
