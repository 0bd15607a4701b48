import { existsSync, readFileSync, renameSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { writeFileAtomic } from '../../config/write';

/**
 * One group (or dedicated service) the crash-loop breaker stopped: what a person needs to
 * find the cause (why, since when, the last crash) and to lift it. Times are wall clock, for
 * people; nothing measures a duration with them.
 */
export const QuarantineRecordSchema = Type.Object({
  name: Type.String({ description: 'the group, or the dedicated service' }),
  kind: Type.Union([Type.Literal('group'), Type.Literal('dedicated')]),
  reason: Type.String({ description: 'why the breaker tripped, e.g. "crash loop: 10 crashes within 5 min"' }),
  crashes: Type.Integer({ minimum: 0, description: 'crashes inside the window when it tripped' }),
  since: Type.String({ description: 'ISO time the quarantine began' }),
  lastService: Type.Union([Type.String(), Type.Null()], { description: 'the instance whose crash tripped it (its logs tell why)' }),
  lastExitCode: Type.Union([Type.Integer(), Type.Null()]),
  diagnosis: Type.Union([Type.String(), Type.Null()], { description: 'the diagnosis of that crash, when one was made' }),
});
export type QuarantineRecord = Static<typeof QuarantineRecordSchema>;

export const QuarantineFileSchema = Type.Object({ version: Type.Literal(1), quarantined: Type.Array(QuarantineRecordSchema) });

/** How an operator lifts a quarantine, said the same way in every message. */
export function howToLift(record: Pick<QuarantineRecord, 'name' | 'kind'>): string {
  const route = record.kind === 'dedicated' ? `/api/dedicated/${record.name}/quarantine` : `/api/groups/${record.name}/quarantine`;
  return `\`quarantine lift ${record.name}\` in the console or \`svc cli\`, or DELETE ${route}`;
}

/** The refusal of a start while quarantined: what, since when, why, and how to lift it. */
export function quarantineRefusal(record: QuarantineRecord): string {
  const what = record.kind === 'dedicated' ? `dedicated service ${record.name}` : `group ${record.name}`;
  return `${what} is quarantined since ${record.since} (${record.reason}); nothing starts it until an operator lifts the quarantine: ${howToLift(record)}`;
}

/**
 * The quarantined groups, kept in `data/state/quarantine.json` (owner-only, written atomically
 * and durably) so a quarantine outlives the controller until an operator lifts it. Without a
 * file (tests, tools) they live in memory only.
 *
 * A quarantine takes effect in memory first and is then written: a full disk must not let a
 * crash loop run on. A lift is written first and only then forgotten: a lift that answered
 * success holds after a restart, and a failed write leaves the group quarantined.
 */
export class Quarantines {
  private readonly entries = new Map<string, QuarantineRecord>();
  /** What was wrong with the file at load, for the log and the doctor; null when it was fine. */
  problem: string | null = null;

  constructor(readonly file: string | null) {}

  /**
   * Reads the file the last controller left. A file that cannot be read or has the wrong shape
   * is moved aside (kept for the operator, never overwritten) and reported; nothing is then
   * quarantined, so a crash loop trips the breaker again.
   */
  load(now = new Date()): string | null {
    this.entries.clear();
    this.problem = null;
    if (!this.file || !existsSync(this.file)) return null;
    let why: string;
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      if (Value.Check(QuarantineFileSchema, parsed)) {
        for (const record of parsed.quarantined) this.entries.set(record.name, record);
        return null;
      }
      why = 'it has an unexpected shape';
    } catch (error) {
      why = `it cannot be read: ${(error as Error).message}`;
    }
    const aside = `${this.file}.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
    let kept = `moved to ${aside}`;
    try {
      renameSync(this.file, aside);
    } catch (error) {
      kept = `and could not be moved aside (${(error as Error).message})`;
    }
    this.problem = `${this.file} was not used: ${why}; ${kept}. Groups quarantined before are not any more: a crash loop trips the breaker again`;
    return this.problem;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): QuarantineRecord | undefined {
    return this.entries.get(name);
  }

  list(): QuarantineRecord[] {
    return [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Quarantines `record.name` at once; the write follows and throws when it fails (the quarantine holds in memory). */
  add(record: QuarantineRecord): void {
    this.entries.set(record.name, record);
    this.save([...this.entries.values()]);
  }

  /** Lifts it; written before it is forgotten. Undefined when it was not quarantined. */
  lift(name: string): QuarantineRecord | undefined {
    const record = this.entries.get(name);
    if (!record) return undefined;
    this.save([...this.entries.values()].filter((r) => r.name !== name));
    this.entries.delete(name);
    return record;
  }

  private save(records: QuarantineRecord[]): void {
    if (!this.file) return;
    const body = { version: 1, quarantined: records.sort((a, b) => a.name.localeCompare(b.name)) };
    writeFileAtomic(this.file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  }
}
