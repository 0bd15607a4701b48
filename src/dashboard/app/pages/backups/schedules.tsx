/**
 * The schedules: when backups run by themselves (GET /api/backups/schedules: each with its last
 * run, how it ended and the next), in the configuration's time zone, and their editor (on or
 * paused, the time zone, each schedule's name, cron expression read into words as it is typed,
 * retention class and targets; added and removed), saved through the configuration.
 */
import { useEffect, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import type { Access } from './access';
import { SaveBar, useConfigDraft, CheckField } from './config-edit';
import { cronProblem, cronWords } from './cron-words';
import { BASE, dateText, KEYS, relativeText, RETENTION_CLASSES, STATUS_LABELS, TARGET_KINDS, type BackupConfig, type Schedule, type ScheduleView } from './model';
import { refusalText } from './outcome';

const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
const LABELS: Readonly<Record<string, string>> = { name: 'name', cron: 'cron expression', retentionClass: 'retention class', targets: 'targets', timezone: 'time zone', enabled: 'on/off switch' };

interface Part {
  enabled: boolean;
  timezone: string;
  schedules: Schedule[];
}

/** "everything in scope", "services, database". */
export function targetsText(words: readonly string[]): string {
  return words
    .map((w) => {
      if (w === 'all') return 'everything in scope';
      const kind = TARGET_KINDS.find((k) => k.word === w || k.aliases.includes(w));
      return kind ? kind.label.toLowerCase() : w;
    })
    .join(', ');
}

const TARGET_CHOICES = [{ word: 'all', aliases: [] as readonly string[], label: 'Everything in scope' }, ...TARGET_KINDS];

function timeZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

function problemsOf(part: Part): string[] {
  const problems: string[] = [];
  if (part.timezone.trim() === '') problems.push('The time zone must be named, like Europe/Berlin or UTC.');
  const seen = new Map<string, number>();
  part.schedules.forEach((s, i) => {
    const which = `Schedule ${i + 1}${s.name ? ` (${s.name})` : ''}`;
    if (!NAME_RE.test(s.name)) problems.push(`${which}: its name is 1 to 64 letters, digits, _ or -.`);
    const first = seen.get(s.name.toLowerCase());
    if (first !== undefined) problems.push(`${which}: schedule ${first + 1} already has this name (names are unique, ignoring case).`);
    seen.set(s.name.toLowerCase(), i);
    const cron = cronProblem(s.cron);
    if (cron) problems.push(`${which}: ${cron}`);
    if (s.targets.length === 0) problems.push(`${which}: choose at least one target.`);
  });
  return problems;
}

function ScheduleTable({ views, now }: { views: readonly ScheduleView[]; now: number }) {
  return (
    <div class="bk-table-wrap">
      <table class="bk-table bk-schedules">
        <caption class="bk-hidden">Schedules</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">When</th>
            <th scope="col">Class</th>
            <th scope="col">Targets</th>
            <th scope="col">Last run</th>
            <th scope="col">Next run</th>
          </tr>
        </thead>
        <tbody>
          {views.length === 0 && (
            <tr>
              <td colSpan={6} class="bk-empty">
                No schedules: backups run only when started by hand.
              </td>
            </tr>
          )}
          {views.map((s) => {
            const words = cronWords(s.cron);
            return (
              <tr key={s.name} data-name={s.name}>
                <th scope="row">{s.name}</th>
                <td data-label="When">
                  {words ?? <code>{s.cron}</code>}
                  {words && (
                    <small class="bk-muted bk-block">
                      <code>{s.cron}</code>
                    </small>
                  )}
                </td>
                <td data-label="Class">{s.retentionClass}</td>
                <td data-label="Targets">{targetsText(s.targets)}</td>
                <td data-label="Last run">
                  {s.lastRunAt ? (
                    <>
                      <time dateTime={s.lastRunAt}>{dateText(s.lastRunAt)}</time>
                      {s.lastStatus && <span class={`bk-status-${s.lastStatus.toLowerCase()}`}> · {STATUS_LABELS[s.lastStatus] ?? s.lastStatus}</span>}
                    </>
                  ) : (
                    <span class="bk-muted">not yet</span>
                  )}
                </td>
                <td data-label="Next run">
                  {s.nextRunAt ? (
                    <>
                      <time dateTime={s.nextRunAt}>{dateText(s.nextRunAt)}</time> <span class="bk-muted">({relativeText(Date.parse(s.nextRunAt), now)})</span>
                    </>
                  ) : (
                    <span class="bk-muted">none (paused)</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function ScheduleEditor({ config, access, onClose }: { config: BackupConfig; access: Access; onClose: () => void }) {
  const part = useConfigDraft<Part>(config, (c) => ({ enabled: c.enabled, timezone: c.timezone, schedules: c.schedules }), (c, p) => ({ ...c, ...p }), LABELS);
  const [focusName, setFocusName] = useState<number | null>(null);
  const [zones] = useState(timeZones);
  const { draft } = part;
  useEffect(() => {
    if (focusName === null) return;
    document.getElementById(`bk-s-${focusName}-name`)?.focus();
    setFocusName(null);
  }, [focusName]);

  const setSchedule = (i: number, change: Partial<Schedule>) => part.set({ ...draft, schedules: draft.schedules.map((s, j) => (j === i ? { ...s, ...change } : s)) });
  const invalidAt = (i: number, key: string) => part.invalid === `schedules[${i}].${key}`;

  return (
    <form
      class="bk-editor bk-split"
      aria-labelledby="bk-s-edit-title"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void part.save(problemsOf(draft), 'The schedules are saved: the scheduler follows them from the next minute.');
      }}
    >
      <h3 id="bk-s-edit-title">Edit schedules</h3>
      <div class="bk-grid">
        <CheckField
          id="bk-s-enabled"
          label="Run the schedules"
          checked={draft.enabled}
          onChange={(enabled) => part.set({ ...draft, enabled })}
          hint="Off pauses every schedule; backups started by hand still run."
        />
        <div class="bk-field">
          <label for="bk-s-zone">Time zone</label>
          <input
            id="bk-s-zone"
            list="bk-s-zones"
            value={draft.timezone}
            onInput={(e) => part.set({ ...draft, timezone: (e.target as HTMLInputElement).value })}
            autocomplete="off"
            spellcheck={false}
            maxLength={64}
            aria-invalid={part.invalid === 'timezone'}
            aria-describedby="bk-s-zone-hint"
          />
          <datalist id="bk-s-zones">
            {zones.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          <small id="bk-s-zone-hint">The IANA zone the cron times are read in, like Europe/Berlin or UTC.</small>
        </div>
      </div>
      {draft.schedules.map((s, i) => {
        const words = cronWords(s.cron);
        const problem = cronProblem(s.cron);
        const title = `Schedule ${i + 1}${s.name ? `: ${s.name}` : ''}`;
        return (
          <fieldset class="bk-schedule-edit" key={i}>
            <legend>{title}</legend>
            <div class="bk-grid">
              <div class="bk-field">
                <label for={`bk-s-${i}-name`}>Name</label>
                <input
                  id={`bk-s-${i}-name`}
                  value={s.name}
                  onInput={(e) => setSchedule(i, { name: (e.target as HTMLInputElement).value })}
                  autocomplete="off"
                  spellcheck={false}
                  maxLength={64}
                  aria-invalid={invalidAt(i, 'name') || (s.name !== '' && !NAME_RE.test(s.name))}
                />
              </div>
              <div class="bk-field">
                <label for={`bk-s-${i}-cron`}>Cron expression</label>
                <input
                  id={`bk-s-${i}-cron`}
                  value={s.cron}
                  onInput={(e) => setSchedule(i, { cron: (e.target as HTMLInputElement).value })}
                  autocomplete="off"
                  spellcheck={false}
                  maxLength={128}
                  class="bk-mono"
                  aria-invalid={invalidAt(i, 'cron') || problem !== null}
                  aria-describedby={`bk-s-${i}-cron-words`}
                />
                <small id={`bk-s-${i}-cron-words`} class={problem ? 'bk-problem' : undefined} aria-live="polite">
                  {problem ?? (words ? `Runs ${words} (${draft.timezone}).` : 'minute hour day-of-month month day-of-week; the controller checks it on save.')}
                </small>
              </div>
              <div class="bk-field">
                <label for={`bk-s-${i}-class`}>Retention class</label>
                <select id={`bk-s-${i}-class`} value={s.retentionClass} onChange={(e) => setSchedule(i, { retentionClass: (e.target as HTMLSelectElement).value })}>
                  {RETENTION_CLASSES.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              </div>
            </div>
            <fieldset class="bk-choice bk-inline">
              <legend>Targets of {s.name || `schedule ${i + 1}`}</legend>
              {TARGET_CHOICES.map((choice) => {
                const on = s.targets.includes(choice.word) || choice.aliases.some((a) => s.targets.includes(a));
                return (
                  <label class="bk-check" key={choice.word}>
                    <input
                      type="checkbox"
                      checked={on}
                      onChange={(e) => {
                        const checked = (e.target as HTMLInputElement).checked;
                        const rest = s.targets.filter((t) => t !== choice.word && !choice.aliases.includes(t));
                        setSchedule(i, { targets: checked ? [...rest, choice.word] : rest });
                      }}
                    />
                    {choice.label}
                  </label>
                );
              })}
            </fieldset>
            <div class="bk-actions">
              <button
                type="button"
                class="bk-secondary"
                onClick={() => part.set({ ...draft, schedules: draft.schedules.filter((_, j) => j !== i) })}
                aria-label={`Remove ${s.name ? `schedule ${s.name}` : `schedule ${i + 1}`}`}
              >
                Remove
              </button>
            </div>
          </fieldset>
        );
      })}
      <div class="bk-actions">
        <button
          type="button"
          class="bk-secondary"
          onClick={() => {
            part.set({ ...draft, schedules: [...draft.schedules, { name: '', cron: '0 3 * * *', retentionClass: 'daily', targets: ['all'] }] });
            setFocusName(draft.schedules.length);
          }}
        >
          Add a schedule
        </button>
        <button type="button" class="bk-secondary" onClick={onClose}>
          Close the editor
        </button>
      </div>
      <SaveBar part={part} access={access} label="schedules" />
    </form>
  );
}

export function SchedulesSection({ config, access, now }: { config: BackupConfig | undefined; access: Access; now: number }) {
  const views = useQuery({ queryKey: KEYS.schedules, queryFn: () => api<ScheduleView[]>(`${BASE}/schedules`), refetchInterval: 60_000 });
  const [editing, setEditing] = useState(false);
  return (
    <section class="bk-card" aria-labelledby="bk-schedules-title">
      <h2 id="bk-schedules-title">Schedules</h2>
      {config && (
        <p class={config.enabled ? 'bk-muted' : 'bk-warning'}>
          {config.enabled
            ? `The schedules run on their own, their times read in ${config.timezone}.`
            : `The schedules are paused (enabled = false): only backups started by hand run. Times are read in ${config.timezone}.`}
        </p>
      )}
      {views.isError && (
        <p role="alert" class="bk-error">
          {refusalText(views.error, 'The schedules could not be read')}
        </p>
      )}
      {views.data && <ScheduleTable views={views.data} now={now} />}
      {config && !editing && (
        <div class="bk-actions">
          <button type="button" class="bk-secondary" onClick={() => setEditing(true)}>
            Edit schedules
          </button>
        </div>
      )}
      {config && editing && <ScheduleEditor config={config} access={access} onClose={() => setEditing(false)} />}
    </section>
  );
}
