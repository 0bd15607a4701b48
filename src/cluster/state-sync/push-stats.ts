import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';
import type { Logger } from '../../log';

/** The last committed push of one service. */
export interface PushFacts {
  /** ISO time of the commit. */
  lastPushAt: string;
  lastPushBytes: number;
  lastPushFiles: number;
}

/** File name next to the canonical copies; a leading dot, which no service name has. */
export const STATS_FILE = '.sync-stats.json';

/**
 * The last-push facts of every service, kept in `<state root>/.sync-stats.json` (written
 * atomically after each commit) so they survive a restart. A file that cannot be read is
 * logged and starts empty: the facts are informational, the canonical copies are the truth.
 */
export class PushStats {
  private readonly facts = new Map<string, PushFacts>();
  private readonly file: string;

  constructor(
    root: string,
    private readonly log: Logger,
  ) {
    this.file = join(root, STATS_FILE);
    this.load();
  }

  get(service: string): PushFacts | undefined {
    return this.facts.get(service);
  }

  record(service: string, facts: PushFacts): void {
    this.facts.set(service, facts);
    try {
      const services = Object.fromEntries([...this.facts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      writeFileAtomic(this.file, `${JSON.stringify({ version: 1, services }, null, 2)}\n`);
    } catch (error) {
      this.log.warn({ err: error, file: this.file }, 'could not save the state-sync push facts; they are kept in memory until the next push');
    }
  }

  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ err: error, file: this.file }, 'could not read the state-sync push facts');
      return;
    }
    try {
      const parsed = JSON.parse(text) as { services?: Record<string, unknown> };
      for (const [service, value] of Object.entries(parsed.services ?? {})) {
        const v = value as Partial<PushFacts>;
        if (typeof v.lastPushAt === 'string' && Number.isSafeInteger(v.lastPushBytes) && Number.isSafeInteger(v.lastPushFiles)) {
          this.facts.set(service, { lastPushAt: v.lastPushAt, lastPushBytes: v.lastPushBytes!, lastPushFiles: v.lastPushFiles! });
        }
      }
    } catch (error) {
      this.log.warn({ err: error, file: this.file }, 'the state-sync push facts file is not valid JSON; starting without them');
    }
  }
}
