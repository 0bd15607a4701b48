import type { Group } from '../groups/model';
import type { ServiceState } from '../services/lifecycle';

/**
 * The scaling rule, as a pure function of what one tick saw. Every decision carries its
 * reason in words, for the log and the events.
 *
 *   stop-on-empty  a READY instance of a stopOnEmpty group whose players have all left: stop it
 *   refill         fewer live instances than minInstances: start the missing ones (no cooldown)
 *   scale up       nothing booting, the up cooldown over, routable < maxInstances, and either
 *                  no routable instance at all, or players / (routable × playersPerInstance)
 *                  strictly above scaleThreshold: start one
 *   scale down     no start this tick, the down cooldown over, idleTimeout > 0, routable >
 *                  minInstances: drain and stop the last routable instance whose fresh count
 *                  read zero twice in a row and that has been empty longer than idleTimeout
 *   blocked        a start is due but the machine limits refuse it (max_services, max_memory)
 *
 * Routable = READY without a customState (a server in a game is not where players go).
 */

export type ScalingGroup = Pick<Group, 'name' | 'minInstances' | 'maxInstances' | 'playersPerInstance' | 'scaleThreshold' | 'idleTimeout' | 'stopOnEmpty'>;

export interface ServiceReading {
  name: string;
  state: ServiceState;
  customState: string;
  /** A warm-pool instance: neither running nor routable. */
  pooled: boolean;
  playerCount: number;
  /** The count is current: an SDK report, the proxy roster or a Server List Ping this tick. */
  fresh: boolean;
  /** Consecutive ticks with a fresh count of zero. */
  zeroReadings: number;
  /** Milliseconds since it last had a player (since READY when it never had one). */
  idleMs: number;
  /** It had players since it became READY and a fresh count now reads zero. */
  emptied: boolean;
}

export interface ScalingInput {
  group: ScalingGroup;
  /** Every instance of the group the controller knows, any state. */
  services: readonly ServiceReading[];
  /** Replacements of crashed instances still waiting out their restart backoff. */
  pendingRestarts: number;
  /** Monotonic ms, like the two below: only the cooldowns are measured on it. */
  now: number;
  lastScaleUpAt: number | null;
  lastScaleDownAt: number | null;
  /** How many more instances of this group fit on this machine (max_services, max_memory). */
  fits: number;
  /** Why one more than `fits` would not fit. */
  placement: string;
  upCooldownMs: number;
  downCooldownMs: number;
  /** What set minInstances when it is not the group's own (a schedule rule…), for the reasons. */
  minimumSource?: string;
}

export type ScalingDecision =
  /** `cause`: a refill up to minInstances, or the load (fill above the threshold, nothing routable). */
  | { kind: 'up'; count: number; from: number; to: number; reason: string; cause: 'minimum' | 'load' }
  | { kind: 'down'; service: string; reason: string }
  | { kind: 'blocked'; reason: string }
  | { kind: 'hold'; reason: string };

const BOOTING: ReadonlySet<ServiceState> = new Set(['PREPARING', 'STARTING']);
const LIVE: ReadonlySet<ServiceState> = new Set(['PREPARING', 'STARTING', 'READY']);
const HOLDING_A_SLOT: ReadonlySet<ServiceState> = new Set(['PREPARING', 'PREPARED', 'STARTING', 'READY', 'DRAINING', 'STOPPING']);

export function decideScaling(input: ScalingInput): ScalingDecision[] {
  const { group, now } = input;
  const own = input.services.filter((s) => !s.pooled);
  const decisions: ScalingDecision[] = [];

  // Stop-on-empty first: the refill below then counts these as gone and replaces them fresh.
  const emptied = group.stopOnEmpty ? own.filter((s) => s.state === 'READY' && s.emptied) : [];
  for (const service of emptied) decisions.push({ kind: 'down', service: service.name, reason: 'stop-on-empty: its last player left' });
  const leaving = new Set(emptied.map((s) => s.name));

  const remaining = own.filter((s) => !leaving.has(s.name));
  const live = remaining.filter((s) => LIVE.has(s.state)).length + input.pendingRestarts;
  // maxInstances counts every instance holding a slot, those on their way out included.
  const slotsLeft = group.maxInstances - own.filter((s) => HOLDING_A_SLOT.has(s.state)).length - input.pendingRestarts;
  const routable = remaining.filter((s) => s.state === 'READY' && s.customState === '');

  if (live < group.minInstances) {
    const count = Math.min(group.minInstances - live, Math.max(0, slotsLeft));
    if (count === 0) return [...decisions, { kind: 'hold', reason: `below minInstances (${live} of ${group.minInstances}) but every slot up to maxInstances ${group.maxInstances} is taken` }];
    const placed = Math.min(count, input.fits);
    const minimum = input.minimumSource === undefined ? 'minInstances' : `the minimum of ${input.minimumSource}`;
    if (placed > 0) decisions.push({ kind: 'up', count: placed, from: live, to: live + placed, reason: `below ${minimum} (${live} of ${group.minInstances})`, cause: 'minimum' });
    if (placed < count) decisions.push({ kind: 'blocked', reason: input.placement });
    return decisions;
  }

  const up = scaleUpReason(input, remaining, routable);
  if (up.due) {
    if (slotsLeft <= 0) return [...decisions, { kind: 'hold', reason: `${up.reason}, but the group is at maxInstances ${group.maxInstances}` }];
    if (input.fits < 1) return [...decisions, { kind: 'blocked', reason: input.placement }];
    return [...decisions, { kind: 'up', count: 1, from: live, to: live + 1, reason: up.reason, cause: 'load' }];
  }
  if (decisions.length > 0) return decisions;

  const down = scaleDownCandidate(input, routable);
  if (down.service) return [{ kind: 'down', service: down.service, reason: down.reason }];
  return [{ kind: 'hold', reason: up.reason === '' ? down.reason : `${up.reason}; ${down.reason}` }];
}

function scaleUpReason(input: ScalingInput, remaining: readonly ServiceReading[], routable: readonly ServiceReading[]): { due: boolean; reason: string } {
  const { group, now } = input;
  const booting = remaining.filter((s) => BOOTING.has(s.state)).length + input.pendingRestarts;
  if (booting > 0) return { due: false, reason: `${booting} instance(s) still starting` };
  if (routable.length >= group.maxInstances) return { due: false, reason: `${routable.length} routable, at maxInstances` };
  if (input.lastScaleUpAt !== null && now - input.lastScaleUpAt < input.upCooldownMs) {
    return { due: false, reason: `scale-up cooldown (${Math.ceil((input.upCooldownMs - (now - input.lastScaleUpAt)) / 1000)} s left)` };
  }
  if (routable.length === 0) {
    return group.minInstances > 0 ? { due: true, reason: 'no routable instance (every READY one has a custom state)' } : { due: false, reason: 'no routable instance and minInstances is 0' };
  }
  const players = routable.reduce((sum, s) => sum + s.playerCount, 0);
  const capacity = routable.length * group.playersPerInstance;
  const fill = players / capacity;
  const figures = `${players} players on ${routable.length} routable (capacity ${capacity}, fill ${fill.toFixed(2)}, threshold ${group.scaleThreshold})`;
  return fill > group.scaleThreshold ? { due: true, reason: `fill above threshold: ${figures}` } : { due: false, reason: figures };
}

function scaleDownCandidate(input: ScalingInput, routable: readonly ServiceReading[]): { service: string | null; reason: string } {
  const { group, now } = input;
  if (group.idleTimeout <= 0) return { service: null, reason: 'idleTimeout 0: no scale-down' };
  if (routable.length <= group.minInstances) {
    return { service: null, reason: `routable ${routable.length} ≤ ${input.minimumSource === undefined ? 'minInstances' : `the minimum of ${input.minimumSource}`} ${group.minInstances}` };
  }
  if (input.lastScaleDownAt !== null && now - input.lastScaleDownAt < input.downCooldownMs) {
    return { service: null, reason: `scale-down cooldown (${Math.ceil((input.downCooldownMs - (now - input.lastScaleDownAt)) / 1000)} s left)` };
  }
  const idleMs = group.idleTimeout * 1000;
  const idle = routable.filter((s) => s.fresh && s.playerCount === 0 && s.zeroReadings >= 2 && s.idleMs > idleMs);
  const last = idle.at(-1); // the highest-numbered: lobbies fill from the lowest
  if (!last) return { service: null, reason: 'no instance idle long enough' };
  return { service: last.name, reason: `idle for ${Math.floor(last.idleMs / 1000)} s (idleTimeout ${group.idleTimeout} s), ${routable.length} routable > minInstances ${group.minInstances}` };
}

/**
 * A group's bounds for a while (the smart scaling module's schedule rule, warm-up or
 * prediction): a minimum above the group's own and, optionally, a lower maximum.
 */
export interface ScalingOverride {
  minInstances: number;
  maxInstances: number | null;
  /** Says where it comes from, in the decisions' reasons: `schedule rule "peak"`. */
  source: string;
}

/**
 * The bounds the engine works with under an override: the minimum is the higher of the two,
 * the maximum the lower, and neither crosses the group's own limits (the override never lowers
 * the group's minimum nor raises its maximum). So the idle scale-down keeps what the schedule
 * needs, and the refill starts what it asks for, in one engine: the two cannot flap.
 */
export function effectiveBounds(group: Pick<Group, 'minInstances' | 'maxInstances'>, override: ScalingOverride | null): { minInstances: number; maxInstances: number } {
  if (!override) return { minInstances: group.minInstances, maxInstances: group.maxInstances };
  const maxInstances = override.maxInstances === null ? group.maxInstances : Math.max(group.minInstances, Math.min(group.maxInstances, override.maxInstances));
  const minInstances = Math.min(maxInstances, Math.max(group.minInstances, override.minInstances));
  return { minInstances, maxInstances };
}
