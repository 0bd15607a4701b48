import { ApiError, errorBody, type ErrorBody } from '../errors';
import type { EventBus } from '../events/bus';
import type { Logger } from '../log';
import { splitUrl } from './request';
import { validationMessage } from './validation';

interface ErrorContext {
  code: string | number;
  error: unknown;
  request: Request;
  set: { status?: number | string; headers: Record<string, string | number> };
}

/**
 * The one place a failure becomes a response: the error body with the right status for our
 * own ApiErrors and for the framework's validation, parse and not-found errors; anything else
 * is a bug, answered INTERNAL_ERROR with a reference while the details go only to the log.
 */
export function errorRenderer(log: Logger, bus: EventBus) {
  function internal(error: unknown, request: Request, set: ErrorContext['set']): ErrorBody {
    const ref = crypto.randomUUID().slice(0, 8);
    const path = splitUrl(request.url).pathname;
    log.error({ err: error, ref, method: request.method, path }, 'request failed');
    // Subscribers learn that something broke and where; the details stay in the log.
    bus.publish('API_ERROR', { error: `INTERNAL_ERROR ref ${ref}: ${request.method} ${path}` });
    set.status = 500;
    return errorBody('INTERNAL_ERROR', `internal error (ref ${ref}); the controller log has the details`);
  }

  return ({ code, error: thrown, request, set }: ErrorContext): ErrorBody => {
    let error: unknown = thrown;
    // A throw inside the body parser reaches here wrapped in the framework's ParseError.
    if (code === 'PARSE' && (error as Error).cause instanceof ApiError) error = (error as Error).cause;
    if (error instanceof ApiError) {
      set.status = error.status;
      Object.assign(set.headers, error.headers);
      return errorBody(error.errorCode, error.message);
    }
    switch (code) {
      case 'VALIDATION':
        // A response outside its own schema is our bug, not the caller's.
        if ((error as { type?: string }).type === 'response') return internal(error, request, set);
        set.status = 400;
        return errorBody('VALIDATION_FAILED', validationMessage(error as Parameters<typeof validationMessage>[0]));
      case 'PARSE':
        set.status = 400;
        return errorBody('VALIDATION_FAILED', 'request body could not be parsed; send JSON with Content-Type: application/json');
      case 'NOT_FOUND':
        set.status = 404;
        return errorBody('ROUTE_NOT_FOUND', `no route ${request.method} ${splitUrl(request.url).pathname}`);
      case 'INVALID_COOKIE_SIGNATURE':
      case 'INVALID_FILE_TYPE':
        set.status = 400;
        return errorBody('VALIDATION_FAILED', String((error as Error).message));
      default:
        return internal(error, request, set);
    }
  };
}
