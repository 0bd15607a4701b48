/** The timer functions a Coalescer uses; tests pass a manual clock. */
export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Coalesces bursts per key: the first change of a quiet key goes out at once; changes within
 * the next `windowMs` are folded into one trailing emission carrying the latest value, and so
 * on while changes keep coming. A listener therefore hears every change within `windowMs`,
 * at most about once per window per key, and always ends on the final value.
 */
export class Coalescer {
  private readonly windows = new Map<string, { timer: unknown; pending: (() => void) | null }>();

  constructor(
    private readonly windowMs: number,
    private readonly timers: Timers = realTimers,
  ) {}

  /** `emit` runs now, or at the end of this key's open window (only the latest emit of a window runs). */
  push(key: string, emit: () => void): void {
    const open = this.windows.get(key);
    if (open) {
      open.pending = emit;
      return;
    }
    emit();
    this.openWindow(key);
  }

  /** Runs every pending emission now and closes all windows (controller stop). */
  flush(): void {
    for (const [key, window] of [...this.windows]) {
      this.timers.clear(window.timer);
      this.windows.delete(key);
      window.pending?.();
    }
  }

  private openWindow(key: string): void {
    const window = {
      pending: null as (() => void) | null,
      timer: this.timers.set(() => {
        this.windows.delete(key);
        const pending = window.pending;
        if (!pending) return;
        pending();
        this.openWindow(key);
      }, this.windowMs),
    };
    this.windows.set(key, window);
  }
}
