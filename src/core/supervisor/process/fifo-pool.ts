import { lstatSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/**
 * stdin FIFOs made ahead of time, a batch per `mkfifo` process, so a launch moves one into
 * place with a rename instead of its wrapper forking mkfifo on the start path (about 2.5 ms of
 * a 4 ms spawn). Best effort throughout: when the pool is empty, or the rename fails (another
 * file system), the wrapper makes its own FIFO as it always could. Nothing happens before the
 * first take(), so an idle controller forks nothing; FIFOs an earlier controller left in the
 * pool directory are used first.
 */
export class FifoPool {
  private readonly ready: string[] = [];
  private refilling: Promise<void> | null = null;
  private broken = false;
  private opened = false;
  private made = 0;

  constructor(
    private readonly dir: string,
    private readonly batch = 16,
  ) {}

  /** Moves a pooled FIFO to `dest` (which must not exist); false when none could be given. */
  take(dest: string): boolean {
    if (!this.opened) this.open();
    let given = false;
    while (!given && this.ready.length > 0) {
      const fifo = this.ready.pop()!;
      try {
        renameSync(fifo, dest);
        given = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EXDEV') this.broken = true; // services on another file system
        if (!isFifo(fifo)) continue; // someone removed it: the next one may do
        this.ready.push(fifo); // the destination is the problem: keep it for the next launch
        break;
      }
    }
    this.topUp();
    return given;
  }

  /** Settles once no refill is running (tests, and a clean shutdown). */
  async idle(): Promise<void> {
    while (this.refilling) await this.refilling;
  }

  get size(): number {
    return this.ready.length;
  }

  private open(): void {
    this.opened = true;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      for (const name of readdirSync(this.dir)) if (isFifo(join(this.dir, name))) this.ready.push(join(this.dir, name));
    } catch {
      this.broken = true;
    }
  }

  private topUp(): void {
    if (this.broken || this.refilling || this.ready.length >= this.batch / 2) return;
    this.refilling = this.refill().finally(() => {
      this.refilling = null;
    });
  }

  private async refill(): Promise<void> {
    const paths = Array.from({ length: this.batch }, () => join(this.dir, `${process.pid}-${++this.made}.fifo`));
    try {
      const proc = Bun.spawn(['mkfifo', '-m', '600', ...paths], { stdio: ['ignore', 'ignore', 'ignore'] });
      await proc.exited;
    } catch {
      this.broken = true; // no mkfifo on PATH: launches go on without the pool
      return;
    }
    const made = paths.filter(isFifo);
    if (made.length === 0) this.broken = true;
    this.ready.push(...made);
  }
}

/** True when a FIFO is at `path` (a link to one does not count). */
export function isFifo(path: string): boolean {
  try {
    return lstatSync(path).isFIFO();
  } catch {
    return false;
  }
}
