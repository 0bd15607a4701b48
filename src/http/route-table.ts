import type { AnyRoute, HttpMethod, SocketSpec } from './route';

export type Endpoint = { kind: 'route'; route: AnyRoute } | { kind: 'socket'; socket: SocketSpec };

/** A matched endpoint with its path parameters: named ones percent-decoded, the wildcard `*` as sent. */
export type Match = Endpoint & { params: Record<string, string> };

interface Entry {
  segments: string[];
  wildcard: boolean;
  endpoint: Endpoint;
}

/**
 * Finds the declared endpoint of a request: the guard asks first (leniently, so auth, rate
 * limits and body limits are decided ahead of parsing for every spelling of a route), then the
 * server dispatches on the strict match. Static paths hit a map; patterns are few and checked
 * segment by segment.
 */
export class RouteTable {
  private readonly exact = new Map<string, Endpoint>();
  private readonly patterns = new Map<string, Entry[]>();

  constructor(routes: readonly AnyRoute[], sockets: readonly SocketSpec[]) {
    for (const route of routes) this.add(route.method, route.path, { kind: 'route', route });
    for (const socket of sockets) this.add('GET', socket.path, { kind: 'socket', socket });
  }

  /**
   * The endpoint a method and raw (percent-encoded) path name. HEAD is answered by the GET
   * route. `strict`: one URL per resource, so `/api/groups/` is not `/api/groups` (the lenient
   * match, for the guard, drops a trailing slash: stricter than needed is harmless there).
   */
  match(rawMethod: string, rawPath: string, strict = false): Match | undefined {
    const method = rawMethod === 'HEAD' ? 'GET' : rawMethod;
    const pathname = !strict && rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const exact = this.exact.get(`${method} ${pathname}`);
    if (exact) return { ...exact, params: {} };
    const entries = this.patterns.get(method);
    if (!entries) return undefined;
    const parts = pathname.split('/');
    for (const entry of entries) if (matches(entry, parts)) return { ...entry.endpoint, params: paramsOf(entry, parts) };
    return undefined;
  }

  private add(method: HttpMethod | 'GET', path: string, endpoint: Endpoint): void {
    const key = `${method} ${path}`;
    if (!path.includes(':') && !path.includes('*')) {
      if (this.exact.has(key)) throw new Error(`route ${key} declared twice`);
      this.exact.set(key, endpoint);
      return;
    }
    const segments = path.split('/');
    const wildcard = segments[segments.length - 1] === '*';
    if (wildcard) segments.pop();
    const list = this.patterns.get(method) ?? [];
    list.push({ segments, wildcard, endpoint });
    // Literal segments win over parameters: sort patterns with more literals first.
    list.sort((a, b) => literalCount(b) - literalCount(a));
    this.patterns.set(method, list);
  }
}

function literalCount(entry: Entry): number {
  return entry.segments.filter((s) => !s.startsWith(':')).length * 2 + (entry.wildcard ? 0 : 1);
}

function matches(entry: Entry, parts: string[]): boolean {
  const { segments, wildcard } = entry;
  if (wildcard ? parts.length < segments.length : parts.length !== segments.length) return false;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.startsWith(':')) {
      if (parts[i] === '') return false;
    } else if (s !== parts[i]) return false;
  }
  return true;
}

function paramsOf(entry: Entry, parts: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  const { segments } = entry;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.startsWith(':')) params[s.slice(1)] = decodeSegment(parts[i]!);
  }
  if (entry.wildcard) params['*'] = parts.slice(segments.length).join('/');
  return params;
}

/** A named parameter as the handler sees it; a malformed escape stays as sent (its schema refuses it). */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
