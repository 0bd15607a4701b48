import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import { ActiveIndex } from './active-index';
import { CheckAnswers, kickMessageOf } from './checks';
import { parseDuration } from './duration';
import { normalizeIp } from './ip';
import type { MessageTemplates } from './messages';
import { kindOf, ONE_OFF, PUNISHMENT_TYPES, SCOPES, TEMPORARY, type IssueBody, type Punishment, type PunishmentType } from './model';
import type { NameResolver } from './names';
import type { ListFilter, PunishmentStore } from './store';

/**
 * Who issues or lifts a punishment, from the credential: a dashboard session is its player,
 * the console is `console`, an API token is what it may name (a proxy acting for staff) or
 * itself. Never taken from a body the caller may not vouch for.
 */
export interface Caller {
  /** Stored as `issuer`: a player uuid, `console`, or an API token's own word. */
  id: string;
  /** Stored as `issuerName` / `revokedBy`: what people read. */
  name: string;
  actor: Actor;
}

export interface PunishmentServiceDeps {
  store: PunishmentStore;
  bus: EventBus;
  names: NameResolver;
  templates: () => MessageTemplates;
  /** Carries out a KICK through the proxies; throws PROXY_NOT_AVAILABLE / PLAYER_NOT_ONLINE. */
  kick: (player: { uuid: string; name: string }, message: string) => void;
  checkCacheTtlMs: number;
  now?: () => number;
}

/** A type or scope in any case, or the field named in a 400. */
function oneOf<T extends string>(values: readonly T[], raw: string, field: string): T {
  const upper = raw.trim().toUpperCase();
  const found = values.find((v) => v === upper);
  if (found === undefined) throw new ApiError('VALIDATION_FAILED', `${field} must be one of ${values.join(', ')} (any case), got "${raw}"`);
  return found;
}

export const parseType = (raw: string): PunishmentType => oneOf(PUNISHMENT_TYPES, raw, 'type');

const sameScope = (a: Pick<Punishment, 'scope' | 'scopeTarget'>, b: Pick<Punishment, 'scope' | 'scopeTarget'>) =>
  a.scope === b.scope && (a.scopeTarget ?? '').toLowerCase() === (b.scopeTarget ?? '').toLowerCase();

/**
 * Issuing, lifting and expiring punishments, and the checks plugins ask. The table is the
 * truth; the index of records in force follows every change made here, and events go out
 * once the change is stored.
 */
export class PunishmentService {
  readonly index = new ActiveIndex();
  readonly checks: CheckAnswers;
  private readonly now: () => number;

  constructor(private readonly deps: PunishmentServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.checks = new CheckAnswers(this.index, deps.templates, deps.checkCacheTtlMs, deps.now);
    this.index.load(deps.store.allActive());
  }

  /**
   * Validates the body (spec order, every problem before any network call), resolves the
   * target, carries out a KICK, stores the record and supersedes what it replaces.
   */
  async issue(body: IssueBody, caller: Caller): Promise<Punishment> {
    const type = parseType(body.type);
    const targetIp = this.targetIpOf(type, body.targetIp);
    const scope = oneOf(SCOPES, body.scope ?? 'NETWORK', 'scope');
    const scopeTarget = scope === 'NETWORK' ? null : (body.scopeTarget?.trim() ?? '');
    if (scopeTarget === '') throw new ApiError('VALIDATION_FAILED', `scopeTarget is required for a ${scope} punishment: the ${scope.toLowerCase()} it applies in`);
    const expiresIn = this.durationOf(type, body.duration);
    if (body.targetName.trim() === '' && (body.targetUuid ?? '').trim() === '') throw new ApiError('PUNISHMENT_TARGET_INVALID', 'targetName is blank: name the player, or give targetUuid');
    const target = await this.deps.names.resolve(body.targetUuid, body.targetName);
    const now = this.now();
    const record = {
      type,
      targetUuid: target.uuid,
      targetName: target.name,
      targetIp,
      reason: (body.reason ?? '').trim(),
      issuer: caller.id,
      issuerName: caller.name,
      issuedAt: now,
      expiresAt: expiresIn === null ? null : now + expiresIn,
      active: !ONE_OFF.has(type),
      scope,
      scopeTarget,
    };
    const kickMessage = kickMessageOf({ ...record, id: 0, revokedBy: null, revokedAt: null, revokeReason: null }, this.deps.templates(), now);
    // One console line: line breaks of the template become spaces (the console refuses CR and LF).
    if (type === 'KICK') this.deps.kick(target, kickMessage.replace(/[\r\n]+/g, ' '));
    // The record, what it supersedes and their audit entries are stored together or not at all
    // (a full disk fails the request rather than keep a punishment nobody audited).
    const { created, superseded } = this.deps.bus.transaction(() => {
      const created = this.deps.store.insert(record);
      const superseded = this.supersede(created, caller);
      for (const old of superseded) this.publishRevoked(old, caller.actor);
      this.deps.bus.publish(
        'PUNISHMENT_ISSUED',
        {
          id: String(created.id),
          type: created.type,
          target: created.targetName,
          targetUuid: created.targetUuid,
          issuer: created.issuerName,
          reason: created.reason,
          expiresAt: created.expiresAt === null ? '' : new Date(created.expiresAt).toISOString(),
          scope: created.scope,
          ...(created.scopeTarget !== null ? { scopeTarget: created.scopeTarget } : {}),
          kickMessage,
        },
        caller.actor,
      );
      return { created, superseded };
    });
    for (const old of superseded) this.index.remove(old.id);
    this.index.add(created);
    this.checks.invalidate();
    return created;
  }

  /** Lifts a record in force; 404 when unknown, 409 when it is no longer (or never was) in force. */
  revoke(id: number, caller: Pick<Caller, 'name' | 'actor'>, reason: string): Punishment {
    const existing = this.get(id);
    if (ONE_OFF.has(existing.type)) throw new ApiError('PUNISHMENT_ALREADY_REVOKED', `punishment ${id} is a ${existing.type}: there is nothing to lift`);
    if (!existing.active) throw new ApiError('PUNISHMENT_ALREADY_REVOKED', `punishment ${id} is not in force (${existing.revokedAt !== null ? `revoked by ${existing.revokedBy}` : 'expired'})`);
    const now = this.now();
    if (existing.expiresAt !== null && existing.expiresAt <= now) throw new ApiError('PUNISHMENT_ALREADY_REVOKED', `punishment ${id} has already expired`);
    // The change and its audit entry together, or neither.
    const revoked = this.deps.bus.transaction(() => {
      const revoked = this.deps.store.revoke(id, { by: caller.name, at: now, reason: reason.trim() === '' ? null : reason.trim() });
      if (revoked) this.publishRevoked(revoked, caller.actor);
      return revoked;
    });
    // Lifted by someone else between the read and the write: the same answer as arriving second.
    if (!revoked) throw new ApiError('PUNISHMENT_ALREADY_REVOKED', `punishment ${id} is not in force`);
    this.index.remove(id);
    this.checks.invalidate();
    return revoked;
  }

  /** Ends every record whose time is up (the expiry loop); returns how many. */
  expireDue(): number {
    const ended = this.deps.bus.transaction(() => {
      const ended = this.deps.store.expireDue(this.now());
      for (const p of ended) this.deps.bus.publish('PUNISHMENT_EXPIRED', { id: String(p.id), type: p.type, target: p.targetName });
      return ended;
    });
    if (ended.length === 0) return 0;
    for (const p of ended) this.index.remove(p.id);
    this.checks.invalidate();
    return ended.length;
  }

  get(id: number): Punishment {
    const p = this.deps.store.get(id);
    if (!p) throw new ApiError('PUNISHMENT_NOT_FOUND', `no punishment with id ${id}`);
    return p;
  }

  list(filter: { active: boolean; type?: PunishmentType }, limit: number, offset: number) {
    const where: ListFilter = { ...(filter.active ? { activeAt: this.now() } : {}), ...(filter.type ? { type: filter.type } : {}) };
    return this.deps.store.list(where, limit, offset);
  }

  history(uuid: string, limit: number) {
    return this.deps.store.history(uuid, limit);
  }

  /** Records in force on a player, newest first (the console's unban / unmute). */
  activeOf(uuid: string): Punishment[] {
    const now = this.now();
    return this.index
      .ofPlayer(uuid)
      .filter((p) => p.expiresAt === null || p.expiresAt > now)
      .sort((a, b) => b.id - a.id);
  }

  /** `now` as the service sees it (tests move it). */
  time(): number {
    return this.now();
  }

  private targetIpOf(type: PunishmentType, raw: string | null | undefined): string | null {
    const text = raw?.trim() ?? '';
    if (text === '') {
      if (type === 'IPBAN') throw new ApiError('PUNISHMENT_TARGET_INVALID', 'an IPBAN needs targetIp: the address to block');
      return null;
    }
    const ip = normalizeIp(text);
    if (ip === undefined) throw new ApiError('PUNISHMENT_TARGET_INVALID', `targetIp "${text}" is not an IPv4 or IPv6 address`);
    return ip;
  }

  /** Ms until the end, or null when permanent; KICK and WARN ignore any duration. */
  private durationOf(type: PunishmentType, raw: string | null | undefined): number | null {
    if (ONE_OFF.has(type)) return null;
    const text = raw?.trim() ?? '';
    if (text === '') {
      if (TEMPORARY.has(type)) throw new ApiError('PUNISHMENT_DURATION_INVALID', `a ${type} needs a duration, like 30m, 1d12h, 2w or 2mo`);
      return null;
    }
    const duration = parseDuration(text);
    if (duration.permanent) {
      if (TEMPORARY.has(type)) throw new ApiError('PUNISHMENT_DURATION_INVALID', `a ${type} cannot be permanent; use ${type === 'TEMPBAN' ? 'BAN' : 'MUTE'} for that`);
      return null;
    }
    return duration.ms;
  }

  /** Lifts the records in force that the new one replaces: same player, same kind, same scope. */
  private supersede(created: Punishment, caller: Caller): Punishment[] {
    const kind = kindOf(created.type);
    if (kind === 'once') return [];
    const replaced = this.index.ofPlayer(created.targetUuid).filter((p) => p.id !== created.id && kindOf(p.type) === kind && sameScope(p, created));
    const reason = `Superseded by punishment ${created.id}`;
    return replaced.map((p) => this.deps.store.revoke(p.id, { by: caller.name, at: created.issuedAt, reason })).filter((p): p is Punishment => p !== undefined);
  }

  private publishRevoked(p: Punishment, actor: Actor): void {
    this.deps.bus.publish('PUNISHMENT_REVOKED', { id: String(p.id), type: p.type, target: p.targetName, revokedBy: p.revokedBy ?? 'unknown', reason: p.revokeReason ?? '' }, actor);
  }
}
