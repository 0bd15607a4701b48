import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  open: boolean;
  lost: unknown;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * Runs the work of one request (a route handler) so that what it writes is acknowledged only
 * when all of it was written: a write made on its behalf elsewhere, which cannot throw into it
 * (the audit row or session row an event listener writes, see EventBus), is reported here with
 * reportLostWrite, and the request then answers with that failure (a full disk: 507) instead of
 * its success. The work's own error, if it throws, wins.
 */
export async function acknowledgedWrites<T>(work: () => T | Promise<T>): Promise<T> {
  const scope: Scope = { open: true, lost: undefined };
  try {
    const value = await scopes.run(scope, work);
    if (scope.lost !== undefined) throw scope.lost;
    return value;
  } finally {
    // Work the request started and left running (a start that finishes later) has nobody to answer.
    scope.open = false;
  }
}

/** Tells the request this code runs for (if any, and still unanswered) that a write it caused was lost; true when there was one. */
export function reportLostWrite(error: unknown): boolean {
  const scope = scopes.getStore();
  if (!scope?.open) return false;
  scope.lost ??= error;
  return true;
}
