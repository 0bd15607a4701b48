import { createLogger, type Logger } from '../../../log';

/**
 * Where svc says which entries of a service's directory it left alone (links, FIFOs, files with
 * other hard links, folders nested too deep; see tenancy/fs). Callers pass their logger where
 * they have one; the rest report to the process-wide one set at start (`useTenantLog`), else
 * to JSON lines on stderr, so a skipped file is never skipped silently.
 */
let processLog: Logger | null = null;

export function useTenantLog(log: Logger): void {
  processLog = log;
}

function fallbackLog(): Logger {
  processLog ??= createLogger({ format: 'json', colored: false, stdout: process.stderr }).child({ area: 'tenancy' });
  return processLog;
}

/** Lines per operation before the rest are only counted: a tree of a million links must not flood the log. */
const MAX_LINES = 20;

/**
 * The entries one operation (a deploy, a manifest, a patch) skipped in one directory: the first
 * few each get a warning naming the file and why; `finish` adds a line with the total when
 * there were more.
 */
export class SkipReport {
  private count = 0;

  constructor(
    /** What was being done, for the log: "deploy back", "state push", "patch". */
    private readonly what: string,
    /** The directory the paths are relative to. */
    private readonly dir: string,
    private readonly log: Logger = fallbackLog(),
  ) {}

  skip(rel: string, reason: string): void {
    this.count++;
    if (this.count <= MAX_LINES) this.log.warn({ dir: this.dir, file: rel, reason }, `${this.what}: ${rel} left out (${reason})`);
  }

  get skipped(): number {
    return this.count;
  }

  finish(): void {
    if (this.count > MAX_LINES) this.log.warn({ dir: this.dir, skipped: this.count }, `${this.what}: ${this.count} entries left out in all (only the first ${MAX_LINES} are named)`);
  }
}
