/**
 * A group's schedule settings beside its rules: whether the rules apply, the zone their times
 * are in, the warm-up (start what a rule needs this many minutes before it opens) and the
 * prediction (raise the minimum from the group's own history, at a percentile). Saved with the
 * rules as they are (in force as soon as the controller answers, and said in words); what the
 * controller refuses is said in its words at the field it names (a zone this browser knows but
 * the controller does not, say). A session without the save node reads them only.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { bodyOf, LIMITS, NODE, type Schedule } from './model';
import { SaveOutcomeView } from './outcome';
import { settingsText, useSaveSchedule, type FieldKey, type SaveOutcome } from './save';
import { knownTimeZone } from './week';

interface Draft {
  enabled: boolean;
  timezone: string;
  warmup: boolean;
  lead: string;
  prediction: boolean;
  percentile: string;
}

const draftOf = (s: Schedule): Draft => ({
  enabled: s.enabled,
  timezone: s.timezone,
  warmup: s.warmup.enabled,
  lead: String(s.warmup.leadTimeMinutes),
  prediction: s.prediction.enabled,
  percentile: String(s.prediction.percentile),
});

function problemsOf(d: Draft): Partial<Record<FieldKey, string>> {
  const problems: Partial<Record<FieldKey, string>> = {};
  if (!knownTimeZone(d.timezone.trim())) problems.timezone = 'An IANA time zone such as Europe/Berlin or UTC.';
  const lead = /^\d+$/.test(d.lead.trim()) ? Number(d.lead) : NaN;
  if (!(lead >= 0 && lead <= LIMITS.leadMinutes)) problems.lead = `A whole number of minutes from 0 to ${LIMITS.leadMinutes}.`;
  const p = /^\d+$/.test(d.percentile.trim()) ? Number(d.percentile) : NaN;
  if (!(p >= LIMITS.percentile.min && p <= LIMITS.percentile.max)) problems.percentile = `A whole number from ${LIMITS.percentile.min} to ${LIMITS.percentile.max}.`;
  return problems;
}

/** The fields a refusal's words can be shown at. */
const PLACES: readonly FieldKey[] = ['timezone', 'lead', 'percentile'];

/** The zones this browser knows, for the zone field's suggestions. */
function zones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

export function ScheduleSettings({ schedule, may }: { schedule: Schedule; may: (node: string) => boolean }) {
  const save = useSaveSchedule(schedule.group);
  const [draft, setDraft] = useState(() => draftOf(schedule));
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const zoneList = useMemo(zones, []);
  const form = useRef<HTMLFormElement>(null);
  const mayChange = may(NODE.manage);
  const saved = JSON.stringify(draftOf(schedule));
  // The schedule read again (another save, a reload): the fields follow unless being changed.
  const [base, setBase] = useState(saved);
  useEffect(() => {
    if (saved === base) return;
    const held = JSON.stringify(draft);
    if (held === base) setDraft(draftOf(schedule));
    setBase(saved);
    // What was said of the last save is about the schedule before this one, unless this is that save read back.
    if (held !== saved) setOutcome(null);
  }, [saved]);
  useEffect(() => {
    setDraft(draftOf(schedule));
    setOutcome(null);
    setTried(false);
  }, [schedule.group]);

  const problems = problemsOf(draft);
  const shown: Partial<Record<FieldKey, string>> = tried ? { ...problems } : {};
  // The API's refusal at the field it names, when the form has a place for its words.
  const refusedAt = outcome?.kind === 'refused' && outcome.field.rule === null && outcome.field.key !== null && PLACES.includes(outcome.field.key) ? outcome.field.key : null;
  if (outcome?.kind === 'refused' && refusedAt) shown[refusedAt] = outcome.text;
  const changed = JSON.stringify(draft) !== saved;
  useEffect(() => {
    // Refused at a field: it takes the focus, so its words are read out.
    if (refusedAt) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [outcome]);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    if (outcome?.kind === 'refused') setOutcome(null);
  };
  const text = (key: 'timezone' | 'lead' | 'percentile') => (e: Event) => set(key, (e.target as HTMLInputElement).value);
  const check = (key: 'enabled' | 'warmup' | 'prediction') => (e: Event) => set(key, (e.target as HTMLInputElement).checked);

  const submit = async (event: Event) => {
    event.preventDefault();
    setTried(true);
    if (busy || Object.keys(problems).length > 0) return;
    setBusy(true);
    setOutcome(null);
    const body = { ...bodyOf(schedule), enabled: draft.enabled, timezone: draft.timezone.trim(), warmup: { enabled: draft.warmup, leadTimeMinutes: Number(draft.lead) }, prediction: { enabled: draft.prediction, percentile: Number(draft.percentile) } };
    const result = await save(body);
    setBusy(false);
    if (result.kind === 'saved') {
      // The fields as the controller saved them, so the form is unchanged again.
      setDraft(draftOf(result.schedule));
      setTried(false);
    }
    setOutcome(result);
  };
  const hint = (key: FieldKey, id: string, normal: string) => (
    <small id={id} class={shown[key] ? 'sc-problem' : undefined}>
      {shown[key] ?? normal}
    </small>
  );
  const invalid = (key: FieldKey) => (shown[key] ? ' sc-invalid' : '');

  return (
    <form class="sc-settings" ref={form} onSubmit={(e) => void submit(e)} noValidate aria-label={`Schedule settings of ${schedule.group}`}>
      <fieldset disabled={!mayChange} class="sc-bare">
        <div class="sc-form-grid">
          <div class="sc-field sc-check">
            <input id="sc-set-enabled" type="checkbox" checked={draft.enabled} onChange={check('enabled')} aria-describedby="sc-set-enabled-hint" />
            <label for="sc-set-enabled">The rules apply</label>
            <small id="sc-set-enabled-hint">Off: the timetable is kept, and raises nothing.</small>
          </div>
          <div class={`sc-field${invalid('timezone')}`}>
            <label for="sc-set-zone">Time zone</label>
            <input id="sc-set-zone" list="sc-zones" value={draft.timezone} onInput={text('timezone')} autocomplete="off" spellcheck={false} aria-invalid={Boolean(shown.timezone)} aria-describedby="sc-set-zone-hint" />
            <datalist id="sc-zones">
              {zoneList.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            {hint('timezone', 'sc-set-zone-hint', 'The rules’ days and times are wall-clock times here; clock changes need nothing special.')}
          </div>
          <fieldset class="sc-group-box">
            <legend>Warm-up</legend>
            <div class="sc-field sc-check">
              <input id="sc-set-warmup" type="checkbox" checked={draft.warmup} onChange={check('warmup')} />
              <label for="sc-set-warmup">Start ahead of a rule</label>
            </div>
            <div class={`sc-field${invalid('lead')}`}>
              <label for="sc-set-lead">Minutes ahead</label>
              <input id="sc-set-lead" type="number" inputMode="numeric" min={0} max={LIMITS.leadMinutes} value={draft.lead} onInput={text('lead')} aria-invalid={Boolean(shown.lead)} aria-describedby="sc-set-lead-hint" />
              {hint('lead', 'sc-set-lead-hint', 'What a rule needs starts this long before it opens, so it is READY in time (hatched on the grid).')}
            </div>
          </fieldset>
          <fieldset class="sc-group-box">
            <legend>Prediction</legend>
            <div class="sc-field sc-check">
              <input id="sc-set-prediction" type="checkbox" checked={draft.prediction} onChange={check('prediction')} />
              <label for="sc-set-prediction">Raise the minimum from the history</label>
            </div>
            <div class={`sc-field${invalid('percentile')}`}>
              <label for="sc-set-percentile">Percentile</label>
              <input id="sc-set-percentile" type="number" inputMode="numeric" min={1} max={100} value={draft.percentile} onInput={text('percentile')} aria-invalid={Boolean(shown.percentile)} aria-describedby="sc-set-percentile-hint" />
              {hint('percentile', 'sc-set-percentile-hint', 'Of the players at the same weekday and hour over the last 4 weeks, rounded up to instances; acted on from 30 samples.')}
            </div>
          </fieldset>
        </div>
        {mayChange && (
          <div class="sc-actions">
            <button type="submit" disabled={busy || !changed}>
              {busy ? 'Saving…' : 'Save settings'}
            </button>
            {changed && (
              <button
                type="button"
                class="sc-secondary"
                onClick={() => {
                  setDraft(draftOf(schedule));
                  setTried(false);
                  if (outcome?.kind === 'refused') setOutcome(null);
                }}
              >
                Undo changes
              </button>
            )}
          </div>
        )}
      </fieldset>
      {refusedAt === null ? (
        <SaveOutcomeView outcome={outcome} savedText={outcome?.kind === 'saved' ? `Settings of ${schedule.group} saved: ${settingsText(outcome.schedule)}.` : ''} />
      ) : (
        <p role="alert" class="sc-error">
          Not saved: the controller refused a setting (its words are at the field).
        </p>
      )}
    </form>
  );
}
