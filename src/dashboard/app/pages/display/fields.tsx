/**
 * The editor's controls: one labelled control a field (text, item, picker size, lore lines),
 * and the two maps (state labels; an item per label) row by row with add and remove. Each
 * control's label is its accessible name; its hint, what it held before an unsaved change,
 * the page's reading of its value and the controller's refusal are its description
 * (aria-describedby), and a refusal marks it aria-invalid.
 */
import { useState } from 'preact/hooks';
import { SIZES, type Display, type Draft, type FieldInfo, type MapName, draftMap, fieldValue, mapOf, valueAt, withField, withMapKey } from './model';
import { itemProblem, keyProblem, loreLines, loreProblem, loreText, textProblem } from './rules';

export const fieldId = (path: string) => `dp-f-${path.replaceAll('.', '-')}`;
export const mapRowId = (map: MapName, key: string) => `dp-m-${map}-${key}`;

/** The controller's refusal of one field or map entry, in its words. */
export interface Refusal {
  message: string;
}

function shownValue(value: string | number | string[]): string {
  if (Array.isArray(value)) return value.length === 0 ? 'no lines' : value.map((line) => (line === '' ? '(empty line)' : line)).join(' / ');
  return value === '' ? '(empty)' : String(value);
}

interface FieldProps {
  info: FieldInfo;
  display: Display;
  draft: Draft;
  refusal: Refusal | undefined;
  onDraft: (next: Draft) => void;
}

export function Field({ info, display, draft, refusal, onDraft }: FieldProps) {
  const id = fieldId(info.path);
  const value = fieldValue(display, draft, info.path);
  const held = valueAt(display, info.path);
  const changed = Object.hasOwn(draft.fields, info.path);
  let local: string | null = null;
  if (info.kind === 'text') local = textProblem(value as string);
  else if (info.kind === 'item') local = itemProblem(value as string);
  else if (info.kind === 'lore') local = loreProblem(value as string[]);
  const ids = {
    hint: info.hint ? `${id}-hint` : null,
    changed: changed ? `${id}-changed` : null,
    local: local ? `${id}-local` : null,
    refusal: refusal ? `${id}-refusal` : null,
  };
  const common = {
    id,
    name: id,
    'aria-invalid': refusal ? (true as const) : undefined,
    'aria-describedby': Object.values(ids).filter(Boolean).join(' ') || undefined,
  };
  const set = (next: string | number | string[]) => onDraft(withField(display, draft, info.path, next));
  let control;
  if (info.kind === 'size') {
    control = (
      <select {...common} value={String(value)} onChange={(e) => set(Number((e.currentTarget as HTMLSelectElement).value))}>
        {SIZES.map((size) => (
          <option key={size} value={String(size)}>
            {size} slots ({size / 9} {size === 9 ? 'row' : 'rows'})
          </option>
        ))}
      </select>
    );
  } else if (info.kind === 'lore') {
    const lines = value as string[];
    control = <textarea {...common} rows={Math.min(8, Math.max(3, lines.length + 1))} spellcheck={false} value={loreText(lines)} onInput={(e) => set(loreLines((e.currentTarget as HTMLTextAreaElement).value))} />;
  } else {
    control = <input {...common} type="text" autoComplete="off" spellcheck={false} value={value as string} onInput={(e) => set((e.currentTarget as HTMLInputElement).value)} />;
  }
  return (
    <div class={['dp-field', info.kind === 'lore' ? 'dp-wide' : '', changed ? 'dp-changed' : '', refusal ? 'dp-invalid' : ''].filter(Boolean).join(' ')}>
      <label for={id}>{info.label}</label>
      {control}
      {ids.hint && <small id={ids.hint}>{info.hint}</small>}
      {ids.changed && (
        <small id={ids.changed} class="dp-unsaved">
          Unsaved; the controller holds “{shownValue(held)}”.
        </small>
      )}
      {ids.local && (
        <small id={ids.local} class="dp-problem">
          {info.label} {local}: the controller will refuse it.
        </small>
      )}
      {ids.refusal && (
        <p id={ids.refusal} class="dp-problem dp-refusal">
          The controller refused this: {refusal!.message}
        </p>
      )}
    </div>
  );
}

interface MapWords {
  legend: string;
  intro: string;
  /** The column of keys and of values, in words. */
  keyWord: string;
  valueWord: string;
  /** A value's problem (a label is text, an item a material name). */
  problem: (value: string) => string | null;
  addLabel: string;
}

export const MAP_WORDS: Record<MapName, MapWords> = {
  states: {
    legend: 'State labels',
    intro:
      'What {state} shows for each state of a server: a core state (READY, STOPPED…) or a custom state a game sets through the SDK. A state without a label shows as itself.',
    keyWord: 'State',
    valueWord: 'Label',
    problem: textProblem,
    addLabel: 'Add the label',
  },
  statusItems: {
    legend: 'Status items',
    intro: 'The item each server shows in the picker, by its state’s label (ONLINE, INGAME…). A label without an item shows GRAY_WOOL.',
    keyWord: 'Label',
    valueWord: 'Item',
    problem: itemProblem,
    addLabel: 'Add the item',
  },
};

interface MapProps {
  map: MapName;
  display: Display;
  draft: Draft;
  /** Refusals by key; '' for the map as a whole (a key it may not have). */
  refusals: Map<string, Refusal>;
  onDraft: (next: Draft) => void;
}

export function MapEditor({ map, display, draft, refusals, onDraft }: MapProps) {
  const words = MAP_WORDS[map];
  const held = mapOf(display, map);
  const rows = draftMap(display, draft, map);
  const removed = Object.entries(draft.maps[map]).filter(([key, value]) => value === null && Object.hasOwn(held, key));
  const [newKey, setNewKey] = useState('');
  const [newValue, setNewValue] = useState('');
  const [addProblem, setAddProblem] = useState<string | null>(null);
  const prefix = `dp-${map}`;
  const whole = refusals.get('');
  const add = () => {
    const key = newKey.trim();
    if (key === '') return setAddProblem(`Write the ${words.keyWord.toLowerCase()} first.`);
    if (rows.some(([k]) => k === key)) return setAddProblem(`${key} is listed already: change its ${words.valueWord.toLowerCase()} above.`);
    setAddProblem(null);
    onDraft(withMapKey(display, draft, map, key, newValue));
    setNewKey('');
    setNewValue('');
  };
  const keyLocal = newKey.trim() === '' ? null : keyProblem(newKey.trim());
  const valueLocal = newKey.trim() === '' && newValue === '' ? null : words.problem(newValue);
  return (
    <fieldset class={whole ? 'dp-map dp-invalid' : 'dp-map'} aria-describedby={`${prefix}-intro${whole ? ` ${prefix}-refusal` : ''}`}>
      <legend>{words.legend}</legend>
      <p id={`${prefix}-intro`} class="dp-muted dp-small">
        {words.intro}
      </p>
      {whole && (
        <p id={`${prefix}-refusal`} class="dp-problem dp-refusal">
          The controller refused this: {whole.message}
        </p>
      )}
      {rows.length === 0 && <p class="dp-muted dp-small">None: {map === 'states' ? 'every state shows as itself' : 'every server shows GRAY_WOOL'}.</p>}
      <ul class="dp-rows">
        {rows.map(([key, value]) => {
          const id = mapRowId(map, key);
          const refusal = refusals.get(key);
          const edit = draft.maps[map][key];
          const changed = edit !== undefined;
          const local = words.problem(value);
          const local2 = Object.hasOwn(held, key) ? null : keyProblem(key);
          const described = [changed ? `${id}-changed` : null, local || local2 ? `${id}-local` : null, refusal ? `${id}-refusal` : null].filter(Boolean).join(' ') || undefined;
          return (
            <li key={key} class={['dp-row', changed ? 'dp-changed' : '', refusal ? 'dp-invalid' : ''].filter(Boolean).join(' ')}>
              <label for={id} class="dp-key">
                <span class="dp-hidden">{words.valueWord} for </span>
                <code>{key}</code>
              </label>
              <input
                id={id}
                type="text"
                autoComplete="off"
                spellcheck={false}
                value={value}
                aria-invalid={refusal ? true : undefined}
                aria-describedby={described}
                onInput={(e) => onDraft(withMapKey(display, draft, map, key, (e.currentTarget as HTMLInputElement).value))}
              />
              <button type="button" class="dp-secondary" onClick={() => onDraft(withMapKey(display, draft, map, key, null))}>
                Remove<span class="dp-hidden"> the {words.valueWord.toLowerCase()} for {key}</span>
              </button>
              {changed && (
                <small id={`${id}-changed`} class="dp-unsaved dp-row-note">
                  {Object.hasOwn(held, key) ? (
                    <>
                      Unsaved; the controller holds “{held[key]}”.
                    </>
                  ) : (
                    'Unsaved: new.'
                  )}
                </small>
              )}
              {(local || local2) && (
                <small id={`${id}-local`} class="dp-problem dp-row-note">
                  {local2 ? `The ${words.keyWord.toLowerCase()} ${local2}` : `The ${words.valueWord.toLowerCase()} ${local}`}: the controller will refuse it.
                </small>
              )}
              {refusal && (
                <p id={`${id}-refusal`} class="dp-problem dp-refusal dp-row-note">
                  The controller refused this: {refusal.message}
                </p>
              )}
            </li>
          );
        })}
      </ul>
      {removed.length > 0 && (
        <ul class="dp-removed">
          {removed.map(([key]) => (
            <li key={key}>
              <span>
                <s>
                  <code>{key}</code> “{held[key]}”
                </s>{' '}
                removed (unsaved)
              </span>
              <button type="button" class="dp-secondary" onClick={() => onDraft(withMapKey(display, draft, map, key, held[key]!))}>
                Keep<span class="dp-hidden"> the {words.valueWord.toLowerCase()} for {key}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="dp-add" role="group" aria-label={`New ${words.valueWord.toLowerCase()}`}>
        <div class="dp-field">
          <label for={`${prefix}-new-key`}>New {words.keyWord.toLowerCase()}</label>
          <input
            id={`${prefix}-new-key`}
            type="text"
            autoComplete="off"
            spellcheck={false}
            value={newKey}
            aria-describedby={keyLocal || addProblem ? `${prefix}-new-problem` : undefined}
            onInput={(e) => {
              setNewKey((e.currentTarget as HTMLInputElement).value);
              setAddProblem(null);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
        </div>
        <div class="dp-field">
          <label for={`${prefix}-new-value`}>Its {words.valueWord.toLowerCase()}</label>
          <input
            id={`${prefix}-new-value`}
            type="text"
            autoComplete="off"
            spellcheck={false}
            value={newValue}
            aria-describedby={valueLocal ? `${prefix}-new-problem` : undefined}
            onInput={(e) => setNewValue((e.currentTarget as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
        </div>
        <button type="button" class="dp-secondary" onClick={add}>
          {words.addLabel}
        </button>
        {(addProblem || keyLocal || valueLocal) && (
          <small id={`${prefix}-new-problem`} class="dp-problem dp-row-note">
            {addProblem ?? (keyLocal ? `The ${words.keyWord.toLowerCase()} ${keyLocal}: the controller will refuse it.` : `The ${words.valueWord.toLowerCase()} ${valueLocal}: the controller will refuse it.`)}
          </small>
        )}
      </div>
    </fieldset>
  );
}
