/** The last `capacity` lines, in a fixed array: pushing never allocates once full. */
export class LineRing {
  readonly #lines: (string | undefined)[];
  #next = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    this.#lines = new Array<string | undefined>(capacity).fill(undefined);
  }

  push(line: string): void {
    this.#lines[this.#next] = line;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
  }

  /** Up to `count` most recent lines, oldest first. */
  last(count: number): string[] {
    const n = Math.max(0, Math.min(Math.floor(count), this.#size));
    const out: string[] = [];
    for (let i = n; i > 0; i--) out.push(this.#lines[(this.#next - i + this.capacity) % this.capacity] ?? '');
    return out;
  }
}
