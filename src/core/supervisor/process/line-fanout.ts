import { LineRing } from './line-ring';

/** Lines a handle remembers for lastLines(): enough for a crash report's context. */
export const RING_CAPACITY = 1000;

export type LineListener = (line: string) => void;

/**
 * Hands each console line to every listener and to the ring buffer behind lastLines(). A
 * listener that throws does not stop the others or the tail that feeds us: its error is
 * rethrown on a microtask, where it surfaces as an uncaught error instead of vanishing.
 */
export class LineFanout {
  readonly #listeners = new Set<LineListener>();
  readonly #ring: LineRing;

  constructor(capacity = RING_CAPACITY) {
    this.#ring = new LineRing(capacity);
  }

  add(listener: LineListener): () => void {
    // A wrapper object makes the same function added twice count twice, like an event emitter.
    const entry: LineListener = (line) => listener(line);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  emit(line: string): void {
    this.#ring.push(line);
    for (const listener of this.#listeners) {
      try {
        listener(line);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** Into lastLines() only: lines from before this handle existed (re-attach). */
  remember(line: string): void {
    this.#ring.push(line);
  }

  last(count: number): string[] {
    return this.#ring.last(count);
  }
}
