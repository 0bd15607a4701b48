/** What a handler may set besides its return value. */
export interface ResponseSet {
  status?: number | string;
  headers: Record<string, string | number>;
}

const JSON_TYPE = 'application/json;charset=utf-8';
const TEXT_TYPE = 'text/plain;charset=utf-8';

/** The numeric status `set.status` holds (200 when unset or not a number). */
export function statusOf(set: ResponseSet): number {
  const status = typeof set.status === 'string' ? Number(set.status) : set.status;
  return typeof status === 'number' && Number.isInteger(status) ? status : 200;
}

function headersOf(set: ResponseSet, contentType?: string): Headers {
  const headers = new Headers();
  if (contentType !== undefined) headers.set('content-type', contentType);
  for (const [name, value] of Object.entries(set.headers)) headers.set(name, String(value));
  return headers;
}

/**
 * The HTTP answer for what a handler returned: a Response as it is (with the set headers it
 * lacks, such as CORS), nothing as an empty body, text as text, bytes, files and streams as
 * bytes, anything else as JSON.
 */
export function toResponse(value: unknown, set: ResponseSet): Response {
  const status = statusOf(set);
  if (value instanceof Response) return withSetHeaders(value, set, status);
  if (value === undefined || value === null) return new Response(null, { status, headers: headersOf(set) });
  if (typeof value === 'string') return new Response(value, { status, headers: headersOf(set, TEXT_TYPE) });
  if (value instanceof Blob || value instanceof ReadableStream || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    return new Response(value as Blob, { status, headers: headersOf(set) });
  }
  if (typeof value !== 'object') return new Response(String(value), { status, headers: headersOf(set, TEXT_TYPE) });
  return new Response(JSON.stringify(value), { status, headers: headersOf(set, JSON_TYPE) });
}

/**
 * A handler's own Response keeps its status and headers; the set headers it does not carry are
 * added. A status the handler set while returning a plain 200 Response wins, as it asked.
 */
function withSetHeaders(response: Response, set: ResponseSet, status: number): Response {
  const restatus = status !== 200 && response.status === 200;
  const answer = restatus ? new Response(response.body, { status, headers: new Headers(response.headers) }) : response;
  return withHeaders(answer, set.headers);
}

/** `response` with the given headers it does not already carry (a copy when its headers are immutable). */
export function withHeaders(response: Response, extra: Record<string, string | number>): Response {
  const names = Object.keys(extra);
  if (names.length === 0) return response;
  try {
    for (const name of names) if (!response.headers.has(name)) response.headers.set(name, String(extra[name]));
    return response;
  } catch {
    const headers = new Headers(response.headers);
    for (const name of names) if (!headers.has(name)) headers.set(name, String(extra[name]));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
