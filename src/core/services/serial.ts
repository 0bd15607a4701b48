/**
 * Runs the lifecycle actions of one service one after another (start, stop, restart never
 * interleave). A kill does not go through here: it must get through even while an action
 * waits.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(action: () => Promise<T>): Promise<T> {
    const result = this.tail.then(action, action);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
