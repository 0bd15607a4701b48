import type { Subprocess } from 'bun';
import { Wakeup } from './wake';

/**
 * A child under a real pseudo-terminal. Output is kept with ANSI sequences stripped; `expect`
 * waits for a text after the previous match, so a session reads top to bottom. Never sleeps:
 * every wait is for a condition, woken by the terminal's data, bounded by a timeout.
 */
export class PtySession {
  readonly proc: Subprocess;
  private raw = '';
  private seen = 0;
  private readonly wakeup = new Wakeup();

  constructor(
    argv: string[],
    options: { env?: Record<string, string | undefined>; cwd?: string; cols?: number; rows?: number; name?: string } = {},
  ) {
    const decoder = new TextDecoder();
    this.name = options.name ?? argv.join(' ');
    this.proc = Bun.spawn(argv, {
      env: options.env,
      cwd: options.cwd,
      terminal: {
        cols: options.cols ?? 120,
        rows: options.rows ?? 40,
        data: (_term, data) => {
          this.raw += decoder.decode(data, { stream: true });
          this.wakeup.wake();
        },
      },
    });
    void this.proc.exited.then(() => this.wakeup.wake());
  }

  private readonly name: string;

  get output(): string {
    return Bun.stripANSI(this.raw);
  }

  type(text: string): void {
    this.proc.terminal!.write(text);
  }

  /** Waits for `needle` after the previous match and returns the output between them. */
  async expect(needle: string | RegExp, timeoutMs = 10_000): Promise<string> {
    let found: { index: number; end: number } | undefined;
    await this.waitForOutput((output) => (found = locate(output, needle, this.seen)) !== undefined, timeoutMs, `${needle}`);
    const between = this.output.slice(this.seen, found!.index);
    this.seen = found!.end;
    return between;
  }

  /** Resolves once `predicate` holds for the (stripped) output; fails with the output after `timeoutMs`. */
  async waitForOutput(predicate: (output: string) => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (predicate(this.output)) return;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; output:\n${this.output}`);
      if (this.proc.exitCode !== null) throw new Error(`${this.name} exited (${this.proc.exitCode}) before ${what}; output:\n${this.output}`);
      await this.wakeup.wait(remaining);
    }
  }

  /** The exit status, once the child ends within `timeoutMs`. */
  async exitCode(timeoutMs = 10_000): Promise<number> {
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
    const result = await Promise.race([this.proc.exited, timeout]);
    if (result === 'timeout') throw new Error(`${this.name} did not exit within ${timeoutMs} ms; output:\n${this.output}`);
    return result;
  }

  kill(): void {
    this.proc.kill('SIGKILL');
    this.proc.terminal?.close();
  }
}

/** Where `needle` first occurs in `text` at or after `from`. */
function locate(text: string, needle: string | RegExp, from: number): { index: number; end: number } | undefined {
  const rest = text.slice(from);
  if (typeof needle === 'string') {
    const index = rest.indexOf(needle);
    return index < 0 ? undefined : { index: from + index, end: from + index + needle.length };
  }
  const match = needle.exec(rest);
  return match ? { index: from + match.index, end: from + match.index + match[0].length } : undefined;
}
