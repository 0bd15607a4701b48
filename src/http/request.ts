/** Small readers of an incoming request, small and pure so they are cheap and testable. */

/**
 * Path and query of a request URL without building a URL object (hot path). The path stays
 * percent-encoded, as the router sees it.
 */
export function splitUrl(url: string): { pathname: string; search: string } {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return { pathname: '/', search: '' };
  const query = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  const end = query >= 0 ? query : hash >= 0 ? hash : url.length;
  return { pathname: url.slice(start, end), search: query >= 0 ? url.slice(query + 1, hash > query ? hash : url.length) : '' };
}

/** The bearer token of the Authorization header; '' for a malformed header, null when absent. */
export function bearerOf(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (!header) return null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1]!.trim() : '';
}

/**
 * The client address for rate limiting. Behind a trusted reverse proxy the right-most
 * X-Forwarded-For entry is the one that proxy saw; entries to its left are client-supplied.
 */
export function clientIp(request: Request, socketAddress: string | undefined, trustForwardedFor: boolean): string {
  return clientAddress(request.headers.get('x-forwarded-for'), socketAddress, trustForwardedFor);
}

/** The same rule from the header's value, for callers holding headers but no Request (sockets). */
export function clientAddress(forwardedFor: string | null | undefined, socketAddress: string | undefined, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const last = forwardedFor?.split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last) return last;
  }
  return socketAddress ?? 'unknown';
}

/**
 * The query string as an object: `+` is a space, escapes decoded (a malformed one kept as sent),
 * a repeated key is the last value unless `lists` names it (then every value, in order).
 */
export function parseQuery(search: string, lists?: ReadonlySet<string>): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (search === '') return query;
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = decodeQueryText(equals < 0 ? pair : pair.slice(0, equals));
    const value = equals < 0 ? '' : decodeQueryText(pair.slice(equals + 1));
    if (key === '__proto__') continue;
    const previous = query[key];
    if (lists?.has(key)) query[key] = previous === undefined ? [value] : [...(previous as string[]), value];
    else query[key] = value;
  }
  return query;
}

function decodeQueryText(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
