import { isIP } from '../net/ip';
import { monotonicNow } from '../time/monotonic';

/** How long one lookup may take before the session is announced with "unknown". */
export const LOCATION_TIMEOUT_MS = 2000;
const CACHE_LIMIT = 1000;
const CACHE_TTL_MS = 60 * 60 * 1000;

export type FetchLike = (url: string, init: { signal: AbortSignal }) => Promise<Response>;

/**
 * Resolves a remote console's IP to "City, Country" through the configured lookup URL
 * (`{ip}` replaced). No URL: "unknown". Loopback and private addresses never leave the
 * machine: "local network". A failed or slow lookup is "unknown", never an error.
 */
export class LocationLookup {
  private readonly cache = new Map<string, { location: string; until: number }>();

  constructor(
    private readonly urlTemplate: () => string,
    private readonly fetcher: FetchLike = fetch,
  ) {}

  async locate(ip: string): Promise<string> {
    const template = this.urlTemplate().trim();
    if (template === '') return 'unknown';
    if (isLocalAddress(ip)) return 'local network';
    const cached = this.cache.get(ip);
    if (cached && cached.until > monotonicNow()) return cached.location;
    const location = await this.ask(template.replaceAll('{ip}', encodeURIComponent(ip)));
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(ip, { location, until: monotonicNow() + CACHE_TTL_MS });
    return location;
  }

  private async ask(url: string): Promise<string> {
    try {
      const response = await this.fetcher(url, { signal: AbortSignal.timeout(LOCATION_TIMEOUT_MS) });
      if (!response.ok) return 'unknown';
      return placeOf((await response.json()) as Record<string, unknown>);
    } catch {
      return 'unknown';
    }
  }
}

/** "City, Region, Country" from the common lookup shapes (ip-api.com, ipapi.co, ipinfo.io). */
export function placeOf(answer: Record<string, unknown>): string {
  const text = (key: string) => (typeof answer[key] === 'string' && (answer[key] as string).trim() !== '' ? (answer[key] as string).trim().slice(0, 64) : undefined);
  const parts = [text('city'), text('regionName') ?? text('region'), text('country_name') ?? text('country')].filter((p): p is string => p !== undefined);
  return parts.length === 0 ? 'unknown' : [...new Set(parts)].join(', ');
}

/** Loopback, private (RFC 1918, unique-local), link-local and unspecified addresses. */
export function isLocalAddress(ip: string): boolean {
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIP(address) === 4) {
    const [a, b] = address.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (isIP(address) === 6) {
    const lower = address.toLowerCase();
    return lower === '::1' || lower === '::' || lower.startsWith('fc') || lower.startsWith('fd') || lower.startsWith('fe80');
  }
  return true; // not an address at all (a unix socket, "unknown"): nothing to look up
}
