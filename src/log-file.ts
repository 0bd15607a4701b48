import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, renameSync, statSync, writeSync } from 'node:fs';

/**
 * svc.log as the logger writes it: whole lines only, rotated to `<file>.1` past `rotateBytes`
 * (at open and between two lines while running), and honest about what it could not keep.
 *
 * A write that fails part-way (a full disk gives a short write, then ENOSPC) is cut back to
 * where the line began, so the file never holds half a line. A line that cannot be written is
 * counted, and once a write succeeds again a line saying "N lines dropped: disk full" (or the
 * error's code) goes first. The logger's other sink (stdout, the journal) still has them all.
 * Never throws: a log call must not become a crash.
 */
export class LogFile {
  private fd: number | null = null;
  /** Where the file ends: the offset a failed line is cut back to. */
  private size = 0;
  private dropped = 0;
  private dropReason = '';

  constructor(
    readonly file: string,
    private readonly rotateBytes: number,
  ) {
    rotateIfLarge(file, rotateBytes);
    // At start a log that cannot be opened is the operator's to know about: this throws.
    this.fd = openSync(file, 'a');
    this.size = fstatSync(this.fd).size;
  }

  /** Lines not written since the last one that was (tests, the doctor). */
  get droppedLines(): number {
    return this.dropped;
  }

  write(line: string): void {
    if (this.fd === null && !this.open()) return this.drop('the file cannot be opened');
    if (this.dropped > 0) {
      const notice = `${JSON.stringify({ level: 40, time: new Date().toISOString(), area: 'log', msg: `${this.dropped} lines dropped: ${this.dropReason}` })}\n`;
      const failed = this.append(notice);
      if (failed) return this.drop(failed);
      this.dropped = 0;
    }
    const failed = this.append(line);
    if (failed) return this.drop(failed);
    if (this.size >= this.rotateBytes) this.rotate();
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* nothing left to do */
    }
    this.fd = null;
  }

  /** Appends the whole line or nothing; why not (a few words), or null when it was written. */
  private append(line: string): string | null {
    const bytes = Buffer.from(line);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd!, bytes, written);
      this.size += written;
      return null;
    } catch (error) {
      if (written > 0) this.cutBack();
      return reasonOf(error);
    }
  }

  /** Removes a torn line's start; should even that fail, the next line begins on a line of its own. */
  private cutBack(): void {
    try {
      ftruncateSync(this.fd!, this.size);
    } catch {
      try {
        this.size = fstatSync(this.fd!).size;
      } catch {
        /* the next append finds out */
      }
    }
  }

  private drop(reason: string): void {
    this.dropped += 1;
    this.dropReason = reason;
  }

  private rotate(): void {
    this.close();
    try {
      rotateIfLarge(this.file, this.rotateBytes);
    } catch {
      /* keep writing to the big file rather than to nothing */
    }
    this.open();
  }

  private open(): boolean {
    try {
      this.fd = openSync(this.file, 'a');
      this.size = fstatSync(this.fd).size;
      return true;
    } catch {
      this.fd = null;
      return false;
    }
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return 'disk full';
  if (code === 'EDQUOT') return 'disk quota used up';
  return `write failed (${code ?? String(error)})`;
}

export function rotateIfLarge(file: string, limit: number): void {
  if (!existsSync(file)) return;
  if (statSync(file).size < limit) return;
  renameSync(file, `${file}.1`);
}
