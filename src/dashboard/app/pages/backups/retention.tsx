/**
 * Retention: how many successful backups are kept per target and class (saved through the
 * configuration), and pruning by hand (POST /api/backups/prune): a dry run first counts what
 * would go and the bytes it frees; pruning is then offered, after a question naming that count.
 * The controller also prunes by itself every hour.
 */
import { useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import type { Access } from './access';
import { CheckField, NumberField, rangeProblem, SaveBar, useConfigDraft } from './config-edit';
import { ConfirmDialog } from './confirm-dialog';
import { BASE, bytesText, KEYS, NODE, RETENTION_CLASSES, type BackupConfig, type PruneAnswer, type Retention } from './model';
import { OutcomeLine, refusalText, type Outcome } from './outcome';

const KEEP_MAX = 100_000;
const DAYS_MAX = 36_500;
const KEEPS = [
  ['hourlyKeep', 'Hourly kept', 'hourly'],
  ['dailyKeep', 'Daily kept', 'daily'],
  ['weeklyKeep', 'Weekly kept', 'weekly'],
  ['monthlyKeep', 'Monthly kept', 'monthly'],
] as const;
const LABELS: Readonly<Record<string, string>> = {
  'retention.hourlyKeep': 'hourly kept',
  'retention.dailyKeep': 'daily kept',
  'retention.weeklyKeep': 'weekly kept',
  'retention.monthlyKeep': 'monthly kept',
  'retention.keepManual': 'keep manual backups',
  'retention.failedKeepDays': 'days failed records are kept',
};

function problemsOf(r: Retention): string[] {
  return [...KEEPS.map(([key, label]) => rangeProblem(label, r[key], 0, KEEP_MAX)), rangeProblem('Days failed records are kept', r.failedKeepDays, 0, DAYS_MAX)].filter((p): p is string => p !== null);
}

function Prune({ access }: { access: Access }) {
  const queries = useQueryClient();
  const [only, setOnly] = useState('');
  const [counted, setCounted] = useState<{ only: string; answer: PruneAnswer } | null>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const which = (o: string) => (o === '' ? 'every class (and failed records past their days)' : `the ${o} class`);

  const count = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const answer = await api<PruneAnswer>(`${BASE}/prune`, { method: 'POST', json: only === '' ? { dryRun: true } : { dryRun: true, retentionClass: only } });
      setCounted({ only, answer });
    } catch (error) {
      setCounted(null);
      setOutcome({ ok: false, text: refusalText(error, 'Nothing was counted') });
    } finally {
      setBusy(false);
    }
  };

  const prune = async (): Promise<string | null> => {
    try {
      const answer = await api<PruneAnswer>(`${BASE}/prune`, { method: 'POST', json: only === '' ? { dryRun: false } : { dryRun: false, retentionClass: only } });
      setAsking(false);
      setCounted(null);
      setOutcome({
        ok: answer.errors.length === 0,
        text: (
          <>
            Pruned {which(only)}: {answer.deleted} {answer.deleted === 1 ? 'backup' : 'backups'} deleted, {bytesText(answer.freedBytes)} freed.
            {answer.errors.length > 0 && (
              <ul class="bk-errors">
                {answer.errors.map((e, i) => (
                  <li key={i}>{e}</li>
                ))}
              </ul>
            )}
          </>
        ),
      });
      return null;
    } catch (error) {
      return refusalText(error, 'Nothing was pruned');
    } finally {
      void queries.invalidateQueries({ queryKey: KEYS.all });
    }
  };

  const current = counted !== null && counted.only === only ? counted.answer : null;
  return (
    <div class="bk-prune" role="group" aria-labelledby="bk-prune-title">
      <h3 id="bk-prune-title">Prune now</h3>
      <p class="bk-muted">The controller prunes by itself every hour. A dry run first counts what would go.</p>
      <div class="bk-inline-form">
        <div class="bk-field">
          <label for="bk-prune-class">Which</label>
          <select
            id="bk-prune-class"
            value={only}
            onChange={(e) => {
              setOnly((e.target as HTMLSelectElement).value);
              setOutcome(null);
            }}
          >
            <option value="">Every class</option>
            {RETENTION_CLASSES.map((c) => (
              <option key={c} value={c}>
                Only {c}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="bk-secondary" disabled={busy} onClick={() => void count()}>
          {busy ? 'Counting…' : 'Dry run: count what would go'}
        </button>
        <button type="button" class="bk-danger" disabled={current === null || current.deleted === 0} onClick={() => setAsking(true)}>
          Prune…
        </button>
      </div>
      {current && (
        <p role="status" class="bk-ok">
          Dry run of {which(only)}: {current.deleted === 0 ? 'nothing would be deleted; everything is within its budget.' : `${current.deleted} ${current.deleted === 1 ? 'backup' : 'backups'} would be deleted, freeing ${bytesText(current.freedBytes)}.`}
        </p>
      )}
      {!access.manage && <small class="bk-problem">Pruning needs the permission {NODE.manage}: the controller will refuse it from your account.</small>}
      <OutcomeLine outcome={outcome} />
      {asking && current && (
        <ConfirmDialog
          title={`Prune ${current.deleted} ${current.deleted === 1 ? 'backup' : 'backups'}`}
          confirm={`Delete ${current.deleted} ${current.deleted === 1 ? 'backup' : 'backups'}`}
          busyText="Pruning…"
          onConfirm={prune}
          onClose={() => setAsking(false)}
        >
          <p>
            This deletes the backups of {which(only)} that retention does not keep: {current.deleted} by the dry run, {bytesText(current.freedBytes)} of archives. Their records and
            archives are gone for good.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

export function RetentionSection({ config, access }: { config: BackupConfig; access: Access }) {
  const part = useConfigDraft<Retention>(config, (c) => c.retention, (c, retention) => ({ ...c, retention }), LABELS);
  const r = part.draft;
  return (
    <section class="bk-card" aria-labelledby="bk-retention-title">
      <h2 id="bk-retention-title">Retention</h2>
      <form
        class="bk-editor"
        aria-label="Edit retention"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void part.save(problemsOf(r), 'Retention is saved: the next prune follows it.');
        }}
      >
        <p class="bk-muted">Successful backups kept per target and class, newest first; older ones are deleted when the controller prunes.</p>
        <div class="bk-grid">
          {KEEPS.map(([key, label, word]) => (
            <NumberField
              key={key}
              id={`bk-r-${key}`}
              label={label}
              value={r[key]}
              min={0}
              max={KEEP_MAX}
              invalid={part.invalid === `retention.${key}`}
              onChange={(value) => part.set({ ...r, [key]: value })}
              hint={`The newest ${Number.isInteger(r[key]) ? r[key] : 'N'} ${word} backups of each target are kept.`}
            />
          ))}
          <NumberField
            id="bk-r-failed"
            label="Days failed records are kept"
            value={r.failedKeepDays}
            min={0}
            max={DAYS_MAX}
            invalid={part.invalid === 'retention.failedKeepDays'}
            onChange={(failedKeepDays) => part.set({ ...r, failedKeepDays })}
            hint="Failed and skipped records older than this go; 0 keeps them."
          />
          <CheckField
            id="bk-r-manual"
            label="Keep manual backups"
            checked={r.keepManual}
            onChange={(keepManual) => part.set({ ...r, keepManual })}
            hint="On: backups started by hand are never pruned. Off: they are kept as daily ones are."
          />
        </div>
        <SaveBar part={part} access={access} label="retention" />
      </form>
      <Prune access={access} />
    </section>
  );
}
