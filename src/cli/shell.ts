import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { clearLine, createInterface, cursorTo, emitKeypressEvents, type CompleterResult, type Interface, type Key } from 'node:readline';
import type { OutputLine } from '../core/commands/command';
import { renderEvent, renderLine, stripControl } from './render';
import type { ConsoleTransport, ScreenListener } from './transport';

export interface ShellOptions {
  transport: ConsoleTransport;
  /** A TTY: the shell puts it in raw mode through readline. */
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  prompt: string;
  colored: boolean;
  /** Where entered lines are kept between runs (newest first, mode 0600); none means memory only. */
  historyFile?: string;
  /** Most lines kept, in memory and in the file; 1000 unless given. */
  historySize?: number;
  /** Asked per event, so the operator can toggle events while the shell runs. */
  showEvents: () => boolean;
  /**
   * Ctrl+C on an empty line (with text on the line, Ctrl+C only clears it); closes the shell
   * unless given. A caller that stops something big asks first with `ask`.
   */
  onInterrupt?: () => void;
  /** Called once when the shell closes, for whatever reason. */
  onClose?: () => void;
  /**
   * Whether `exit`/`quit` and Ctrl+D close the shell: true for `svc cli`. False for the
   * controller's console, where they print a hint instead (closing it would not stop the
   * controller, only leave it without a console).
   */
  exitWords?: boolean;
  /** Printed once before the first prompt. */
  banner?: string;
}

const CLEAR_SCREEN = '\x1b[2J\x1b[H';
const STAY_HINT = 'the console stays open; type shutdown to stop the controller';

/**
 * The interactive console both frontends share: a readline prompt with history, completion,
 * built-ins (`clear`, `screen <service>`, `exit`/`quit`) and every other line run through the
 * transport. Output that arrives on its own (events, notices, screen lines, log lines via
 * `printRaw`) is printed above the prompt and leaves what the operator is typing intact.
 *
 * Lines entered while a command runs are queued and run in order; the prompt comes back only
 * when the queue is empty.
 */
export class InteractiveShell {
  /** Settles once the shell closed (exit word, Ctrl+D, input end, `close()`). */
  readonly closed: Promise<void>;
  private resolveClosed: () => void = () => {};
  private rl: Interface;
  private history: string[];
  private readonly historySize: number;
  private readonly queue: string[] = [];
  private busy = false;
  private done = false;
  private inputEnded = false;
  /** A yes/no question waiting for its answer line (`ask`); lines typed meanwhile answer it. */
  private question: { text: string; resolve: (yes: boolean) => void } | null = null;
  /** The current attachment; a fresh object per `screen`, so callbacks of an old one are ignored. */
  private screen: { service: string } | null = null;
  private readonly unsubscribe: Array<() => void>;

  constructor(private readonly options: ShellOptions) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.historySize = options.historySize ?? 1000;
    this.history = loadHistory(options.historyFile, this.historySize);
    const { input, transport, colored } = options;
    // Registered before readline's own 'end' listener, so a closing interface can tell input
    // end from Ctrl+D.
    input.on('end', this.onInputEnd);
    emitKeypressEvents(input);
    input.on('keypress', this.onKeypress);
    if (options.banner) options.output.write(`${options.banner}\n`);
    this.rl = this.open();
    this.unsubscribe = [
      transport.onEvent((event) => {
        if (options.showEvents()) this.print(renderEvent(event, colored));
      }),
      transport.onNotice((text) => this.printLine({ kind: 'info', text })),
    ];
    this.rl.prompt();
  }

  /**
   * Prints whole lines above the prompt: clears the prompt line, writes the text, redraws the
   * prompt with what was typed so far. While a command runs there is no prompt to redraw.
   */
  print(text: string): void {
    const { output } = this.options;
    if (this.done) {
      output.write(`${text}\n`);
      return;
    }
    clearLine(output, 0);
    cursorTo(output, 0);
    output.write(`${text}\n`);
    if (!this.busy || this.question) this.rl.prompt(true);
  }

  /** A chunk of a stream that writes whole lines (the controller's log); one trailing newline is dropped. */
  printRaw(chunk: string): void {
    this.print(chunk.replace(/\r?\n$/, ''));
  }

  /**
   * Asks a yes/no question at the prompt: true only for "y" or "yes". Ctrl+C, any other answer
   * or the shell closing mean no. Asked while a command runs, the question still shows.
   */
  ask(question: string): Promise<boolean> {
    if (this.done) return Promise.resolve(false);
    this.question?.resolve(false);
    return new Promise((resolve) => {
      this.question = { text: question, resolve };
      clearLine(this.options.output, 0);
      cursorTo(this.options.output, 0);
      this.clearTypedLine();
      this.rl.setPrompt(question);
      this.rl.prompt();
    });
  }

  /** Closes the shell: detaches a screen, stops listening, releases the terminal. Idempotent. */
  close(): void {
    if (this.done) return;
    this.done = true;
    this.answer(false);
    const { input, output, transport } = this.options;
    if (this.screen) {
      this.screen = null;
      transport.detach();
    }
    for (const off of this.unsubscribe) off();
    input.off('end', this.onInputEnd);
    input.off('keypress', this.onKeypress);
    clearLine(output, 0);
    cursorTo(output, 0);
    this.rl.close();
    this.resolveClosed();
    this.options.onClose?.();
  }

  private open(): Interface {
    const rl = createInterface({
      input: this.options.input,
      output: this.options.output,
      terminal: true,
      completer: this.completer,
      history: this.history,
      historySize: this.historySize,
      prompt: this.currentPrompt(),
    });
    rl.on('line', (line) => (this.question ? this.answer(/^y(es)?$/i.test(line.trim())) : this.enqueue(line)));
    rl.on('history', (history) => {
      this.history = history;
      saveHistory(this.options.historyFile, history.slice(0, this.historySize));
    });
    rl.on('SIGINT', () => this.interrupt());
    rl.on('close', () => this.onReadlineClose(rl));
    return rl;
  }

  /**
   * Readline closes its interface itself on Ctrl+D at an empty line (and on input end). With
   * `exitWords` that closes the shell. Without, Ctrl+D must not leave the controller without
   * its console: the shell prints the hint and opens a fresh interface on the same streams
   * and history — simpler and sturdier than patching readline's private key handling.
   */
  private onReadlineClose(rl: Interface): void {
    if (this.done || rl !== this.rl) return;
    if (this.options.exitWords || this.inputEnded) {
      this.close();
      return;
    }
    this.rl = this.open();
    this.printLine({ kind: 'info', text: STAY_HINT });
  }

  /** Ctrl+C: "no" to a question, else clears a typed line, else the interrupt (a stop, for the controller's console). */
  private interrupt(): void {
    if (this.question) {
      this.options.output.write('^C\n');
      this.answer(false);
      return;
    }
    if (this.rl.line.length > 0) {
      this.clearTypedLine();
      return;
    }
    (this.options.onInterrupt ?? (() => this.close()))();
  }

  private answer(yes: boolean): void {
    const question = this.question;
    if (!question) return;
    this.question = null;
    if (!this.done) {
      this.rl.setPrompt(this.currentPrompt());
      if (!this.busy) this.rl.prompt();
    }
    question.resolve(yes);
  }

  /** Empties what is typed on the prompt line, as a shell's Ctrl+C does. */
  private clearTypedLine(): void {
    if (this.rl.line.length === 0) return;
    this.rl.write(null, { ctrl: true, name: 'e' });
    this.rl.write(null, { ctrl: true, name: 'u' });
  }

  private enqueue(raw: string): void {
    const line = raw.trim();
    if (line) this.queue.push(line);
    if (this.busy || this.done) return;
    if (line) void this.drain();
    else this.rl.prompt();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    for (let line = this.queue.shift(); line !== undefined && !this.done; line = this.queue.shift()) {
      try {
        await this.handle(line);
      } catch (error) {
        this.printLine({ kind: 'error', text: error instanceof Error ? error.message : String(error) });
      }
    }
    this.busy = false;
    if (!this.done) this.rl.prompt();
  }

  private async handle(line: string): Promise<void> {
    if (this.screen) {
      if (line === ':q') this.leaveScreen();
      else this.options.transport.screenInput(line);
      return;
    }
    const [word = '', ...args] = line.split(/\s+/);
    switch (word.toLowerCase()) {
      case 'clear':
        this.options.output.write(CLEAR_SCREEN);
        return;
      case 'screen':
        return this.enterScreen(args);
      case 'exit':
      case 'quit':
        if (this.options.exitWords) this.close();
        else this.printLine({ kind: 'info', text: STAY_HINT });
        return;
      default:
        return this.execute(line);
    }
  }

  private async execute(line: string): Promise<void> {
    let printedError = false;
    const result = await this.options.transport.execute(line, (out) => {
      printedError ||= out.kind === 'error';
      this.printLine(out);
    });
    // The registry ends a failure with an error line; a transport that did not still gets one.
    if (!result.success && !printedError && result.message) this.printLine({ kind: 'error', text: result.message });
  }

  private async enterScreen(args: string[]): Promise<void> {
    const service = args[0];
    if (service === undefined || args.length > 1) {
      this.printLine({ kind: 'error', text: 'usage: screen <service>' });
      return;
    }
    const session = { service };
    const listener: ScreenListener = {
      line: (text) => {
        if (this.screen === session) this.print(stripControl(text));
      },
      detached: (reason) => {
        if (this.screen === session) this.endScreen(reason ? `detached from ${service}: ${reason}` : `detached from ${service}`);
      },
    };
    this.screen = session;
    try {
      await this.options.transport.attach(service, listener);
    } catch (error) {
      if (this.screen === session) this.screen = null;
      this.printLine({ kind: 'error', text: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (this.screen !== session) return;
    this.rl.setPrompt(this.currentPrompt());
    this.printLine({ kind: 'info', text: `attached to ${service}: lines you type go to its console; Ctrl+Q leaves` });
  }

  /** The operator leaves the screen (Ctrl+Q or `:q`). */
  private leaveScreen(): void {
    const service = this.screen?.service;
    this.options.transport.detach();
    this.endScreen(`detached from ${service}`);
  }

  private endScreen(message: string): void {
    this.screen = null;
    this.rl.setPrompt(this.currentPrompt());
    this.printLine({ kind: 'info', text: message });
  }

  private currentPrompt(): string {
    if (!this.screen) return this.options.prompt;
    const name = stripControl(this.screen.service);
    return `${this.options.colored ? `\x1b[36m${name}\x1b[0m` : name} » `;
  }

  private printLine(line: OutputLine): void {
    this.print(renderLine(line, this.options.colored));
  }

  /**
   * Tab completion; the partial word readline replaces is what follows the last whitespace.
   * A single candidate gets a trailing space, so the next word can follow at once.
   */
  private readonly completer = (line: string, callback: (error: null, result: CompleterResult) => void): void => {
    const partial = /\S*$/.exec(line)?.[0] ?? '';
    if (this.screen) {
      callback(null, [[], partial]);
      return;
    }
    this.options.transport.complete(line, line.length).then(
      (candidates) => callback(null, [candidates.length === 1 ? [`${candidates[0]} `] : candidates, partial]),
      () => callback(null, [[], partial]),
    );
  };

  private readonly onKeypress = (_text: string | undefined, key: Key | undefined): void => {
    if (this.screen && key?.ctrl && key.name === 'q') this.leaveScreen();
  };

  private readonly onInputEnd = (): void => {
    this.inputEnded = true;
  };
}

/** The history file's lines, newest first (readline's order); a missing or unreadable file is no history. */
function loadHistory(file: string | undefined, size: number): string[] {
  if (!file) return [];
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, size);
  } catch {
    return [];
  }
}

/**
 * Writes the history, newest first. Mode 0600 (also forced on an existing file): a command
 * line can carry a secret. A failed write is skipped; losing history must not end the shell.
 */
function saveHistory(file: string | undefined, history: string[]): void {
  if (!file) return;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const lines = history.map((line) => line.trim()).filter(Boolean);
    writeFileSync(file, lines.map((line) => `${line}\n`).join(''), { mode: 0o600 });
    chmodSync(file, 0o600);
  } catch {
    // skipped on purpose, see above
  }
}
