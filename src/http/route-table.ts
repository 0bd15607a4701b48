import type { AnyRoute, HttpMethod, SocketSpec } from './route';

export type Endpoint = { kind: 'route'; route: AnyRoute } | { kind: 'socket'; socket: SocketSpec };

interface Entry {
  segments: string[];
  wildcard: boolean;
  endpoint: Endpoint;
}

/**
 * Finds the declared endpoint of a request before the framework routes it, so auth, rate
 * limits and body limits are decided in one place ahead of parsing and validation.
 * Static paths hit a map; patterns are few and checked segment by segment.
 */
export class RouteTable {
  private readonly exact = new Map<string, Endpoint>();
  private readonly patterns = new Map<string, Entry[]>();

  constructor(routes: readonly AnyRoute[], sockets: readonly SocketSpec[]) {
    for (const route of routes) this.add(route.method, route.path, { kind: 'route', route });
    for (const socket of sockets) this.add('GET', socket.path, { kind: 'socket', socket });
  }

  match(rawMethod: string, rawPath: string): Endpoint | undefined {
    // The framework answers HEAD with the GET handler; a trailing slash is matched leniently
    // here (stricter than needed is harmless: the router itself is strict about it).
    const method = rawMethod === 'HEAD' ? 'GET' : rawMethod;
    const pathname = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const exact = this.exact.get(`${method} ${pathname}`);
    if (exact) return exact;
    const entries = this.patterns.get(method);
    if (!entries) return undefined;
    const parts = pathname.split('/');
    for (const entry of entries) if (matches(entry, parts)) return entry.endpoint;
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
