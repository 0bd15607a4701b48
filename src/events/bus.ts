import type { Database } from 'bun:sqlite';
import type { Logger } from '../log';
import { diskFullCode, RecordWriteError } from '../storage/disk-full';
import { reportLostWrite } from '../storage/write-scope';
import { specOf, type Actor, type EventData, type EventType, type SvcEvent } from './catalogue';

export type EventListener = (event: SvcEvent) => void;

export interface SubscribeOptions {
  /**
   * The listener writes the durable record of events (an audit row, a session row), named
   * here for the error a caller gets when it cannot be written ("the audit log entry").
   * Recorders run before every other listener, all in one transaction; see `publish`.
   */
  records?: string;
}

/** What the bus needs of the database: transactions, and whether one is open. */
export type Transactions = Pick<Database, 'transaction' | 'inTransaction'>;

/**
 * Typed publish/subscribe. Delivery is synchronous and in publish order; a listener that
 * throws is logged and never stops delivery to the others.
 *
 * An event's records are part of the change they record, so a change is never acknowledged
 * while its record is lost (a full disk, say):
 * - published inside `bus.transaction(work)`, the recorders write in that same transaction; a
 *   recorder's failure throws out of `publish` and rolls the change back with it, and the other
 *   listeners hear of the event only once the transaction committed (never of one rolled back);
 * - published anywhere else (after a file write, from a timer), the recorders write in a
 *   transaction of their own; a failure is logged, the other listeners still hear of the change
 *   (it happened), and the request the publish belongs to, if any, answers with the failure
 *   (storage/write-scope.ts) instead of its success.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();
  private readonly recorders = new Map<EventListener, string>();
  /** Events published inside `transaction`, delivered once it commits. */
  private held: SvcEvent[] | null = null;

  /** Every recorder for one event, in one transaction (a savepoint inside the caller's); made once. */
  private readonly recordAll: ((event: SvcEvent) => void) | undefined;

  constructor(
    private readonly log?: Logger,
    private readonly db?: Transactions,
  ) {
    this.recordAll = db?.transaction((event: SvcEvent) => this.writeRecords(event));
  }

  publish<T extends EventType>(type: T, data: EventData<T>, actor: Actor = 'system'): SvcEvent {
    const event: SvcEvent = { type, timestamp: new Date().toISOString(), data: flatten(type, data), actor };
    if (this.held) {
      this.record(event);
      this.held.push(event);
      return event;
    }
    // Inside a transaction the publisher opened itself: a lost record must roll it back too.
    if (this.db?.inTransaction) {
      this.record(event);
    } else {
      try {
        this.record(event);
      } catch (error) {
        this.log?.error({ err: error, event: type }, 'the record of an event could not be written');
        reportLostWrite(error);
      }
    }
    this.deliver(event);
    return event;
  }

  /**
   * Runs `work` (synchronous) in one database transaction together with the records of every
   * event it publishes; the events reach the other listeners after the commit, in order, and
   * not at all when `work` or a record throws (everything is rolled back and the error
   * rethrown). Nested calls join the outermost one.
   */
  transaction<R>(work: () => R): R {
    if (this.held) return work();
    const held: SvcEvent[] = [];
    this.held = held;
    let result: R;
    try {
      result = this.db ? this.db.transaction(work)() : work();
    } finally {
      this.held = null;
    }
    for (const event of held) this.deliver(event);
    return result;
  }

  subscribe(listener: EventListener, options: SubscribeOptions = {}): () => void {
    if (options.records) {
      this.recorders.set(listener, options.records);
      return () => this.recorders.delete(listener);
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size + this.recorders.size;
  }

  /** Every recorder, in one transaction when there is a database; throws what failed, named. */
  private record(event: SvcEvent): void {
    if (this.recorders.size === 0) return;
    if (this.recordAll) this.recordAll(event);
    else this.writeRecords(event);
  }

  private writeRecords(event: SvcEvent): void {
    for (const [recorder, what] of this.recorders) {
      try {
        recorder(event);
      } catch (error) {
        throw error instanceof RecordWriteError ? error : new RecordWriteError(`${what} for ${event.type}`, error);
      }
    }
  }

  private deliver(event: SvcEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.log?.error({ err: error, event: event.type }, 'event listener failed');
        // A listener that could not write for want of room leaves the change incomplete.
        if (diskFullCode(error)) reportLostWrite(error);
      }
    }
  }
}

function flatten(type: EventType, data: Record<string, unknown>): Record<string, string> {
  const spec = specOf(type);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined || value === null) continue;
    if (spec && !spec.openKeys && !(key in spec.keys)) continue;
    out[key] = typeof value === 'string' ? value : String(value);
  }
  // A module event carries its module's id on the wire (the unwrapped module-event envelope).
  if (spec?.module) out.moduleId ??= spec.module;
  return out;
}
