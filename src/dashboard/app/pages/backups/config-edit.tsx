/**
 * Editing the backup configuration a part at a time (targets, schedules, retention, archiving)
 * through PUT /api/backups/config, which replaces the whole configuration (a field left out takes
 * its default): each save reads the configuration as it is now and sends it whole with only its
 * part changed, so another part changed meanwhile by someone else is kept. The API's refusal
 * (BACKUP_CONFIG_INVALID names the field, FORBIDDEN an operator-only field or a missing node) is
 * said in words, the field it names marked.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api, ApiFailure } from '../../api';
import type { Access } from './access';
import { BASE, KEYS, NODE, type BackupConfig } from './model';
import { sentence } from '../../sentence';
import { OutcomeLine, refusalText, type Outcome } from './outcome';

/** A part of the configuration being edited: the draft, whether it differs, and its save. */
export interface ConfigDraft<T> {
  draft: T;
  set: (next: T) => void;
  dirty: boolean;
  reset: () => void;
  busy: boolean;
  outcome: Outcome | null;
  /** The field path the API's last refusal named (`schedules[1].cron`), to mark it. */
  invalid: string | null;
  save: (problems: readonly string[], done: string) => Promise<void>;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The words of a BACKUP_CONFIG_INVALID path: `schedules[1].cron` → `schedule 2’s cron`. */
export function fieldWords(path: string, labels: Readonly<Record<string, string>>): string {
  const schedule = /^schedules\[(\d+)\]\.?(.*)$/.exec(path);
  if (schedule) return `schedule ${Number(schedule[1]) + 1}${schedule[2] ? `’s ${labels[schedule[2]] ?? schedule[2]}` : ''}`;
  const excludes = /^excludes\[(\d+)\]$/.exec(path);
  if (excludes) return `exclude pattern ${Number(excludes[1]) + 1}`;
  return labels[path] ?? path;
}

export function useConfigDraft<T>(config: BackupConfig, pick: (c: BackupConfig) => T, apply: (c: BackupConfig, part: T) => BackupConfig, labels: Readonly<Record<string, string>>): ConfigDraft<T> {
  const queries = useQueryClient();
  const base = pick(config);
  const [draft, setDraft] = useState<T>(() => structuredClone(base));
  const [shownBase, setShownBase] = useState<T>(base);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  const dirty = !same(draft, base);
  // The configuration changed on the controller (a save here, or elsewhere): an untouched draft follows it.
  if (!same(base, shownBase)) {
    setShownBase(base);
    if (same(draft, shownBase)) setDraft(structuredClone(base));
  }

  const save = async (problems: readonly string[], done: string) => {
    if (problems.length > 0) {
      setOutcome({
        ok: false,
        text: problems.length === 1 ? `Not saved: ${problems[0]}` : (
          <>
            Not saved: {problems.length} fields need a change first.
            <ul class="bk-errors">
              {problems.map((p, i) => (
                <li key={i}>{p}</li>
              ))}
            </ul>
          </>
        ),
      });
      return;
    }
    setBusy(true);
    setOutcome(null);
    setInvalid(null);
    try {
      // The whole configuration as it is now, with this part as drafted.
      const latest = await api<BackupConfig>(`${BASE}/config`);
      const saved = await api<BackupConfig>(`${BASE}/config`, { method: 'PUT', json: apply(latest, draft) });
      queries.setQueryData(KEYS.config, saved);
      setDraft(structuredClone(pick(saved)));
      setShownBase(pick(saved));
      setOutcome({ ok: true, text: done });
    } catch (error) {
      if (error instanceof ApiFailure && error.code === 'BACKUP_CONFIG_INVALID') {
        const named = /^([A-Za-z]+(?:\[\d+\])?(?:\.[A-Za-z]+)*(?:\[\d+\])?): ([\s\S]*)$/.exec(error.message);
        if (named) {
          setInvalid(named[1]!);
          setOutcome({ ok: false, text: `Not saved: the controller refused ${fieldWords(named[1]!, labels)}: ${sentence(named[2]!)} (BACKUP_CONFIG_INVALID)` });
        } else setOutcome({ ok: false, text: refusalText(error, 'Not saved') });
      } else if (error instanceof ApiFailure && error.status === 403 && /operator's to change/.test(error.message)) {
        setOutcome({ ok: false, text: `Not saved: ${sentence(error.message)} Only an admin token or an admin dashboard session changes it.` });
      } else {
        setOutcome({ ok: false, text: refusalText(error, 'Not saved') });
      }
    } finally {
      setBusy(false);
      void queries.invalidateQueries({ queryKey: KEYS.all });
    }
  };

  return {
    draft,
    set: (next) => {
      setDraft(next);
      setOutcome(null);
    },
    dirty,
    reset: () => {
      setDraft(structuredClone(base));
      setOutcome(null);
      setInvalid(null);
    },
    busy,
    outcome,
    invalid,
    save,
  };
}

/** Save and Discard under a part's fields, with what this account may do and the answer. */
export function SaveBar<T>({ part, access, label, children }: { part: ConfigDraft<T>; access: Access; label: string; children?: ComponentChildren }) {
  return (
    <div class="bk-savebar">
      <div class="bk-actions">
        <button type="submit" disabled={part.busy || !part.dirty}>
          {part.busy ? 'Saving…' : `Save ${label}`}
        </button>
        <button type="button" class="bk-secondary" disabled={part.busy || !part.dirty} onClick={part.reset}>
          Discard changes
        </button>
        {part.dirty && !part.busy && <span class="bk-muted">Unsaved changes</span>}
      </div>
      {children}
      {!access.manage && (
        <small class="bk-problem">
          Your account may not change the backup configuration: that needs the permission {NODE.manage}, so the controller will refuse a save.
        </small>
      )}
      <OutcomeLine outcome={part.outcome} />
    </div>
  );
}

/** A whole number in a range, or why not. */
export function rangeProblem(label: string, value: number, min: number, max: number): string | null {
  if (!Number.isInteger(value) || value < min || value > max) return `${label} must be a whole number from ${min} to ${max}.`;
  return null;
}

interface NumberFieldProps {
  id: string;
  label: string;
  value: number;
  min: number;
  max: number;
  hint: ComponentChildren;
  onChange: (value: number) => void;
  invalid?: boolean;
  disabled?: boolean;
}

export function NumberField({ id, label, value, min, max, hint, onChange, invalid, disabled }: NumberFieldProps) {
  const bad = invalid || rangeProblem(label, value, min, max) !== null;
  return (
    <div class="bk-field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        value={Number.isNaN(value) ? '' : value}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          onChange(text.trim() === '' ? Number.NaN : Number(text));
        }}
        aria-invalid={bad}
        aria-describedby={`${id}-hint`}
        disabled={disabled}
      />
      <small id={`${id}-hint`} class={bad ? 'bk-problem' : undefined}>
        {hint}
      </small>
    </div>
  );
}

export function CheckField({ id, label, checked, hint, onChange, disabled }: { id: string; label: string; checked: boolean; hint: ComponentChildren; onChange: (checked: boolean) => void; disabled?: boolean }) {
  return (
    <div class="bk-field bk-check-field">
      <label class="bk-check" for={id}>
        <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} aria-describedby={`${id}-hint`} disabled={disabled} />
        {label}
      </label>
      <small id={`${id}-hint`}>{hint}</small>
    </div>
  );
}
