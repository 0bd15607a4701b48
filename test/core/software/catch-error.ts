import { ApiError } from '../../../src/errors';

/** The ApiError `fn` throws; fails the test when it throws nothing or something else. */
export function catchApiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw new Error(`expected an ApiError, got ${String(error)}`);
  }
  throw new Error('expected an ApiError, nothing was thrown');
}
