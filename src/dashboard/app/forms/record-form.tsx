import type { ComponentType } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../api';
import { FieldInput } from './field-input';
import { fieldProblem, type FieldSpec, type FormSection, type Problems, type RawValue, type RawValues, type Specs } from './fields';

/** What a field's own control (RecordForm's `controls`) is given: FieldInput's props, and the whole form's values. */
export interface FieldControlProps {
  id: string;
  spec: FieldSpec;
  value: RawValue;
  problem: string | undefined;
  readOnly: boolean;
  /** Every field's value as the form holds it now (a version list depends on the software). */
  values: RawValues;
  onChange: (value: RawValue) => void;
}

interface Props {
  /** Prefix of the controls' ids (one form per page, but ids must not collide with the page's). */
  idPrefix: string;
  specs: Specs;
  sections: readonly FormSection[];
  initial: RawValues;
  /** Fields shown but not editable (a name on edit: the API refuses to change it). */
  readOnly?: readonly string[];
  /** The API's rules across fields (min ≤ max, …): field key → message. */
  crossCheck: (values: RawValues) => Problems;
  /** Fields drawn by a component of their own instead of FieldInput (a software's version list); a stable object. */
  controls?: Readonly<Record<string, ComponentType<FieldControlProps>>>;
  /** The values after `key` changed, with what follows from it (another software: its version cleared); default as they are. */
  follow?: (key: string, next: RawValues, previous: RawValues) => RawValues;
  submitLabel: string;
  /** Sends the values; an ApiFailure it throws is shown (the API refused after all). */
  onSubmit: (values: RawValues) => Promise<void>;
  onCancel: () => void;
}

/**
 * A create or edit form: labelled controls in sections, each checked as the API checks it,
 * all at once on submit, then again as a shown problem is being fixed. Not on leaving a field:
 * a message appearing then moves the submit button between the press and the release of the
 * click that left the field, and the click is lost. While any field has a problem nothing is
 * sent: the first such field takes the focus. When the API refuses anyway, its message is shown above the buttons and, when it
 * names a field (`body "minInstances" …`), next to that field too.
 */
export function RecordForm({ idPrefix, specs, sections, initial, readOnly = [], crossCheck, controls = {}, follow, submitLabel, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState<RawValues>(initial);
  // The values as last changed, ahead of the render: two changes in one tick (a version list
  // choosing its latest while the loader list clears) each build on the one before.
  const current = useRef<RawValues>(initial);
  const [problems, setProblems] = useState<Problems>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [opened, setOpened] = useState<Record<string, boolean>>({});
  const [focusRequest, setFocusRequest] = useState<{ key: string } | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const idOf = (key: string) => `${idPrefix}-${key}`;

  // After the render that shows the problems (and opens their sections), before paint.
  useLayoutEffect(() => {
    if (focusRequest) form.current?.querySelector<HTMLElement>(`#${idOf(focusRequest.key)}`)?.focus();
  }, [focusRequest]);

  const problemOf = (key: string, all: RawValues): string | undefined => {
    const spec = specs[key];
    return (spec && fieldProblem(spec, all[key] ?? '')) ?? crossCheck(all)[key];
  };

  const change = (key: string, value: RawValue) => {
    const previous = current.current;
    const changed = { ...previous, [key]: value };
    const next = follow ? follow(key, changed, previous) : changed;
    current.current = next;
    setValues(next);
    // A problem on show is re-checked as the operator types (also one across fields, e.g. max
    // instances fixed by lowering min instances); a new one waits for the next submit.
    setProblems((shown) => {
      const out: Problems = {};
      for (const shownKey of Object.keys(shown)) {
        const problem = problemOf(shownKey, next);
        if (problem) out[shownKey] = problem;
      }
      return out;
    });
  };

  /** Opens the shut sections holding problems, and keeps them open while those are fixed. */
  const reveal = (shown: Problems) => {
    const holding = sections.filter((section) => section.collapsed && section.fields.some((key) => shown[key]));
    if (holding.length > 0) setOpened((was) => ({ ...was, ...Object.fromEntries(holding.map((section) => [section.title, true])) }));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const all: Problems = {};
    for (const key of Object.keys(specs)) {
      const problem = problemOf(key, values);
      if (problem) all[key] = problem;
    }
    setProblems(all);
    reveal(all);
    setRefusal(null);
    const first = Object.keys(specs).find((key) => all[key]);
    if (first) {
      // The section holding it opens with this render; the focus moves once it has.
      setFocusRequest({ key: first });
      return;
    }
    setBusy(true);
    try {
      await onSubmit(values);
    } catch (failure) {
      const message = failure instanceof ApiFailure ? failure.message : 'The controller cannot be reached; nothing was saved.';
      setRefusal(message);
      // VALIDATION_FAILED names the field first: `body "minInstances" (3) must be at most …`.
      const named = failure instanceof ApiFailure && failure.code === 'VALIDATION_FAILED' ? /"([A-Za-z]+)"/.exec(message)?.[1] : undefined;
      if (named && specs[named]) {
        setProblems((shown) => ({ ...shown, [named]: message }));
        reveal({ [named]: message });
      }
    } finally {
      setBusy(false);
    }
  };

  const problemCount = Object.keys(problems).length;
  return (
    <form ref={form} class="gd-form" noValidate onSubmit={submit}>
      {sections.map((section) => {
        const fields = section.fields.map((key) => {
          const spec = specs[key];
          if (!spec) return null;
          const Own = controls[key];
          if (Own) {
            return (
              <Own
                key={key}
                id={idOf(key)}
                spec={spec}
                value={values[key] ?? ''}
                problem={problems[key]}
                readOnly={readOnly.includes(key)}
                values={values}
                onChange={(value) => change(key, value)}
              />
            );
          }
          return (
            <FieldInput
              key={key}
              id={idOf(key)}
              spec={spec}
              value={values[key] ?? ''}
              problem={problems[key]}
              readOnly={readOnly.includes(key)}
              onChange={(value) => change(key, value)}
            />
          );
        });
        if (!section.collapsed) {
          return (
            <fieldset key={section.title}>
              <legend>{section.title}</legend>
              <div class="gd-grid">{fields}</div>
            </fieldset>
          );
        }
        const open = opened[section.title] === true;
        return (
          <details key={section.title} class="gd-section" open={open} onToggle={(e) => {
              const now = (e.currentTarget as HTMLDetailsElement).open;
              setOpened((was) => ({ ...was, [section.title]: now }));
            }}
          >
            <summary>{section.title}</summary>
            <div class="gd-grid">{fields}</div>
          </details>
        );
      })}
      {problemCount > 0 && !refusal && (
        <p class="error" role="alert">
          {problemCount === 1 ? 'One field needs' : `${problemCount} fields need`} fixing (marked above); nothing was sent.
        </p>
      )}
      {refusal && (
        <p class="error" role="alert">
          The controller refused: {refusal}
        </p>
      )}
      <div class="gd-actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" class="gd-secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
