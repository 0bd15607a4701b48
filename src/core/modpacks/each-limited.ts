/**
 * Runs `work` over `items`, at most `limit` at a time. The first failure stops new work and
 * aborts the signal handed to the running ones; it is thrown once every started one has
 * settled, so nothing is still writing when the caller cleans up.
 */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, signal: AbortSignal) => Promise<void>, outer?: AbortSignal): Promise<void> {
  const inner = new AbortController();
  const signal = outer ? AbortSignal.any([inner.signal, outer]) : inner.signal;
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const item = items[next++]!;
      try {
        signal.throwIfAborted();
        await work(item, signal);
      } catch (error) {
        failure ??= { error };
        inner.abort(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
