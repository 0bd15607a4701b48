import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';
import type { Logger } from '../../log';

/** File name next to the canonical copies; a leading dot, which no service name has. */
export const LAST_NODES_FILE = '.sync-nodes.json';

/**
 * The node each synced instance last ran on, as the registry last said it (`local` for this
 * machine), kept in `<state root>/.sync-nodes.json` so it outlives the registry record and a
 * restart: a node's push after its service ended (the controller may have dropped the record
 * meanwhile) is still its own, and only its own. Written only when a value changes.
 */
export class LastNodes {
  private readonly nodes = new Map<string, string>();
  private readonly file: string;

  constructor(
    root: string,
    private readonly log: Logger,
  ) {
    this.file = join(root, LAST_NODES_FILE);
    this.load();
  }

  get(service: string): string | undefined {
    return this.nodes.get(service);
  }

  record(service: string, node: string): void {
    if (this.nodes.get(service) === node) return;
    this.nodes.set(service, node);
    try {
      const services = Object.fromEntries([...this.nodes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      writeFileAtomic(this.file, `${JSON.stringify({ version: 1, services }, null, 2)}\n`);
    } catch (error) {
      this.log.warn({ err: error, file: this.file }, 'could not save which node each synced instance last ran on; kept in memory until the next change');
    }
  }

  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ err: error, file: this.file }, 'could not read which node each synced instance last ran on');
      return;
    }
    try {
      const parsed = JSON.parse(text) as { services?: Record<string, unknown> };
      for (const [service, node] of Object.entries(parsed.services ?? {})) if (typeof node === 'string') this.nodes.set(service, node);
    } catch (error) {
      this.log.warn({ err: error, file: this.file }, `${LAST_NODES_FILE} is not valid JSON: nodes sync only the instances the registry says they run until it is written again`);
    }
  }
}
