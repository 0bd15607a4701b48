import { relative, isAbsolute } from 'node:path';
import { ApiError, errorBody, type ErrorBody } from '../errors';
import type { EventBus } from '../events/bus';
import type { Logger } from '../log';
import { FileWriteError } from '../config/write';
import { diskFullCode, RecordWriteError } from '../storage/disk-full';
import { NotFoundError, ParseError, ValidationError } from 'elysia';
import { splitUrl } from './request';
import { validationMessage } from './validation';

/** An error answer before the CORS headers are added. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/**
 * The one place a failure becomes an answer (the API's onError): the error body with the right
 * status for our own ApiErrors (refused callers, bodies too large or not JSON) and for Elysia's
 * own errors (a value outside its schema is 400 VALIDATION_FAILED naming the field, an unknown
 * route 404 ROUTE_NOT_FOUND); a full disk or quota anywhere (a config file, the database, the record
 * of an event) is 507 INSUFFICIENT_STORAGE naming what could not be written; anything else, or
 * a response outside its own schema, is a bug, answered INTERNAL_ERROR with a reference while
 * the details go only to the log. `root` (the controller's folder) shortens the paths named.
 */
export function errorRenderer(log: Logger, bus: EventBus, root?: string): (error: unknown, request: Request) => ErrorAnswer {
  function internal(error: unknown, request: Request): ErrorAnswer {
    const ref = crypto.randomUUID().slice(0, 8);
    const path = splitUrl(request.url).pathname;
    log.error({ err: error, ref, method: request.method, path }, 'request failed');
    // Subscribers learn that something broke and where; the details stay in the log.
    bus.publish('API_ERROR', { error: `INTERNAL_ERROR ref ${ref}: ${request.method} ${path}` });
    return { status: 500, headers: {}, body: errorBody('INTERNAL_ERROR', `internal error (ref ${ref}); the controller log has the details`) };
  }

  function storageFull(error: unknown, code: string, request: Request): ErrorAnswer {
    const path = splitUrl(request.url).pathname;
    const what = whatFailed(error, root);
    const message = `no space left on the controller's disk (${code}): ${what} could not be written, so this request is not done; free space and send it again`;
    log.error({ method: request.method, path, code }, message);
    bus.publish('API_ERROR', { error: `INSUFFICIENT_STORAGE: ${request.method} ${path}: ${what}` });
    return { status: 507, headers: {}, body: errorBody('INSUFFICIENT_STORAGE', message) };
  }

  return (thrown, request) => {
    // A throw inside the body parser (the guard runs there too) reaches here wrapped in Elysia's ParseError.
    const error = thrown instanceof ParseError && thrown.cause !== undefined ? thrown.cause : thrown;
    if (error instanceof ApiError) return { status: error.status, headers: error.headers, body: errorBody(error.errorCode, error.message) };
    if (error instanceof ValidationError) {
      // A response outside its own schema is our bug, not the caller's.
      if (error.type === 'response') return internal(error, request);
      return { status: 400, headers: {}, body: errorBody('VALIDATION_FAILED', validationMessage(error)) };
    }
    if (error instanceof NotFoundError) {
      return { status: 404, headers: {}, body: errorBody('ROUTE_NOT_FOUND', `no route ${request.method} ${splitUrl(request.url).pathname}`) };
    }
    if (error instanceof ParseError) {
      return { status: 400, headers: {}, body: errorBody('VALIDATION_FAILED', 'request body could not be parsed; send JSON with Content-Type: application/json') };
    }
    const full = diskFullCode(error);
    if (full) return storageFull(error, full, request);
    return internal(error, request);
  };
}

/** What could not be written, for the person reading the answer: a file, the record of an event, or the database. */
function whatFailed(error: unknown, root: string | undefined): string {
  const shown = (path: string) => (root && isAbsolute(path) && !relative(root, path).startsWith('..') ? relative(root, path) : path);
  if (error instanceof FileWriteError) return shown(error.path);
  if (error instanceof RecordWriteError) return `${error.what} (in the database)`;
  const path = (error as { path?: unknown }).path;
  if (typeof path === 'string') return shown(path);
  if ((error as { code?: unknown }).code === 'SQLITE_FULL') return 'the change (in the database)';
  return 'the change';
}
