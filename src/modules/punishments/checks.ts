import type { ActiveIndex } from './active-index';
import { renderMessage, type MessageKey, type MessageTemplates } from './messages';
import type { CheckAnswer, Punishment } from './model';
import { decide, type Where } from './precedence';
import { monotonicNow, type Clock } from '../../core/time/monotonic';

/** Answers kept at most this many; past it the cache starts over (a flood of distinct keys cannot grow it). */
const CACHE_LIMIT = 100_000;

export const NOT_PUNISHED: CheckAnswer = {
  punished: false,
  id: null,
  type: null,
  reason: null,
  issuerName: null,
  issuedAt: null,
  expiresAt: null,
  remainingSeconds: null,
  scope: null,
  scopeTarget: null,
  kickMessage: null,
};
const NOT_PUNISHED_JSON = JSON.stringify(NOT_PUNISHED);

/** The template a record is shown with: a ban or mute with an end reads like its temporary kind. */
export function templateKeyOf(p: Pick<Punishment, 'type' | 'expiresAt'>): MessageKey {
  if (p.type === 'BAN' && p.expiresAt !== null) return 'tempban';
  if (p.type === 'MUTE' && p.expiresAt !== null) return 'tempmute';
  return p.type.toLowerCase() as MessageKey;
}

/** The message a player gets for this record, rendered at `now`. */
export function kickMessageOf(p: Punishment, templates: MessageTemplates, now: number): string {
  return renderMessage(templates[templateKeyOf(p)], { type: p.type, target: p.targetName, issuer: p.issuerName, reason: p.reason, expiresAt: p.expiresAt, now });
}

export function answerOf(p: Punishment, templates: MessageTemplates, now: number): CheckAnswer {
  return {
    punished: true,
    id: p.id,
    type: p.type,
    reason: p.reason,
    issuerName: p.issuerName,
    issuedAt: new Date(p.issuedAt).toISOString(),
    expiresAt: p.expiresAt === null ? null : new Date(p.expiresAt).toISOString(),
    remainingSeconds: p.expiresAt === null ? null : Math.max(0, Math.ceil((p.expiresAt - now) / 1000)),
    scope: p.scope,
    scopeTarget: p.scopeTarget,
    kickMessage: kickMessageOf(p, templates, now),
  };
}

interface Cached {
  json: string;
  /** Wall-clock ms: the end of the record it reports (the answer dies with it). */
  until: number;
  /** Monotonic ms: the end of check_cache_ttl (a wall-clock step neither stretches nor cuts it). */
  keptUntil: number;
}

/**
 * The login and chat checks, the two hot paths: decided from the in-memory index and kept as
 * ready JSON for `check_cache_ttl` seconds (0: never kept). A kept answer never outlives the
 * record it reports (its end caps its life), and every issue, revoke and expiry drops them
 * all, so the cache only ever saves work and never delays a change.
 */
export class CheckAnswers {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly index: ActiveIndex,
    private readonly templates: () => MessageTemplates,
    private readonly ttlMs: number,
    now?: Clock,
    monotonic?: Clock,
  ) {
    // A test that fakes `now` alone drives both clocks.
    this.now = now ?? Date.now;
    this.mono = monotonic ?? now ?? monotonicNow;
  }

  private readonly now: Clock;
  private readonly mono: Clock;

  /** Whether the player may join: account and address bans that hold where they are going. */
  loginJson(uuid: string, ip: string | undefined, where: Where): string {
    return this.answer(`l\0${uuid}\0${ip ?? ''}\0${where.group ?? ''}\0${where.service ?? ''}`, () => this.index.loginCandidates(uuid, ip), where);
  }

  /** Whether the player may chat where they are. */
  muteJson(uuid: string, where: Where): string {
    return this.answer(`m\0${uuid}\0${where.group ?? ''}\0${where.service ?? ''}`, () => this.index.muteCandidates(uuid), where);
  }

  /** Forgets every kept answer (after any change to the records in force). */
  invalidate(): void {
    this.cache.clear();
  }

  private answer(key: string, candidates: () => readonly Punishment[], where: Where): string {
    const now = this.now();
    const mono = this.mono();
    const kept = this.cache.get(key);
    if (kept !== undefined && kept.until > now && kept.keptUntil > mono) return kept.json;
    const winner = decide(candidates(), where, now);
    const json = winner === undefined ? NOT_PUNISHED_JSON : JSON.stringify(answerOf(winner, this.templates(), now));
    if (this.ttlMs > 0) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, { json, until: winner?.expiresAt ?? Number.POSITIVE_INFINITY, keptUntil: mono + this.ttlMs });
    }
    return json;
  }
}
