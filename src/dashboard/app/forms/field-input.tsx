import type { ComponentChildren } from 'preact';
import type { FieldSpec, RawValue } from './fields';

/** What every control of a field carries: its id and name, and what describes it. */
export interface ControlAttributes {
  id: string;
  name: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

interface Props {
  id: string;
  spec: FieldSpec;
  value: RawValue;
  problem: string | undefined;
  readOnly?: boolean;
  onChange: (value: RawValue) => void;
  /** Words under the control that follow the form (what the chosen software is); replaces the spec's hint. */
  hint?: ComponentChildren;
  /** A line after the hint: why a list is missing and what to do instead (part of the description too). */
  note?: ComponentChildren;
  /** A control of its own in place of the spec's (a version picker's select), given the attributes above. */
  control?: (attributes: ControlAttributes) => ComponentChildren;
  /** Placeholder over the spec's (a text box still waiting for its list: "Loading…"). */
  placeholder?: string;
}

/**
 * One labelled control with its hint and its problem under it. The label's text is the
 * control's accessible name; the hint, the note and the problem are its description
 * (aria-describedby), and a problem also marks it aria-invalid, so a screen reader hears why it
 * was refused.
 */
export function FieldInput({ id, spec, value, problem, readOnly, onChange, hint, note, control: own, placeholder }: Props) {
  const hintId = `${id}-hint`;
  const noteId = `${id}-note`;
  const problemId = `${id}-problem`;
  const shownHint = hint ?? spec.hint;
  const describedBy = [shownHint ? hintId : null, note ? noteId : null, problem ? problemId : null].filter(Boolean).join(' ') || undefined;
  const common: ControlAttributes = { id, name: id, 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy };
  const textOf = (event: Event) => (event.currentTarget as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement).value;
  const str = typeof value === 'string' ? value : '';

  let control;
  if (own) control = own(common);
  else {
    switch (spec.kind) {
      case 'bool':
        return (
          <div class="gd-field gd-check">
            <input {...common} type="checkbox" checked={value === true} disabled={readOnly} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)} />
            <label for={id}>{spec.label}</label>
            {shownHint && <small id={hintId}>{shownHint}</small>}
          </div>
        );
      case 'choice':
        control = (
          <select {...common} value={str} disabled={readOnly} onChange={(e) => onChange(textOf(e))}>
            {!spec.options.includes(str) && <option value={str}>{str === '' ? 'Choose…' : str}</option>}
            {spec.options.map((option) => (
              <option key={option} value={option}>
                {spec.labels?.[option] ?? option}
              </option>
            ))}
          </select>
        );
        break;
      case 'list':
        control = <textarea {...common} rows={Math.min(6, Math.max(2, str.split('\n').length))} value={str} readOnly={readOnly} spellcheck={false} onInput={(e) => onChange(textOf(e))} />;
        break;
      case 'int':
      case 'number':
        control = (
          <input
            {...common}
            type="number"
            inputMode={spec.kind === 'int' ? 'numeric' : 'decimal'}
            min={spec.min}
            max={spec.max}
            step={spec.kind === 'int' ? 1 : spec.step}
            aria-required={spec.kind === 'int' && spec.required ? true : undefined}
            value={str}
            readOnly={readOnly}
            onInput={(e) => onChange(textOf(e))}
          />
        );
        break;
      case 'text':
        control = (
          <input
            {...common}
            type="text"
            value={str}
            readOnly={readOnly}
            placeholder={placeholder ?? spec.placeholder}
            autoComplete="off"
            spellcheck={false}
            aria-required={spec.required ? true : undefined}
            onInput={(e) => onChange(textOf(e))}
          />
        );
        break;
    }
  }
  return (
    <div class={`gd-field${spec.kind === 'list' ? ' gd-wide' : ''}${problem ? ' gd-invalid' : ''}`}>
      <div class="gd-label">
        <label for={id}>{spec.label}</label>
        {/* Outside the label, so the accessible name stays the field's name (aria-required says it). */}
        {(spec.kind === 'text' || spec.kind === 'int') && spec.required && <span aria-hidden="true">required</span>}
      </div>
      {control}
      {shownHint && <small id={hintId}>{shownHint}</small>}
      {note && (
        <div class="gd-note" id={noteId}>
          {note}
        </div>
      )}
      {problem && (
        <p class="gd-problem" id={problemId}>
          {problem}
        </p>
      )}
    </div>
  );
}
