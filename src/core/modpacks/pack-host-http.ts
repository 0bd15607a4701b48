import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ApiError } from '../../errors';
import { USER_AGENT } from './user-agent';

/** API answers are small; one that takes longer than this counts as unreachable. */
export const API_TIMEOUT_MS = 30_000;

export interface PackHostRequest {
  /** Human name for messages: "Modrinth", "CurseForge". */
  host: string;
  url: string;
  headers?: Record<string, string>;
  /** A JSON body makes it a POST. */
  json?: unknown;
  signal?: AbortSignal;
  /** Said after the status when the host refuses the caller (401/403): "check [packhost] api_key". */
  refusedHint?: string;
}

/**
 * One JSON request to a modpack host, checked against `schema` (which declares only the fields
 * svc reads). Resolves null when the host answers 404 (it does not know what was asked); any
 * other failure (unreachable, timeout, an error status, an unexpected shape) is
 * MODPACK_UPLOAD_FAILED with status 502, naming the host and the URL.
 */
export async function packHostJson<S extends TSchema>(request: PackHostRequest, schema: S): Promise<Static<S> | null> {
  const timeout = AbortSignal.timeout(API_TIMEOUT_MS);
  const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
  const failed = (why: string) => {
    request.signal?.throwIfAborted();
    return new ApiError('MODPACK_UPLOAD_FAILED', `${request.host} (${request.url}) ${timeout.aborted ? `did not answer within ${API_TIMEOUT_MS / 1000} s` : why}`, 502);
  };
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT, ...request.headers };
  if (request.json !== undefined) headers['content-type'] = 'application/json';
  let text: string;
  let status: number;
  try {
    const response = await fetch(request.url, {
      method: request.json === undefined ? 'GET' : 'POST',
      headers,
      body: request.json === undefined ? undefined : JSON.stringify(request.json),
      signal,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    throw failed(`could not be reached: ${(error as Error).message}`);
  }
  if (status === 404) return null;
  if (status === 401 || status === 403) throw failed(`refused the request (${status})${request.refusedHint ? `: ${request.refusedHint}` : ''}`);
  if (status < 200 || status >= 300) throw failed(`answered ${status}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failed('answered something that is not JSON');
  }
  if (!Value.Check(schema, body)) {
    const first = Value.Errors(schema, body).First();
    throw failed(`answered an unexpected shape${first ? ` (${first.path || '/'}: ${first.message})` : ''}`);
  }
  return body as Static<S>;
}
