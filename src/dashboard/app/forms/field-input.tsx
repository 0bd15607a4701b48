import type { FieldSpec, RawValue } from './fields';

interface Props {
  id: string;
  spec: FieldSpec;
  value: RawValue;
  problem: string | undefined;
  readOnly?: boolean;
  onChange: (value: RawValue) => void;
}

/**
 * One labelled control with its hint and its problem under it. The label's text is the
 * control's accessible name; the hint and the problem are its description (aria-describedby),
 * and a problem also marks it aria-invalid, so a screen reader hears why it was refused.
 */
export function FieldInput({ id, spec, value, problem, readOnly, onChange }: Props) {
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  const describedBy = [spec.hint ? hintId : null, problem ? problemId : null].filter(Boolean).join(' ') || undefined;
  const common = { id, name: id, 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy };
  const textOf = (event: Event) => (event.currentTarget as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement).value;
  const str = typeof value === 'string' ? value : '';

  let control;
  switch (spec.kind) {
    case 'bool':
      return (
        <div class="gd-field gd-check">
          <input {...common} type="checkbox" checked={value === true} disabled={readOnly} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)} />
          <label for={id}>{spec.label}</label>
          {spec.hint && <small id={hintId}>{spec.hint}</small>}
        </div>
      );
    case 'choice':
      control = (
        <select {...common} value={str} disabled={readOnly} onChange={(e) => onChange(textOf(e))}>
          {!spec.options.includes(str) && <option value={str}>{str === '' ? 'Choose…' : str}</option>}
          {spec.options.map((option) => (
            <option key={option} value={option}>
              {option}
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
          placeholder={spec.placeholder}
          autoComplete="off"
          spellcheck={false}
          aria-required={spec.required ? true : undefined}
          onInput={(e) => onChange(textOf(e))}
        />
      );
      break;
  }
  return (
    <div class={`gd-field${spec.kind === 'list' ? ' gd-wide' : ''}${problem ? ' gd-invalid' : ''}`}>
      <div class="gd-label">
        <label for={id}>{spec.label}</label>
        {/* Outside the label, so the accessible name stays the field's name (aria-required says it). */}
        {(spec.kind === 'text' || spec.kind === 'int') && spec.required && <span aria-hidden="true">required</span>}
      </div>
      {control}
      {spec.hint && <small id={hintId}>{spec.hint}</small>}
      {problem && (
        <p class="gd-problem" id={problemId}>
          {problem}
        </p>
      )}
    </div>
  );
}
