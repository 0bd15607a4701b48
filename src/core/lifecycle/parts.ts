/**
 * A declared lifecycle: one ordered list of parts, run forward to start and backward to stop.
 *
 *   start:  part 1 → part 2 → … → part n
 *   stop:   part n → … → part 2 → part 1
 *
 * Contracts:
 * - A part may have only a start (it begins something with nothing to end) or only a stop (it
 *   closes something built before the list ran, at the place in the stop order where it must
 *   close).
 * - Every stop is safe to call when its start never ran or failed half-way: a failed start
 *   stops the whole list backward, as a shutdown does, then throws the start's error. (A stop
 *   that only undid what started would leave open what was built before the list ran.)
 * - Stop runs once: later calls return the same promise. A stop that throws is reported
 *   through `onStopError` and the parts before it still stop (the database still closes).
 * - Starts and stops run one at a time, each awaited, so each sees the ones before it done. A
 *   part that returns no promise does not yield: synchronous parts in a row run in one turn
 *   of the event loop (stop's first parts run within the stop() call, before any timer fires).
 */

export interface Part<How> {
  /** Said in reports (a failed stop); unique in its list. */
  readonly name: string;
  start?(): void | Promise<void>;
  /** `how` says what kind of stop this is (the controller's: why, and whether services stay). */
  stop?(how: How): void | Promise<void>;
}

export type StopErrorReport = (part: string, error: unknown) => void;

export class Lifecycle<How> {
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly parts: readonly Part<How>[],
    private readonly onStopError: StopErrorReport,
  ) {
    const names = new Set<string>();
    for (const part of parts) {
      if (names.has(part.name)) throw new Error(`lifecycle part "${part.name}" is listed twice`);
      names.add(part.name);
    }
  }

  /** True once stop() was called (a start's late work, like the boot's tail, checks it). */
  get stopped(): boolean {
    return this.stopping !== undefined;
  }

  /** Runs every start in order; on a failure stops the whole list with `failed`, then throws. */
  async start(failed: How): Promise<void> {
    for (const part of this.parts) {
      if (this.stopping) return;
      try {
        const started = part.start?.();
        if (started) await started;
      } catch (error) {
        await this.stop(failed);
        throw error;
      }
    }
  }

  /** Runs every stop in reverse order, once. */
  stop(how: How): Promise<void> {
    this.stopping ??= this.runStops(how);
    return this.stopping;
  }

  private async runStops(how: How): Promise<void> {
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const part = this.parts[i]!;
      try {
        const stopped = part.stop?.(how);
        if (stopped) await stopped;
      } catch (error) {
        this.onStopError(part.name, error);
      }
    }
  }
}
