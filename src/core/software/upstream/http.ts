import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { VERSION } from '../../../version';
import { TtlCache } from './ttl-cache';

/**
 * Every upstream metadata service (PaperMC, Purpur, Fabric meta, Modrinth, …) is asked through
 * this one client: a User-Agent naming svc (PaperMC's downloads service refuses generic ones),
 * a bounded time per request, answers cached briefly per URL so a dashboard refreshing its
 * version pickers does not hammer the public services, and one error type naming the upstream.
 */

export const USER_AGENT = `svc/${VERSION} (self-hosted Minecraft network controller)`;

/** The User-Agent with the operator's `[software] contact` (PaperMC asks every client for one). */
export function userAgentFor(contact: string): string {
  const own = contact.trim();
  return own ? `svc/${VERSION} (self-hosted Minecraft network controller; +${own})` : USER_AGENT;
}

/** Metadata answers are small; a request that takes longer than this is treated as unreachable. */
export const METADATA_TIMEOUT_MS = 15_000;
/** How long a metadata answer is reused. */
export const METADATA_TTL_MS = 10 * 60 * 1000;

/**
 * An upstream could not be used: not reached (network, timeout, an error status), an answer in
 * an unexpected shape, or (status 404) it does not know what was asked. The message always
 * names the upstream and the URL.
 */
export class UpstreamError extends Error {
  constructor(
    /** Human name of the service: "PaperMC downloads service", "Modrinth". */
    readonly upstream: string,
    readonly url: string,
    readonly reason: string,
    /** The HTTP status when the upstream answered one (404: it does not know what was asked). */
    readonly status: number | null = null,
    /** False when it answered, but not in the format svc reads. */
    readonly reached = false,
  ) {
    super(status === 404 ? `${upstream} (${url}): ${reason}` : reached ? `${upstream} (${url}) ${reason}` : `${upstream} (${url}) could not be reached: ${reason}`);
    this.name = 'UpstreamError';
  }

  get notFound(): boolean {
    return this.status === 404;
  }
}

export interface UpstreamHttpOptions {
  timeoutMs?: number;
  ttlMs?: number;
  /** Injected clock for cache tests. */
  now?: () => number;
  userAgent?: () => string;
}

export class UpstreamHttp {
  private readonly cache: TtlCache<unknown>;
  private readonly timeoutMs: number;
  readonly userAgent: () => string;

  constructor(options: UpstreamHttpOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? METADATA_TIMEOUT_MS;
    this.userAgent = options.userAgent ?? (() => USER_AGENT);
    this.cache = new TtlCache(options.ttlMs ?? METADATA_TTL_MS, options.now);
  }

  /**
   * JSON at `url`, checked against `schema` (only the fields svc reads are declared). Cached per
   * URL; an answer in the wrong shape is not kept.
   */
  async json<S extends TSchema>(upstream: string, url: string, schema: S): Promise<Static<S>> {
    const body = await this.cache.get(`json ${url}`, async () => {
      const text = await this.fetchText(upstream, url, 'application/json');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new UpstreamError(upstream, url, 'answered something that is not JSON', null, true);
      }
      checkShape(upstream, url, schema, parsed);
      return parsed;
    });
    checkShape(upstream, url, schema, body);
    return body;
  }

  /** Text at `url` (maven metadata XML). Cached per URL. */
  async text(upstream: string, url: string): Promise<string> {
    const body = await this.cache.get(`text ${url}`, () => this.fetchText(upstream, url, 'text/plain, application/xml, */*'));
    return body as string;
  }

  /** Forgets every cached answer (tests, or an operator pointing a key at a new mirror). */
  clear(): void {
    this.cache.clear();
  }

  private async fetchText(upstream: string, url: string, accept: string): Promise<string> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { 'user-agent': this.userAgent(), accept },
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'follow',
      });
    } catch (error) {
      throw new UpstreamError(upstream, url, describeFetchError(error, this.timeoutMs));
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new UpstreamError(upstream, url, `it answered HTTP ${response.status}`, response.status);
    }
    try {
      return await response.text();
    } catch (error) {
      throw new UpstreamError(upstream, url, describeFetchError(error, this.timeoutMs));
    }
  }
}

function checkShape<S extends TSchema>(upstream: string, url: string, schema: S, body: unknown): asserts body is Static<S> {
  if (Value.Check(schema, body)) return;
  const first = [...Value.Errors(schema, body)][0];
  const where = first ? ` (${first.path || '/'}: ${first.message})` : '';
  throw new UpstreamError(upstream, url, `answered in an unexpected format${where}`, null, true);
}

/** A network failure in words an operator can act on. */
export function describeFetchError(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; code?: string; message?: string };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${seconds(timeoutMs)}`;
  if (err.code === 'ConnectionRefused' || err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return 'host name not resolved (no network?)';
  return err.message ?? String(error);
}

/** `300 s`, or `250 ms` below a second. */
export function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/** `base` without trailing slashes, so keys may be written either way. */
export function trimBase(base: string): string {
  return base.replace(/\/+$/, '');
}

/** The answer, or null when the upstream said it does not know what was asked (404); other failures are thrown. */
export async function nullIfNotFound<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof UpstreamError && error.notFound) return null;
    throw error;
  }
}
