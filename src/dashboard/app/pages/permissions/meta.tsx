/** A group's or a player's meta: key = value lines, each removable, and a form that sets one key. */
import { useState } from 'preact/hooks';
import type { QueryKey } from '@tanstack/preact-query';
import { OutcomeLine } from '../settings/outcome';
import { Field, inputText, usePermsAction } from './common';
import type { Ok } from './requests';
import { metaProblem } from './rules';

interface Props {
  id: string;
  /** The group's or player's name, for the controls' names. */
  owner: string;
  meta: Record<string, string>;
  refresh: QueryKey;
  set: (key: string, value: string) => Promise<Ok>;
  remove: (key: string) => Promise<Ok>;
}

export function MetaCard({ id, owner, meta, refresh, set, remove }: Props) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const action = usePermsAction();
  const entries = Object.entries(meta).sort(([a], [b]) => a.localeCompare(b));
  const submit = async (event: Event) => {
    event.preventDefault();
    const why = metaProblem(key, value);
    setProblem(why);
    if (why) return;
    if (await action.run(async () => (await set(key, value)).message, refresh)) {
      setKey('');
      setValue('');
    }
  };
  return (
    <section class="op-card" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Meta</h3>
      {entries.length === 0 ? (
        <p class="op-muted">No meta keys.</p>
      ) : (
        <ul class="perm-meta" aria-label={`Meta of ${owner}`}>
          {entries.map(([k, v]) => (
            <li key={k}>
              <code>{k}</code> = <span class="perm-meta-value">{v}</span>
              <button type="button" class="gd-secondary perm-small" disabled={action.busy} aria-label={`Remove meta ${k} of ${owner}`} onClick={() => void action.run(async () => (await remove(k)).message, refresh)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="perm-form" aria-label={`Set meta of ${owner}`} onSubmit={(e) => void submit(e)} noValidate>
        <div class="gd-grid">
          <Field id={`${id}-key`} label="Key" hint="1 to 128 of letters, digits and _ . : -" problem={problem}>
            {(a) => <input {...a} type="text" value={key} autoComplete="off" spellcheck={false} onInput={(e) => setKey(inputText(e))} />}
          </Field>
          <Field id={`${id}-value`} label="Value" hint="Up to 1024 characters.">
            {(a) => <input {...a} type="text" value={value} autoComplete="off" spellcheck={false} onInput={(e) => setValue(inputText(e))} />}
          </Field>
        </div>
        <div class="op-actions">
          <button type="submit" disabled={action.busy}>
            Set meta
          </button>
        </div>
        <OutcomeLine outcome={action.outcome} />
      </form>
    </section>
  );
}
