import { ApiError, errorBody, type ErrorBody } from '../errors';
import type { EventBus } from '../events/bus';
import type { Logger } from '../log';
import { splitUrl } from './request';
import { ValidationFailure, validationMessage } from './validation';

/** An error answer before the CORS headers are added. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/**
 * The one place a failure becomes an answer: the error body with the right status for our own
 * ApiErrors (not-found routes, refused callers, bodies too large or not JSON) and for values
 * outside their schema; anything else, or a response outside its own schema, is a bug, answered
 * INTERNAL_ERROR with a reference while the details go only to the log.
 */
export function errorRenderer(log: Logger, bus: EventBus): (error: unknown, request: Request) => ErrorAnswer {
  function internal(error: unknown, request: Request): ErrorAnswer {
    const ref = crypto.randomUUID().slice(0, 8);
    const path = splitUrl(request.url).pathname;
    log.error({ err: error, ref, method: request.method, path }, 'request failed');
    // Subscribers learn that something broke and where; the details stay in the log.
    bus.publish('API_ERROR', { error: `INTERNAL_ERROR ref ${ref}: ${request.method} ${path}` });
    return { status: 500, headers: {}, body: errorBody('INTERNAL_ERROR', `internal error (ref ${ref}); the controller log has the details`) };
  }

  return (error, request) => {
    if (error instanceof ApiError) return { status: error.status, headers: error.headers, body: errorBody(error.errorCode, error.message) };
    if (error instanceof ValidationFailure) {
      // A response outside its own schema is our bug, not the caller's.
      if (error.type === 'response') return internal(error, request);
      return { status: 400, headers: {}, body: errorBody('VALIDATION_FAILED', validationMessage(error)) };
    }
    return internal(error, request);
  };
}
