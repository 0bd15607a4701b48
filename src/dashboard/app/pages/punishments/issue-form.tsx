/**
 * Issuing a punishment (POST /api/punishments): the player by name or uuid, the type, a
 * duration in the module's grammar read as it is typed (what it means and when it would end,
 * or why it cannot be read), an IP for an IP ban, where it holds, the reason, and the message
 * the player will get, drawn from the type's template. The API's answer is said in words: the
 * record made, or its refusal (an unknown player, a bad duration, a type this account may not
 * issue). The issuer is never sent: the API takes it from the sign-in.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { dateText, DURATION_HELP, parseDuration, spanText } from './duration';
import { fillTemplate, McText, templateKeyOf } from './message';
import type { May } from './may';
import { BASE, LIST_KEY, NODE, ONE_OFF, PLAYER_NAME_RE, RECORD_KEY, SCOPES, scopeText, TEMPORARY, TYPE_LABELS, TYPES, normalizeUuid, aType, typeWord, type MessageTemplates, type Punishment, type PunishmentType, type Scope } from './model';
import { OutcomeLine, refusalText, type Outcome } from './outcome';

/** A template chosen below: the form takes its type (a new nonce each time, so the same one twice still moves focus). */
export interface Preset {
  type: PunishmentType;
  nonce: number;
}

interface Props {
  may: May;
  templates: MessageTemplates | undefined;
  preset: Preset | null;
  onShowRecord: (uuid: string) => void;
}

const TYPE_HINTS: Readonly<Record<PunishmentType, string>> = {
  BAN: 'Keeps the player out; permanent unless you give a duration.',
  TEMPBAN: 'Keeps the player out until the duration ends.',
  IPBAN: 'Keeps every account on an address out.',
  MUTE: 'Keeps the player from chatting; permanent unless you give a duration.',
  TEMPMUTE: 'Keeps the player from chatting until the duration ends.',
  KICK: 'Disconnects the player now (a proxy must be running); nothing to lift later.',
  WARN: 'Sends the player a warning and keeps it on their record; nothing to lift later.',
};

const sentenceStart = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What the duration field means for this type, or why it will be refused. */
function durationReading(type: PunishmentType, text: string, now: number): { ok: boolean; text: string; ms: number | null } {
  if (ONE_OFF.has(type)) return { ok: true, text: '', ms: null };
  if (text.trim() === '') {
    if (TEMPORARY.has(type)) return { ok: false, text: `${sentenceStart(aType(type))} needs a duration. ${DURATION_HELP}`, ms: null };
    return { ok: true, text: 'Empty: permanent, until someone revokes it.', ms: null };
  }
  const parsed = parseDuration(text);
  if (!parsed.ok) return { ok: false, text: parsed.problem, ms: null };
  if (parsed.permanent) {
    if (TEMPORARY.has(type)) return { ok: false, text: `${sentenceStart(aType(type))} cannot be permanent: choose ${type === 'TEMPBAN' ? 'Ban' : 'Mute'} for that, or give a duration.`, ms: null };
    return { ok: true, text: 'Permanent, until someone revokes it.', ms: null };
  }
  return { ok: true, text: `Lasts ${spanText(parsed.ms)}: it would end around ${dateText(now + parsed.ms)}.`, ms: parsed.ms };
}

export function IssueForm({ may, templates, preset, onShowRecord }: Props) {
  const queries = useQueryClient();
  const [player, setPlayer] = useState('');
  const [type, setType] = useState<PunishmentType>('BAN');
  const [duration, setDuration] = useState('');
  const [ip, setIp] = useState('');
  const [scope, setScope] = useState<Scope>('NETWORK');
  const [scopeTarget, setScopeTarget] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const playerField = useRef<HTMLInputElement>(null);
  const section = useRef<HTMLElement>(null);

  // A template chosen: its type at once (in this render), then the focus to the first field.
  const [applied, setApplied] = useState(0);
  if (preset && preset.nonce !== applied) {
    setApplied(preset.nonce);
    setType(preset.type);
    setOutcome(null);
  }
  useEffect(() => {
    if (!preset) return;
    section.current?.scrollIntoView({ block: 'start' });
    playerField.current?.focus();
  }, [preset]);

  const reading = durationReading(type, duration, now);
  const playerText = player.trim();
  const playerProblem =
    playerText === '' ? null : normalizeUuid(playerText) === null && !PLAYER_NAME_RE.test(playerText) ? 'A player’s name is 1 to 32 letters, digits or _ . * + -, or give their UUID.' : null;
  const mayIssue = may(NODE.issue(type));
  const temporary = reading.ms !== null;
  const templateKey = templateKeyOf(type, temporary);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setOutcome(null);
    const body: Record<string, string> = { type, targetName: playerText, reason: reason.trim(), scope };
    if (!ONE_OFF.has(type) && duration.trim() !== '') body.duration = duration.trim();
    if (type === 'IPBAN') body.targetIp = ip.trim();
    if (scope !== 'NETWORK') body.scopeTarget = scopeTarget.trim();
    try {
      const made = await api<Punishment>(BASE, { method: 'POST', json: body });
      setOutcome({
        ok: true,
        text: (
          <>
            Issued punishment #{made.id}: {typeWord(made.type)} of {made.targetName} ({scopeText(made)})
            {made.expiresAt !== null ? (
              <>
                , until <time dateTime={made.expiresAt}>{dateText(made.expiresAt)}</time>
              </>
            ) : ONE_OFF.has(made.type) ? (
              ''
            ) : (
              ', permanent'
            )}
            .{' '}
            {may(NODE.history) && (
              <button type="button" class="pn-link" onClick={() => onShowRecord(made.targetUuid)}>
                Show {made.targetName}’s record
              </button>
            )}
          </>
        ),
      });
      setPlayer('');
      setReason('');
      void queries.invalidateQueries({ queryKey: LIST_KEY });
      void queries.invalidateQueries({ queryKey: RECORD_KEY });
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, `The ${typeWord(type)} was not issued`) });
    } finally {
      setBusy(false);
      setNow(Date.now());
    }
  };

  const sample = templates
    ? fillTemplate(templates[templateKey], {
        type,
        target: playerText === '' ? 'the player' : playerText,
        issuer: may.issuerName,
        reason,
        expiresAt: reading.ms === null ? null : now + reading.ms,
        now,
      })
    : null;

  return (
    <section class="pn-card" ref={section} aria-labelledby="pn-issue-title">
      <h2 id="pn-issue-title">Issue a punishment</h2>
      <form class="pn-issue" onSubmit={(e) => void submit(e)} noValidate>
        <div class="pn-field">
          <label for="pn-player">Player</label>
          <input
            id="pn-player"
            ref={playerField}
            value={player}
            onInput={(e) => setPlayer((e.target as HTMLInputElement).value)}
            autocomplete="off"
            spellcheck={false}
            maxLength={64}
            required
            aria-invalid={playerProblem !== null}
            aria-describedby="pn-player-hint"
            placeholder="Name or UUID"
          />
          <small id="pn-player-hint" class={playerProblem ? 'pn-problem' : undefined}>
            {playerProblem ?? 'A player seen on this network by name, or anyone by UUID.'}
          </small>
        </div>
        <div class="pn-field">
          <label for="pn-type">Type</label>
          <select id="pn-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as PunishmentType)} aria-describedby="pn-type-hint">
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
          <small id="pn-type-hint" class={mayIssue ? undefined : 'pn-problem'}>
            {mayIssue ? TYPE_HINTS[type] : `Your account may not issue ${aType(type)}: it needs the permission ${NODE.issue(type)}, so the controller will refuse it.`}
          </small>
        </div>
        {!ONE_OFF.has(type) && (
          <div class="pn-field">
            <label for="pn-duration">
              Duration <span class="pn-muted">{TEMPORARY.has(type) ? '(required)' : '(empty: permanent)'}</span>
            </label>
            <input
              id="pn-duration"
              value={duration}
              onInput={(e) => {
                setDuration((e.target as HTMLInputElement).value);
                setNow(Date.now());
              }}
              autocomplete="off"
              spellcheck={false}
              maxLength={32}
              placeholder="30m, 1d12h, 2w, perm"
              aria-invalid={!reading.ok}
              aria-describedby="pn-duration-reading"
            />
            <small id="pn-duration-reading" class={reading.ok ? undefined : 'pn-problem'} aria-live="polite">
              {reading.text}
            </small>
          </div>
        )}
        {type === 'IPBAN' && (
          <div class="pn-field">
            <label for="pn-ip">IP address</label>
            <input id="pn-ip" value={ip} onInput={(e) => setIp((e.target as HTMLInputElement).value)} autocomplete="off" spellcheck={false} maxLength={64} required placeholder="203.0.113.42" />
          </div>
        )}
        <div class="pn-field">
          <label for="pn-scope">Where</label>
          <select id="pn-scope" value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as Scope)}>
            {SCOPES.map((s) => (
              <option key={s} value={s}>
                {s === 'NETWORK' ? 'The whole network' : s === 'GROUP' ? 'One group' : 'One service'}
              </option>
            ))}
          </select>
        </div>
        {scope !== 'NETWORK' && (
          <div class="pn-field">
            <label for="pn-scope-target">{scope === 'GROUP' ? 'Group' : 'Service'}</label>
            <input
              id="pn-scope-target"
              value={scopeTarget}
              onInput={(e) => setScopeTarget((e.target as HTMLInputElement).value)}
              autocomplete="off"
              maxLength={128}
              required
              placeholder={scope === 'GROUP' ? 'BedWars' : 'Lobby-1'}
            />
          </div>
        )}
        <div class="pn-field pn-wide">
          <label for="pn-reason">Reason</label>
          <input id="pn-reason" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value.replace(/[\r\n]+/g, ' '))} maxLength={1024} aria-describedby="pn-reason-hint" placeholder="Shown to the player" />
          <small id="pn-reason-hint">The player reads it in the message below; it stays on their record.</small>
        </div>
        {sample !== null && (
          <div class="pn-wide pn-preview">
            <p class="pn-muted" id="pn-preview-title">
              What the player reads (the {templateKey} template):
            </p>
            <McText text={sample} label={`Message for the player, from the ${templateKey} template`} />
          </div>
        )}
        <div class="pn-wide pn-actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Issuing…' : `Issue ${typeWord(type)}`}
          </button>
        </div>
        <div class="pn-wide">
          <OutcomeLine outcome={outcome} />
        </div>
      </form>
    </section>
  );
}
