/** Lets async waiters sleep until something happens or their deadline passes, without polling. */
export class Wakeup {
  private waiters: (() => void)[] = [];

  /** Resolves at the next `wake()` or after `ms`, whichever comes first. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
