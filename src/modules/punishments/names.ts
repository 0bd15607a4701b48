import { ApiError } from '../../errors';
import { normalizeUuid, PLAYER_NAME_PATTERN } from '../../core/players/uuid';
import type { KnownPlayer, PlayerDirectory } from '../services';
import { monotonicNow } from '../../core/time/monotonic';

/** How long a found name is trusted (names can change hands, slowly) and a missing one remembered. */
export const LOOKUP_HIT_TTL_MS = 60 * 60 * 1000;
export const LOOKUP_MISS_TTL_MS = 60 * 1000;
export const LOOKUP_TIMEOUT_MS = 3000;
const CACHE_LIMIT = 10_000;
const NAME_RE = new RegExp(PLAYER_NAME_PATTERN);

interface Remembered {
  player: KnownPlayer | null;
  until: number;
}

export interface NameResolverOptions {
  /** `[punishments] name_lookup_url`: GET <url>/<name> answers `{id, name}` (Mojang's profile API format); blank turns lookups off. */
  lookupUrl: string;
  /** The players module's directory, when it is installed. */
  players: () => PlayerDirectory | undefined;
  now?: () => number;
  timeoutMs?: number;
}

/**
 * Who an issue targets. In order: a UUID-shaped `targetUuid` or `targetName`; a player the
 * players module has seen (right for offline-mode networks, and no network call); then the
 * name lookup service, with answers and misses remembered. Only the issue route calls this:
 * the login and chat checks take uuids and never wait on the network.
 */
export class NameResolver {
  private readonly remembered = new Map<string, Remembered>();
  private readonly inFlight = new Map<string, Promise<KnownPlayer | null>>();
  private readonly now: () => number;

  constructor(private readonly options: NameResolverOptions) {
    // Remembered answers age on the monotonic clock.
    this.now = options.now ?? monotonicNow;
  }

  async resolve(targetUuid: string | null | undefined, targetName: string): Promise<KnownPlayer> {
    const name = targetName.trim();
    const givenUuid = targetUuid?.trim() ?? '';
    // A name travels in console commands (kicks) and messages: one token of a player name's characters.
    if (name !== '' && normalizeUuid(name) === undefined && !NAME_RE.test(name)) {
      throw new ApiError('PUNISHMENT_TARGET_INVALID', `targetName "${name}" is not a player name (letters, digits and _ . * + -, at most 32) or a uuid`);
    }
    if (givenUuid !== '') {
      const uuid = normalizeUuid(givenUuid);
      if (uuid === undefined) throw new ApiError('PUNISHMENT_TARGET_INVALID', `targetUuid "${givenUuid}" is not a uuid (8-4-4-4-12 hex digits, or 32 without dashes)`);
      return { uuid, name: name !== '' ? name : (this.options.players()?.knownByUuid(uuid)?.name ?? uuid) };
    }
    if (name === '') throw new ApiError('PUNISHMENT_TARGET_INVALID', 'targetName is blank: name the player, or give targetUuid');
    const nameAsUuid = normalizeUuid(name);
    if (nameAsUuid !== undefined) return { uuid: nameAsUuid, name: this.options.players()?.knownByUuid(nameAsUuid)?.name ?? name };
    const seen = this.options.players()?.knownByName(name);
    if (seen) return seen;
    const looked = await this.lookUp(name);
    if (looked) return looked;
    const where = this.options.lookupUrl === '' ? 'the name lookup is off ([punishments] name_lookup_url is blank)' : 'the name lookup service does not know it either';
    throw new ApiError('PUNISHMENT_TARGET_INVALID', `no player named "${name}": no such player has been on this network and ${where}; give targetUuid`, 404);
  }

  private async lookUp(name: string): Promise<KnownPlayer | null> {
    if (this.options.lookupUrl === '') return null;
    const key = name.toLowerCase();
    const kept = this.remembered.get(key);
    if (kept !== undefined && kept.until > this.now()) return kept.player;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const asking = this.fetchProfile(name).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, asking);
    return asking;
  }

  private async fetchProfile(name: string): Promise<KnownPlayer | null> {
    const timeoutMs = this.options.timeoutMs ?? LOOKUP_TIMEOUT_MS;
    const host = safeHost(this.options.lookupUrl);
    const url = profileUrl(this.options.lookupUrl, name);
    if (url === undefined) throw unavailable("the name lookup service has a misconfigured URL ([punishments] name_lookup_url is not a URL)");
    const silent = () => unavailable(`the name lookup service (${host}) did not answer within ${timeoutMs / 1000} s`);
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    } catch (error) {
      throw (error as Error).name === 'TimeoutError' ? silent() : unavailable(`the name lookup service (${host}) could not be reached`);
    }
    if (response.status === 204 || response.status === 404) {
      await response.body?.cancel();
      this.remember(name, null, LOOKUP_MISS_TTL_MS);
      return null;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw unavailable(`the name lookup service (${host}) answered ${response.status}${response.status === 429 ? ' (too many requests)' : ''}`);
    }
    let body: { id?: unknown; name?: unknown } | null;
    try {
      body = (await response.json()) as { id?: unknown; name?: unknown } | null;
    } catch (error) {
      // Headers came, then the body stalled past the timeout, or it was not JSON.
      if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') throw silent();
      body = null;
    }
    const uuid = typeof body?.id === 'string' ? normalizeUuid(body.id) : undefined;
    if (uuid === undefined) throw unavailable(`the name lookup service (${host}) answered without a uuid in "id"`);
    const player = { uuid, name: typeof body!.name === 'string' && NAME_RE.test(body!.name) ? body!.name : name };
    this.remember(name, player, LOOKUP_HIT_TTL_MS);
    return player;
  }

  private remember(name: string, player: KnownPlayer | null, ttl: number): void {
    if (this.remembered.size >= CACHE_LIMIT) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(name.toLowerCase(), { player, until: this.now() + ttl });
  }
}

/** `<url>/<name>`, keeping a query string (an API key) where it was; undefined when the setting is no URL. */
function profileUrl(base: string, name: string): string | undefined {
  try {
    const url = new URL(base);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeURIComponent(name)}`;
    return url.href;
  } catch {
    return undefined;
  }
}

const unavailable = (what: string) => new ApiError('SERVICE_UNAVAILABLE', `${what}; try again, or give targetUuid`);

/** The host of the lookup URL, for messages (never its path or query, which might carry a key). */
export function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'misconfigured URL';
  }
}
