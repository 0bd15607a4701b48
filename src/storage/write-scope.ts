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
export function acknowledgedWrites<T>(work: () => T | Promise<T>): T | Promise<T> {
  const scope: Scope = { open: true, lost: undefined };
  let value: T | Promise<T>;
  try {
    value = scopes.run(scope, work);
  } catch (error) {
    scope.open = false;
    throw error;
  }
  // A synchronous handler has done all its writing (event listeners run synchronously too):
  // answered here, without a promise per request.
  if (!(value instanceof Promise)) return settle(scope, value);
  return value.then(
    (done) => settle(scope, done),
    (error: unknown) => {
      scope.open = false;
      throw error;
    },
  );
}

/** Closes the scope (work the request left running has nobody to answer) and answers: the value, or the write it lost. */
function settle<T>(scope: Scope, value: T): T {
  scope.open = false;
  if (scope.lost !== undefined) throw scope.lost;
  return value;
}

/** Tells the request this code runs for (if any, and still unanswered) that a write it caused was lost; true when there was one. */
export function reportLostWrite(error: unknown): boolean {
  const scope = scopes.getStore();
  if (!scope?.open) return false;
  scope.lost ??= error;
  return true;
}
