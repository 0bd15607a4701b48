/**
 * Backing up now (POST /api/backups/trigger): everything the configuration's scope covers, the
 * types chosen, or one service or dedicated service by name, under a retention class (manual
 * by default). The API answers at once with the RUNNING records; the runs list shows them
 * running and then their outcome as the module's events arrive.
 */
import { useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import type { Access } from './access';
import { BASE, KEYS, NODE, RETENTION_CLASSES, TARGET_KINDS, targetText, type BackupConfig, type BackupList } from './model';
import { OutcomeLine, refusalText, type Outcome } from './outcome';

type What = 'all' | 'types' | 'one';

interface Props {
  access: Access;
  config: BackupConfig | undefined;
  /** Service and dedicated service names to suggest for "one service". */
  names: readonly string[];
  /** Shows the run's records in the list (the newest page, no filter). */
  onStarted: (ids: number[]) => void;
}

const CLASS_HINTS: Readonly<Record<string, string>> = {
  manual: 'Manual: kept until deleted while keep-manual is on; else as daily ones.',
  hourly: 'Counts against the hourly budget: the newest ones per target are kept.',
  daily: 'Counts against the daily budget: the newest ones per target are kept.',
  weekly: 'Counts against the weekly budget: the newest ones per target are kept.',
  monthly: 'Counts against the monthly budget: the newest ones per target are kept.',
};

export function TriggerForm({ access, config, names, onStarted }: Props) {
  const queries = useQueryClient();
  const [what, setWhat] = useState<What>('one');
  const [types, setTypes] = useState<ReadonlySet<string>>(new Set(['services']));
  const [one, setOne] = useState('');
  const [retentionClass, setRetentionClass] = useState('manual');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const inScope = config ? TARGET_KINDS.filter((k) => config.scope[k.scope]) : [];
  const problem = what === 'types' && types.size === 0 ? 'Choose at least one type.' : what === 'one' && one.trim() === '' ? 'Name the service or dedicated service to back up.' : null;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    if (problem) {
      setOutcome({ ok: false, text: problem });
      return;
    }
    setBusy(true);
    setOutcome(null);
    const body: Record<string, unknown> = { scheduleClass: retentionClass };
    if (what === 'all') body.targets = ['all'];
    if (what === 'types') body.targets = TARGET_KINDS.filter((k) => types.has(k.word)).map((k) => k.word);
    if (what === 'one') {
      // Services and dedicated services whatever the scope says: the name picks which.
      body.targets = ['services', 'dedicated'];
      body.target = one.trim();
    }
    try {
      const started = await api<BackupList>(`${BASE}/trigger`, { method: 'POST', json: body });
      const ids = started.backups.map((b) => b.id);
      setOutcome({
        ok: true,
        text:
          started.backups.length === 1
            ? `Started backup #${ids[0]} of ${targetText(started.backups[0]!)}: the list below shows it running, then how it ended.`
            : `Started ${started.backups.length} backups (#${ids.join(', #')}): ${started.backups.map(targetText).join(', ')}. The list below shows them running, then how each ended.`,
      });
      onStarted(ids);
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, 'No backup was started') });
    } finally {
      setBusy(false);
      void queries.invalidateQueries({ queryKey: KEYS.all });
    }
  };

  return (
    <section class="bk-card" aria-labelledby="bk-trigger-title">
      <h2 id="bk-trigger-title">Back up now</h2>
      <form class="bk-trigger" onSubmit={(e) => void submit(e)} noValidate>
        <fieldset class="bk-choice">
          <legend>What</legend>
          <label class="bk-check">
            <input type="radio" name="bk-what" value="one" checked={what === 'one'} onChange={() => setWhat('one')} />
            One service or dedicated service
          </label>
          <label class="bk-check">
            <input type="radio" name="bk-what" value="types" checked={what === 'types'} onChange={() => setWhat('types')} />
            Chosen types
          </label>
          <label class="bk-check">
            <input type="radio" name="bk-what" value="all" checked={what === 'all'} onChange={() => setWhat('all')} />
            Everything in scope
          </label>
        </fieldset>
        {what === 'one' && (
          <div class="bk-field">
            <label for="bk-one">Service</label>
            <input
              id="bk-one"
              list="bk-one-names"
              value={one}
              onInput={(e) => setOne((e.target as HTMLInputElement).value)}
              autocomplete="off"
              spellcheck={false}
              maxLength={128}
              placeholder="Lobby-1"
              aria-describedby="bk-one-hint"
            />
            <datalist id="bk-one-names">
              {names.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
            <small id="bk-one-hint">Its name, as the Services page shows it. Only its folder is archived.</small>
          </div>
        )}
        {what === 'types' && (
          <fieldset class="bk-choice">
            <legend>Types</legend>
            {TARGET_KINDS.map((kind) => (
              <label class="bk-check" key={kind.word}>
                <input
                  type="checkbox"
                  checked={types.has(kind.word)}
                  onChange={(e) => {
                    const next = new Set(types);
                    if ((e.target as HTMLInputElement).checked) next.add(kind.word);
                    else next.delete(kind.word);
                    setTypes(next);
                  }}
                />
                {kind.label}
              </label>
            ))}
          </fieldset>
        )}
        {what === 'all' && (
          <p class="bk-muted bk-wide">
            {config
              ? inScope.length === 0
                ? 'No type is in scope: the controller will refuse. Choose types in Targets below.'
                : `In scope now: ${inScope.map((k) => k.label.toLowerCase()).join(', ')} (Targets below says what each covers).`
              : 'Every type the configuration’s scope covers.'}
          </p>
        )}
        <div class="bk-field">
          <label for="bk-class">Retention class</label>
          <select id="bk-class" value={retentionClass} onChange={(e) => setRetentionClass((e.target as HTMLSelectElement).value)} aria-describedby="bk-class-hint">
            {RETENTION_CLASSES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
          <small id="bk-class-hint">{CLASS_HINTS[retentionClass]}</small>
        </div>
        <div class="bk-wide bk-actions">
          <button type="submit" disabled={busy} aria-describedby={access.manage ? undefined : 'bk-trigger-refused'}>
            {busy ? 'Starting…' : 'Back up now'}
          </button>
          {!access.manage && (
            <small id="bk-trigger-refused" class="bk-problem">
              Your account may not start backups: that needs the permission {NODE.manage}, so the controller will refuse it.
            </small>
          )}
        </div>
        <div class="bk-wide">
          <OutcomeLine outcome={outcome} />
        </div>
      </form>
    </section>
  );
}
