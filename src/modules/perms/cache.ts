import { resolve, type Resolution, type SharedResolution } from './resolve';
import type { PermPlayer, PermSnapshot, Where } from './types';

/** Entries kept before the cache starts over (a bound, not a tuning knob: a full cache costs one resolve per player). */
const MAX_PLAYERS = 100_000;
const MAX_SHARED = 20_000;

/**
 * Resolutions per (uuid, server, world), and the decisions players with the same groups share.
 * A group change clears everything (any player may count that group); a player change clears
 * that player; an answer is recomputed once a row it relied on expires, before the sweeper
 * has even deleted that row.
 */
export class ResolutionCache {
  private readonly byPlayer = new Map<string, Map<string, Resolution>>();
  private readonly shared = new Map<string, SharedResolution>();
  private players = 0;

  constructor(
    private readonly snapshot: () => PermSnapshot,
    private readonly playerOf: (uuid: string) => PermPlayer | undefined,
  ) {}

  get(uuid: string, where: Where, now: number): Resolution {
    const place = `${(where.server ?? '').toLowerCase()}\u0000${(where.world ?? '').toLowerCase()}`;
    let places = this.byPlayer.get(uuid);
    const hit = places?.get(place);
    if (hit && hit.validUntil > now) return hit;

    const resolution = resolve(this.snapshot(), this.playerOf(uuid), where, now, (signature) => this.shared.get(signature));
    if (!this.shared.has(resolution.shared.signature)) {
      if (this.shared.size >= MAX_SHARED) this.shared.clear();
      this.shared.set(resolution.shared.signature, resolution.shared);
    }
    if (!places) {
      if (this.players >= MAX_PLAYERS) this.clear();
      places = new Map();
      this.byPlayer.set(uuid, places);
    }
    if (!places.has(place)) this.players++;
    places.set(place, resolution);
    return resolution;
  }

  /** A group, or the default, changed: every answer may differ. */
  clear(): void {
    this.byPlayer.clear();
    this.shared.clear();
    this.players = 0;
  }

  /** One player's memberships changed. */
  forget(uuid: string): void {
    const places = this.byPlayer.get(uuid);
    if (!places) return;
    this.players -= places.size;
    this.byPlayer.delete(uuid);
  }
}

export type { SharedResolution };
