/**
 * A labelled form over a flat settings object (MOTD, tab list, chat, maintenance texts): text,
 * multi-line, whole-number and on/off fields. Save sends only the fields that changed (every
 * PUT of these routes takes a partial body) and says so when nothing did. The draft follows the
 * server's values while the operator has not touched it, so a change made elsewhere (a live
 * event, another tab) shows without a reload and never overwrites a half-typed edit.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { OutcomeLine, useAction } from './outcome';

export interface FieldSpec {
  key: string;
  label: string;
  kind: 'text' | 'textarea' | 'int' | 'bool';
  hint?: string;
  min?: number;
  max?: number;
  maxLength?: number;
  required?: boolean;
}

type Values = Record<string, unknown>;
type Draft = Record<string, string | boolean>;

const toDraft = (fields: FieldSpec[], values: Values): Draft =>
  Object.fromEntries(fields.map((f) => [f.key, f.kind === 'bool' ? values[f.key] === true : String(values[f.key] ?? '')]));

const same = (a: Draft, b: Draft) => Object.keys(a).every((k) => a[k] === b[k]);

export function FieldsForm(props: {
  /** The form's accessible name (also its heading's text). */
  title: string;
  fields: FieldSpec[];
  values: Values;
  /** Sends the changed fields; resolves to the success text. */
  save: (changed: Values) => Promise<string>;
  submitLabel?: string;
}) {
  const { fields, values } = props;
  const [draft, setDraft] = useState<Draft>(() => toDraft(fields, values));
  const base = useRef<Draft>(draft);
  const action = useAction();
  const serverKey = JSON.stringify(toDraft(fields, values));

  useEffect(() => {
    const next = toDraft(fields, values);
    setDraft((current) => (same(current, base.current) ? next : current));
    base.current = next;
  }, [serverKey]);

  const submit = (event: Event) => {
    event.preventDefault();
    const changed: Values = {};
    for (const f of fields) {
      const value = draft[f.key]!;
      if (value === base.current[f.key]) continue;
      changed[f.key] = f.kind === 'int' ? Number(value) : value;
    }
    void action.run(async () => {
      if (Object.keys(changed).length === 0) return 'Nothing changed.';
      return props.save(changed);
    });
  };

  const id = (key: string) => `${props.title.replace(/\W+/g, '-').toLowerCase()}-${key}`;
  return (
    <form class="op-form" aria-label={props.title} onSubmit={submit}>
      <h3>{props.title}</h3>
      {fields.map((f) => {
        const value = draft[f.key]!;
        const set = (v: string | boolean) => setDraft({ ...draft, [f.key]: v });
        if (f.kind === 'bool') {
          return (
            <label key={f.key} class="op-check">
              <input type="checkbox" checked={value === true} onChange={(e) => set((e.target as HTMLInputElement).checked)} />
              {f.label}
              {f.hint && <small>{f.hint}</small>}
            </label>
          );
        }
        return (
          <div key={f.key} class="op-field">
            <label for={id(f.key)}>{f.label}</label>
            {f.kind === 'textarea' ? (
              <textarea id={id(f.key)} rows={4} maxLength={f.maxLength} value={value as string} onInput={(e) => set((e.target as HTMLTextAreaElement).value)} />
            ) : (
              <input
                id={id(f.key)}
                type={f.kind === 'int' ? 'number' : 'text'}
                required={f.kind === 'int' || f.required}
                step={f.kind === 'int' ? 1 : undefined}
                min={f.min}
                max={f.max}
                maxLength={f.maxLength}
                value={value as string}
                onInput={(e) => set((e.target as HTMLInputElement).value)}
              />
            )}
            {f.hint && <small>{f.hint}</small>}
          </div>
        );
      })}
      <div class="op-actions">
        <button type="submit" disabled={action.busy}>
          {props.submitLabel ?? 'Save'}
        </button>
      </div>
      <OutcomeLine outcome={action.outcome} />
    </form>
  );
}
