/**
 * Pieces every part of the Permissions page shares: what this sign-in may do, actions whose
 * refusals are said in the API's words (a 403 also says which node was missing), the expiry
 * and scope fields of a grant, and times shown with how long is left.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery, useQueryClient, type QueryKey } from '@tanstack/preact-query';
import { api, ApiFailure, signInKind } from '../../api';
import { grants } from '../../access';
import { refusalText, type Outcome } from '../settings/outcome';
import { expiryOf, scopeNameProblem, type ExpiryInput, type ExpiryKind } from './rules';
import { MANAGE_NODE, type ScopedRow } from './requests';
import { sentence } from '../../sentence';

interface Me {
  uuid: string;
  name: string;
  permissions: string[];
  isAdmin: boolean;
}

export interface Access {
  /** Holds svc.dashboard.perms.manage (an API token is taken to: the server says otherwise if not). */
  canManage: boolean;
  /** May hand out admin: an API token or an admin session. */
  admin: boolean;
  /** May open the live events socket (it needs svc.dashboard.overview). */
  live: boolean;
  /** A session's player, to say "you" where it is them. */
  me: Me | undefined;
}

/** What this sign-in may do here, from GET /api/auth/me (the shell's own query, so asked once). */
export function useAccess(): Access | undefined {
  const session = signInKind() === 'session';
  const me = useQuery({ queryKey: ['me'], queryFn: () => api<Me>('/api/auth/me'), enabled: session, staleTime: 30_000 });
  if (!session) return { canManage: true, admin: true, live: true, me: undefined };
  if (!me.data) return undefined;
  const { permissions, isAdmin } = me.data;
  return {
    canManage: isAdmin || grants(permissions, MANAGE_NODE),
    admin: isAdmin,
    live: isAdmin || grants(permissions, 'svc.dashboard.overview'),
    me: me.data,
  };
}

/**
 * A refusal in the API's words. A 403 for a missing node also says, in a sentence, that this
 * session may look but not change; an escalation refused (a change that would hand out admin)
 * is the API's own sentence.
 */
export function refusalWords(error: unknown): string {
  if (error instanceof ApiFailure && error.status === 403) {
    const missing = /^Missing permission: (\S+)/.exec(error.message);
    if (missing) return `Refused: this session may look at permissions but not change them; changes need ${missing[1]}. The controller said: “${error.message}”.`;
    return `Refused (${error.code}): ${error.message}.`;
  }
  return refusalText(error);
}

/**
 * One request at a time and its outcome line; on success the page's queries are read again
 * (the live events do it too, but not for a session without the events node).
 */
export function usePermsAction() {
  const queries = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const run = async (work: () => Promise<string>, refresh: QueryKey = ['perms']): Promise<boolean> => {
    setBusy(true);
    setOutcome(null);
    try {
      const text = await work();
      // Read again before saying so, so what the page shows is already the change.
      await queries.invalidateQueries({ queryKey: refresh });
      setOutcome({ ok: true, text: sentence(text) });
      return true;
    } catch (error) {
      setOutcome({ ok: false, text: refusalWords(error) });
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, outcome, run, setOutcome, clear: () => setOutcome(null) };
}

/** A failed read in words (the section stays). */
export function ReadFailure({ error, what }: { error: unknown; what: string }) {
  return (
    <p role="alert" class="op-error">
      {what} could not be read: {refusalWords(error).replace(/^Refused/, 'refused')}
    </p>
  );
}

/** The current time, ticking every `everyMs` while `on`. */
export function useNow(on: boolean, everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [on, everyMs]);
  return now;
}

/**
 * Reads `key` again just after the earliest of `expiries` (ISO) passes: the controller's sweep
 * deletes the row then and announces it, but a session without the events socket hears nothing.
 */
export function useRefreshAtExpiry(key: QueryKey, expiries: readonly (string | undefined)[]): void {
  const queries = useQueryClient();
  const now = Date.now();
  const next = expiries.map((e) => (e ? Date.parse(e) : NaN)).filter((t) => Number.isFinite(t) && t > now - 5_000).sort((a, b) => a - b)[0];
  const identity = JSON.stringify(key);
  useEffect(() => {
    if (next === undefined) return;
    const timer = setTimeout(() => void queries.invalidateQueries({ queryKey: key }), Math.min(Math.max(next - Date.now() + 750, 250), 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [next, identity]);
}

/** "in 5 s", "in 3 min", "in 2 h 5 min", "in 4 days"; "expired" once past. */
export function timeLeft(at: number, now: number): string {
  const ms = at - now;
  if (ms <= 0) return 'expired';
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `in ${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `in ${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `in ${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
  return `in ${Math.round(h / 24)} days`;
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
export const dateTime = (iso: string) => DATE_TIME.format(new Date(iso));

/** An expiry as a time and how long is left (ticking while under an hour); "never" for none. */
export function ExpiryText({ iso }: { iso: string | undefined }) {
  const at = iso ? Date.parse(iso) : NaN;
  const soon = Number.isFinite(at) && at - Date.now() < 3_600_000;
  const now = useNow(soon);
  if (!iso || !Number.isFinite(at)) return <span class="op-muted">never</span>;
  const left = timeLeft(at, now);
  return (
    <span class={left === 'expired' ? 'perm-expired' : 'perm-expiry-text'}>
      <time dateTime={iso}>{dateTime(iso)}</time> <span class="perm-left">({left === 'expired' ? 'expired, being removed' : left})</span>
    </span>
  );
}

/** "on server Lobby-1 in world nether", or "everywhere". */
export function whereWords(row: ScopedRow): string {
  const parts = [row.server && `server ${row.server}`, row.world && `world ${row.world}`].filter(Boolean);
  return parts.length ? parts.join(', ') : 'everywhere';
}

/** One labelled field: its hint and problem describe the control (aria-describedby), a problem marks it invalid. */
export function Field(props: { id: string; label: string; hint?: ComponentChildren; problem?: string; wide?: boolean; children: (attributes: FieldAttributes) => ComponentChildren }) {
  const { id, label, hint, problem, wide, children } = props;
  const describedBy = [hint ? `${id}-hint` : null, problem ? `${id}-problem` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`gd-field${wide ? ' gd-wide' : ''}${problem ? ' gd-invalid' : ''}`}>
      <div class="gd-label">
        <label for={id}>{label}</label>
      </div>
      {children({ id, name: id, 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy })}
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {problem && (
        <p class="gd-problem" id={`${id}-problem`}>
          {problem}
        </p>
      )}
    </div>
  );
}

export interface FieldAttributes {
  id: string;
  name: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

export const inputText = (event: Event) => (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;

/** The server, world and expiry of a grant or membership, as typed. */
export interface ScopeInput {
  server: string;
  world: string;
  expiry: ExpiryInput;
}
export const EMPTY_SCOPE: ScopeInput = { server: '', world: '', expiry: { kind: 'never', after: '', at: '' } };

/** The scope's problems by field, or its body fields. */
export function scopeBody(scope: ScopeInput, now: number): { problems: Record<string, string>; body: { server?: string; world?: string; expiresAt?: string } } {
  const problems: Record<string, string> = {};
  const server = scopeNameProblem('server', scope.server);
  const world = scopeNameProblem('world', scope.world);
  if (server) problems.server = server;
  if (world) problems.world = world;
  const expiry = expiryOf(scope.expiry, now);
  if ('problem' in expiry) problems.expiry = expiry.problem;
  const body: { server?: string; world?: string; expiresAt?: string } = {};
  if (scope.server.trim()) body.server = scope.server.trim();
  if (scope.world.trim()) body.world = scope.world.trim();
  if ('expiresAt' in expiry && expiry.expiresAt) body.expiresAt = expiry.expiresAt;
  return { problems, body };
}

/** Server, world (blank: every one) and when it expires: never, after a duration, or at a local date and time. */
export function ScopeFields({ id, value, problems, onChange }: { id: string; value: ScopeInput; problems: Record<string, string>; onChange: (next: ScopeInput) => void }) {
  const expiry = value.expiry;
  const setExpiry = (patch: Partial<ExpiryInput>) => onChange({ ...value, expiry: { ...expiry, ...patch } });
  return (
    <>
      <Field id={`${id}-server`} label="Server" hint="Blank: every server." problem={problems.server}>
        {(a) => <input {...a} type="text" value={value.server} autoComplete="off" spellcheck={false} onInput={(e) => onChange({ ...value, server: inputText(e) })} />}
      </Field>
      <Field id={`${id}-world`} label="World" hint="Blank: every world." problem={problems.world}>
        {(a) => <input {...a} type="text" value={value.world} autoComplete="off" spellcheck={false} onInput={(e) => onChange({ ...value, world: inputText(e) })} />}
      </Field>
      <Field id={`${id}-expires`} label="Expires" problem={expiry.kind === 'never' ? problems.expiry : undefined}>
        {(a) => (
          <select {...a} value={expiry.kind} onChange={(e) => setExpiry({ kind: inputText(e) as ExpiryKind })}>
            <option value="never">Never</option>
            <option value="after">After a duration</option>
            <option value="at">At a date and time</option>
          </select>
        )}
      </Field>
      {expiry.kind === 'after' && (
        <Field id={`${id}-after`} label="Expires after" hint="A number and a unit: 30s, 10m, 12h, 7d, 2w, or 1d12h." problem={problems.expiry}>
          {(a) => <input {...a} type="text" value={expiry.after} autoComplete="off" spellcheck={false} placeholder="7d" onInput={(e) => setExpiry({ after: inputText(e) })} />}
        </Field>
      )}
      {expiry.kind === 'at' && (
        <Field id={`${id}-at`} label="Expires at" hint="Your local time." problem={problems.expiry}>
          {(a) => <input {...a} type="datetime-local" step={1} value={expiry.at} onInput={(e) => setExpiry({ at: inputText(e) })} />}
        </Field>
      )}
    </>
  );
}

/**
 * A heading that takes the keyboard's focus when its view opens and the focus was lost (the
 * link or button that opened it is gone), so a keyboard user goes on from there, not from the top.
 */
export function useHeadingFocus<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (!active || active === document.body) ref.current?.focus();
  }, []);
  return ref;
}
