/**
 * The targets: which types "all" covers (the configuration's scope) and what each is, the
 * exclude patterns, and each target's last backup as the newest records show it. Scope and
 * excludes are saved through the configuration.
 */
import { useState } from 'preact/hooks';
import type { Access } from './access';
import { SaveBar, useConfigDraft, CheckField } from './config-edit';
import { dateText, relativeText, STATUS_LABELS, TARGET_KINDS, TYPE_LABELS, type Backup, type BackupConfig, type Scope, type TargetType } from './model';

interface Part {
  scope: Scope;
  excludes: string[];
}

const LABELS: Readonly<Record<string, string>> = Object.fromEntries([...TARGET_KINDS.map((k) => [`scope.${k.scope}`, `the scope of ${k.label.toLowerCase()}`]), ['excludes', 'the exclude patterns']]);

/** The patterns of the textarea: one a line, blank lines left out. */
const patternsOf = (text: string): string[] => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');

interface Seen {
  type: string;
  name: string;
  last: Backup;
  lastSuccess: Backup | undefined;
}

/** Each target's newest record and newest success, among `recent` (newest first). */
export function lastOfEachTarget(recent: readonly Backup[]): Seen[] {
  const seen = new Map<string, Seen>();
  for (const b of recent) {
    const key = `${b.targetType}:${b.targetName}`;
    const entry = seen.get(key);
    if (!entry) seen.set(key, { type: b.targetType, name: b.targetName, last: b, lastSuccess: b.status === 'SUCCESS' ? b : undefined });
    else if (!entry.lastSuccess && b.status === 'SUCCESS') entry.lastSuccess = b;
  }
  const order = (t: string) => TARGET_KINDS.findIndex((k) => k.type === t);
  return [...seen.values()].sort((a, b) => order(a.type) - order(b.type) || a.name.localeCompare(b.name));
}

interface Props {
  config: BackupConfig;
  access: Access;
  recent: readonly Backup[] | undefined;
  /** How many records `recent` could hold (the API's total). */
  recentTotal: number;
  now: number;
}

export function TargetsSection({ config, access, recent, recentTotal, now }: Props) {
  const part = useConfigDraft<Part>(config, (c) => ({ scope: c.scope, excludes: c.excludes }), (c, p) => ({ ...c, ...p }), LABELS);
  const { draft } = part;
  const seen = recent ? lastOfEachTarget(recent) : [];
  // The text as typed (blank lines and all); the draft holds its patterns. A reset or a change on
  // the controller puts the draft's patterns back into the text.
  const [text, setText] = useState(() => draft.excludes.join('\n'));
  const patternsKey = JSON.stringify(draft.excludes);
  const [synced, setSynced] = useState(patternsKey);
  if (patternsKey !== synced) {
    setSynced(patternsKey);
    if (patternsKey !== JSON.stringify(patternsOf(text))) setText(draft.excludes.join('\n'));
  }

  return (
    <section class="bk-card" aria-labelledby="bk-targets-title">
      <h2 id="bk-targets-title">Targets</h2>
      <form
        class="bk-editor"
        aria-label="Edit targets"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const problems = draft.excludes.some((p) => p.length > 256) ? ['An exclude pattern is at most 256 characters.'] : [];
          void part.save(problems, 'The targets are saved: the next backup follows them.');
        }}
      >
        <fieldset class="bk-choice bk-scope">
          <legend>What “everything in scope” backs up</legend>
          {TARGET_KINDS.map((kind) => (
            <CheckField
              key={kind.scope}
              id={`bk-scope-${kind.scope}`}
              label={kind.label}
              checked={draft.scope[kind.scope]}
              onChange={(on) => part.set({ ...draft, scope: { ...draft.scope, [kind.scope]: on } })}
              hint={kind.covers}
            />
          ))}
        </fieldset>
        <div class="bk-field">
          <label for="bk-excludes">Left out of archives</label>
          <textarea
            id="bk-excludes"
            rows={Math.min(12, Math.max(4, draft.excludes.length + 1))}
            value={text}
            onInput={(e) => {
              const value = (e.target as HTMLTextAreaElement).value;
              setText(value);
              part.set({ ...draft, excludes: patternsOf(value) });
            }}
            spellcheck={false}
            aria-invalid={part.invalid?.startsWith('excludes') ?? false}
            aria-describedby="bk-excludes-hint"
          />
          <small id="bk-excludes-hint">One glob a line, matched against a file’s name or its path inside the folder backed up (logs/**, *.log). Empty leaves nothing out.</small>
        </div>
        <SaveBar part={part} access={access} label="targets" />
      </form>

      <h3>Last backup of each target</h3>
      {recent && recentTotal > recent.length && <p class="bk-muted">From the newest {recent.length} of {recentTotal} records.</p>}
      <div class="bk-table-wrap">
        <table class="bk-table bk-seen">
          <caption class="bk-hidden">Last backup of each target</caption>
          <thead>
            <tr>
              <th scope="col">Target</th>
              <th scope="col">Last run</th>
              <th scope="col">Last success</th>
            </tr>
          </thead>
          <tbody>
            {recent && seen.length === 0 && (
              <tr>
                <td colSpan={3} class="bk-empty">
                  Nothing has been backed up yet.
                </td>
              </tr>
            )}
            {seen.map((s) => (
              <tr key={`${s.type}:${s.name}`}>
                <th scope="row">
                  {TYPE_LABELS[s.type as TargetType] ?? s.type}
                  {s.name !== 'all' && ` ${s.name}`}
                </th>
                <td data-label="Last run">
                  #{s.last.id} · <span class={`bk-status-${s.last.status.toLowerCase()}`}>{STATUS_LABELS[s.last.status] ?? s.last.status}</span> ·{' '}
                  <time dateTime={s.last.startedAt} title={dateText(s.last.startedAt)}>
                    {relativeText(Date.parse(s.last.startedAt), now)}
                  </time>
                </td>
                <td data-label="Last success">
                  {s.lastSuccess ? (
                    <>
                      #{s.lastSuccess.id} ·{' '}
                      <time dateTime={s.lastSuccess.startedAt} title={dateText(s.lastSuccess.startedAt)}>
                        {relativeText(Date.parse(s.lastSuccess.startedAt), now)}
                      </time>
                    </>
                  ) : (
                    <span class="bk-muted">none among these</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
