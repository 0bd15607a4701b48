/**
 * Long synchronous file work (thousands of links, a big hash) would stall the controller's
 * event loop: HTTP, heartbeats, the supervisor. A breather lets the loop run every `sliceMs`
 * of work. Sync calls in slices are faster here than async fs calls: Bun's thread-pool round
 * trip costs more than a link or a small copy (measured: 10,000 hardlinks take ~130 ms sync,
 * 0.8 s async one at a time; small async copies were slower still and erratic).
 *
 * Returns a promise only when a pause is due, so the caller awaits rarely:
 * `const pause = breathe(); if (pause) await pause;`
 */
export type Breather = () => Promise<void> | null;

export function createBreather(sliceMs = 8): Breather {
  let sliceStart = performance.now();
  return () => {
    if (performance.now() - sliceStart < sliceMs) return null;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        sliceStart = performance.now();
        resolve();
      }),
    );
  };
}
