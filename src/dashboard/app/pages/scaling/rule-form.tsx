/**
 * Adding or changing one rule of a group's timetable: its name, days, the window it opens
 * (local times in the schedule's zone; a window that closes at or before it opens runs into the
 * next day), and the minimum and maximum instances while it is in force. Checked here as the
 * module checks the file (src/modules/scaling/config.ts) before anything is sent; what the API
 * refuses all the same is said in its words at the field it names. The whole schedule is saved with the rule changed, or without it when
 * removed, and is in force as soon as the controller answers; the form closes saying what was
 * saved.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { bodyOf, LIMITS, WEEKDAYS, type Rule, type Schedule, type Weekday } from './model';
import { SaveOutcomeView } from './outcome';
import { useSaveSchedule, type FieldKey, type SaveOutcome } from './save';
import { clockText, DAY_NAMES, DAY_SHORT, daysText, parseClock, windowText } from './week';

/** What the form opens on: a rule by index, or a new one (from an hour of the grid, when chosen there). */
export interface Editing {
  index: number | null;
  day?: number;
  hour?: number;
  /** A new value each opening, so the same rule twice still moves the focus. */
  nonce: number;
}

interface Draft {
  name: string;
  days: Weekday[];
  from: string;
  to: string;
  min: string;
  max: string;
}

function draftOf(schedule: Schedule, editing: Editing): Draft {
  const rule = editing.index === null ? undefined : schedule.rules[editing.index];
  if (rule) return { name: rule.name, days: [...rule.days], from: rule.from, to: rule.to, min: String(rule.minInstances), max: rule.maxInstances === null ? '' : String(rule.maxInstances) };
  const hour = editing.hour ?? 18;
  const day = WEEKDAYS[editing.day ?? 4]!;
  let n = schedule.rules.length + 1;
  while (schedule.rules.some((r) => r.name.toLowerCase() === `rule ${n}`)) n++;
  return { name: `rule ${n}`, days: [day], from: clockText(hour * 60), to: clockText(((hour + 1) % 24) * 60), min: '1', max: '' };
}

const WHOLE = /^\d+$/;

/** A rule's days, window and bounds in words: "every day, all day, at least 2 instances, at most 3". */
function ruleText(rule: Rule): string {
  const max = rule.maxInstances === null ? '' : `, at most ${rule.maxInstances}`;
  return `${daysText(rule.days)}, ${windowText(rule)}, at least ${rule.minInstances} instance${rule.minInstances === 1 ? '' : 's'}${max}`;
}

/** What a saved rule does not do yet: nothing while the schedule is off. */
const offNote = (saved: Schedule) => (saved.enabled ? ' The controller uses it from now on.' : ' The rules do not apply while the schedule is off (Warm-up and prediction).');

/** Each field's problem, in the page's words (the module's limits). */
function problemsOf(draft: Draft, schedule: Schedule, index: number | null): Partial<Record<FieldKey, string>> {
  const problems: Partial<Record<FieldKey, string>> = {};
  const name = draft.name.trim();
  if (name === '') problems.name = 'Give the rule a name.';
  else if (schedule.rules.some((r, i) => i !== index && r.name.toLowerCase() === name.toLowerCase())) problems.name = `Another rule is already named “${name}”: names must be unique (ignoring case).`;
  if (draft.days.length === 0) problems.days = 'Choose at least one day.';
  if (parseClock(draft.from) === null) problems.from = 'A time of day from 00:00 to 23:59.';
  if (parseClock(draft.to) === null) problems.to = 'A time of day from 00:00 to 23:59.';
  const min = WHOLE.test(draft.min.trim()) ? Number(draft.min) : NaN;
  if (!(min >= 0 && min <= LIMITS.instances)) problems.min = `A whole number from 0 to ${LIMITS.instances}.`;
  if (draft.max.trim() !== '') {
    const max = WHOLE.test(draft.max.trim()) ? Number(draft.max) : NaN;
    if (!(max >= 1 && max <= LIMITS.instances)) problems.max = `A whole number from 1 to ${LIMITS.instances}, or empty for the group’s own maximum.`;
    else if (max < min) problems.max = `The maximum (${max}) is below the minimum (${min}).`;
  }
  return problems;
}

function ruleOf(draft: Draft): Rule {
  const clock = (text: string) => clockText(parseClock(text)!);
  return {
    name: draft.name.trim(),
    days: WEEKDAYS.filter((d) => draft.days.includes(d)),
    from: clock(draft.from),
    to: clock(draft.to),
    minInstances: Number(draft.min),
    maxInstances: draft.max.trim() === '' ? null : Number(draft.max),
  };
}

const DAY_SETS: readonly [string, readonly Weekday[]][] = [
  ['Every day', WEEKDAYS],
  ['Monday to Friday', WEEKDAYS.slice(0, 5)],
  ['Weekend', WEEKDAYS.slice(5)],
];

interface Props {
  schedule: Schedule;
  editing: Editing;
  onClose: (saved: string | null) => void;
}

export function RuleForm({ schedule, editing, onClose }: Props) {
  const group = schedule.group;
  const save = useSaveSchedule(group);
  const [draft, setDraft] = useState<Draft>(() => draftOf(schedule, editing));
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const [removing, setRemoving] = useState(false);
  // Asked after a refused submit: the first field with a problem takes the focus once it is marked.
  const [focusProblem, setFocusProblem] = useState(0);
  const nameField = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLElement>(null);
  const index = editing.index;
  const original = index === null ? null : (schedule.rules[index] ?? null);

  useEffect(() => {
    setDraft(draftOf(schedule, editing));
    setTried(false);
    setOutcome(null);
    setRemoving(false);
    box.current?.scrollIntoView({ block: 'nearest' });
    nameField.current?.focus();
  }, [editing.nonce]);

  useEffect(() => {
    // The first field with a problem takes the focus, so its words are read out.
    if (focusProblem > 0) box.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusProblem]);

  const problems = problemsOf(draft, schedule, index);
  const shown: Partial<Record<FieldKey, string>> = tried ? { ...problems } : {};
  // The API's refusal at the field it names, when it is this rule's.
  const target = index ?? schedule.rules.length;
  const refusedHere = outcome?.kind === 'refused' && outcome.field.rule === target && outcome.field.key !== null;
  if (outcome?.kind === 'refused' && refusedHere && outcome.field.key) shown[outcome.field.key] = outcome.text;
  const set = (key: keyof Draft) => (event: Event) => {
    const value = (event.target as HTMLInputElement).value;
    setDraft((d) => ({ ...d, [key]: value }));
    if (outcome?.kind === 'refused') setOutcome(null);
  };
  const toggleDay = (day: Weekday, on: boolean) => setDraft((d) => ({ ...d, days: on ? [...d.days.filter((x) => x !== day), day] : d.days.filter((x) => x !== day) }));

  /**
   * Saves the schedule with these rules; `said` words what was saved, from the schedule the
   * controller answers. A refusal naming a rule is kept at this form's fields only when the
   * rule it counts is this one (`placed`: not after a removal, which moves the others up).
   */
  const send = async (rules: Rule[], said: (saved: Schedule) => string, placed: boolean) => {
    setBusy(true);
    setOutcome(null);
    const result = await save({ ...bodyOf(schedule), rules });
    setBusy(false);
    if (result.kind === 'saved') return onClose(said(result.schedule));
    setOutcome(placed ? result : { ...result, field: { rule: null, key: null } });
    // Refused at one of this form's fields: that field takes the focus, so its words are read out.
    if (placed && result.field.rule === (index ?? schedule.rules.length) && result.field.key !== null) setFocusProblem((n) => n + 1);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setTried(true);
    if (busy) return;
    if (Object.keys(problems).length > 0) {
      setFocusProblem((n) => n + 1);
      return;
    }
    if (index === null && schedule.rules.length >= LIMITS.rules) {
      setOutcome({ kind: 'refused', text: `A schedule holds at most ${LIMITS.rules} rules: remove one first.`, field: { rule: null, key: null } });
      return;
    }
    const rule = ruleOf(draft);
    const rules = index === null ? [...schedule.rules, rule] : schedule.rules.map((r, i) => (i === index ? rule : r));
    await send(rules, (saved) => `${index === null ? `Rule “${rule.name}” added to ${group}` : `Rule “${rule.name}” of ${group} saved`}: ${ruleText(rule)}.${offNote(saved)}`, true);
  };

  const remove = async () => {
    if (index === null || !original) return;
    await send(
      schedule.rules.filter((_, i) => i !== index),
      () => `Rule “${original.name}” removed from ${group}.`,
      false,
    );
  };

  const opens = parseClock(draft.from) !== null && parseClock(draft.to) !== null ? windowText({ from: draft.from, to: draft.to }) : null;
  const fieldClass = (key: FieldKey) => `sc-field${shown[key] ? ' sc-invalid' : ''}`;
  const hint = (key: FieldKey, id: string, normal: string | null) =>
    shown[key] ? (
      <small id={id} class="sc-problem">
        {shown[key]}
      </small>
    ) : normal ? (
      <small id={id}>{normal}</small>
    ) : null;
  const title = original ? `Edit rule “${original.name}”` : `Add a rule to ${group}`;

  return (
    <section class="sc-card sc-rule-form" ref={box} aria-labelledby="sc-rule-title" onKeyDown={(e) => e.key === 'Escape' && onClose(null)}>
      <h3 id="sc-rule-title">{title}</h3>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div class="sc-form-grid">
          <div class={fieldClass('name')}>
            <label for="sc-rule-name">Name</label>
            <input id="sc-rule-name" ref={nameField} value={draft.name} onInput={set('name')} maxLength={64} autocomplete="off" spellcheck={false} aria-invalid={Boolean(shown.name)} aria-describedby="sc-rule-name-hint" />
            {hint('name', 'sc-rule-name-hint', 'Unique in this group, ignoring case.')}
          </div>
          <div class={fieldClass('from')}>
            <label for="sc-rule-from">Opens at</label>
            <input id="sc-rule-from" type="time" step={60} value={draft.from} onInput={set('from')} aria-invalid={Boolean(shown.from)} aria-describedby="sc-rule-from-hint" />
            {hint('from', 'sc-rule-from-hint', `Local time in ${schedule.timezone}.`)}
          </div>
          <div class={fieldClass('to')}>
            <label for="sc-rule-to">Closes at</label>
            <input id="sc-rule-to" type="time" step={60} value={draft.to} onInput={set('to')} aria-invalid={Boolean(shown.to)} aria-describedby="sc-rule-to-hint" />
            {hint('to', 'sc-rule-to-hint', opens ? `Open ${opens}.` : null)}
          </div>
          <fieldset class={`sc-days ${fieldClass('days')}`} aria-describedby="sc-rule-days-hint">
            <legend>Days it opens</legend>
            <div class="sc-day-boxes">
              {WEEKDAYS.map((day) => (
                <label key={day} class="sc-day">
                  <input type="checkbox" checked={draft.days.includes(day)} onChange={(e) => toggleDay(day, (e.target as HTMLInputElement).checked)} aria-invalid={Boolean(shown.days)} />
                  <span aria-hidden="true">{DAY_SHORT[day]}</span>
                  <span class="sc-hidden">{DAY_NAMES[day]}</span>
                </label>
              ))}
            </div>
            <div class="sc-day-sets">
              {DAY_SETS.map(([label, days]) => (
                <button key={label} type="button" class="sc-link" onClick={() => setDraft((d) => ({ ...d, days: [...days] }))}>
                  {label}
                </button>
              ))}
            </div>
            {hint('days', 'sc-rule-days-hint', 'A window past midnight goes on into the next day.')}
          </fieldset>
          <div class={fieldClass('min')}>
            <label for="sc-rule-min">Minimum instances</label>
            <input id="sc-rule-min" type="number" inputMode="numeric" min={0} max={LIMITS.instances} step={1} value={draft.min} onInput={set('min')} aria-invalid={Boolean(shown.min)} aria-describedby="sc-rule-min-hint" />
            {hint('min', 'sc-rule-min-hint', 'The group never runs fewer while the rule is in force.')}
          </div>
          <div class={fieldClass('max')}>
            <label for="sc-rule-max">Maximum instances</label>
            <input id="sc-rule-max" type="number" inputMode="numeric" min={1} max={LIMITS.instances} step={1} value={draft.max} onInput={set('max')} placeholder="the group’s own" aria-invalid={Boolean(shown.max)} aria-describedby="sc-rule-max-hint" />
            {hint('max', 'sc-rule-max-hint', 'Empty: the group’s own maximum.')}
          </div>
        </div>
        <div class="sc-actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : original ? 'Save rule' : 'Add rule'}
          </button>
          {original &&
            (removing ? (
              <>
                <button type="button" class="sc-danger" disabled={busy} onClick={() => void remove()}>
                  Remove “{original.name}” now
                </button>
                <button type="button" class="sc-secondary" onClick={() => setRemoving(false)}>
                  Keep it
                </button>
              </>
            ) : (
              <button type="button" class="sc-secondary" onClick={() => setRemoving(true)}>
                Remove rule
              </button>
            ))}
          <button type="button" class="sc-secondary" onClick={() => onClose(null)}>
            Cancel
          </button>
        </div>
        {tried && Object.keys(problems).length > 0 && (
          <p role="alert" class="sc-error">
            Not saved: {Object.keys(problems).length === 1 ? 'a field needs' : 'some fields need'} a change (marked above).
          </p>
        )}
        {!refusedHere && <SaveOutcomeView outcome={outcome} savedText="" />}
        {refusedHere && (
          <p role="alert" class="sc-error">
            Not saved: the controller refused this rule (its words are at the field).
          </p>
        )}
      </form>
    </section>
  );
}
