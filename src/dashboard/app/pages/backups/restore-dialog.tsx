/**
 * Restoring a backup (POST /api/backups/{id}/restore), a dry run first: `dryRun: true` reads and
 * checks the whole archive and lists what it would write where, writing nothing. Only then is the
 * real restore offered, after a question naming the folder it replaces and what happens to it
 * (the controller swaps the backup's tree in whole: files there that the backup does not hold are
 * gone). A running service is refused by the controller unless the restore is forced; the dialog
 * says so beforehand when it can read the services list, and offers force with what it means.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { api, ApiFailure } from '../../api';
import type { Access } from './access';
import { BASE, bytesText, dateText, KEYS, targetText, type Backup, type RestoreAnswer } from './model';
import { sentence } from '../../sentence';
import { refusalText } from './outcome';

interface Props {
  access: Access;
  backup: Backup;
  onDone: (text: string) => void;
  onClose: () => void;
}

interface ServiceRow {
  name: string;
  state: string;
}

/** The states the controller refuses to restore under without force (src/modules/backup/manager.ts). */
const LIVE_STATES: ReadonlySet<string> = new Set(['READY', 'STARTING', 'DRAINING', 'PREPARING', 'PREPARED']);
const LIST_LIMIT = 1000;

type Phase = 'ask' | 'listing' | 'listed' | 'confirm' | 'restoring';

/** What a refusal of the restore means. */
function explain(error: unknown, b: Backup, dry: boolean): string {
  const what = dry ? `The dry run of backup #${b.id} was refused` : `Backup #${b.id} was not restored`;
  if (error instanceof ApiFailure && error.code === 'BACKUP_RESTORE_FAILED' && /stop it first, or restore with force/.test(error.message)) {
    return `${what}: ${sentence(error.message)} Stop ${b.targetName} on the Services page first, or tick “Restore over the running service” below; nothing was written.`;
  }
  if (error instanceof ApiFailure && error.code === 'BACKUP_VERIFICATION_FAILED') {
    return `${what}: ${sentence(error.message)} The archive is not the one written, so nothing was written; verify it to see what differs.`;
  }
  if (error instanceof ApiFailure && error.code === 'BACKUP_RESTORE_FAILED') return `${what}: ${sentence(error.message)} Nothing was changed.`;
  return refusalText(error, what);
}

export function RestoreDialog({ access, backup: b, onDone, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const listedHeading = useRef<HTMLHeadingElement>(null);
  const question = useRef<HTMLParagraphElement>(null);
  const queries = useQueryClient();
  const [targetPath, setTargetPath] = useState('');
  const [force, setForce] = useState(false);
  const [phase, setPhase] = useState<Phase>('ask');
  const [dry, setDry] = useState<RestoreAnswer | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [filter, setFilter] = useState('');

  const serviceTarget = b.targetType === 'SERVICE' || b.targetType === 'DEDICATED';
  const services = useQuery({
    queryKey: [...KEYS.all, 'services'],
    queryFn: () => api<{ services: ServiceRow[] }>('/api/services'),
    enabled: serviceTarget && access.services,
    staleTime: 5_000,
  });
  const live = services.data?.services.find((s) => s.name === b.targetName && LIVE_STATES.has(s.state));

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);
  useEffect(() => {
    if (phase === 'listed') listedHeading.current?.focus();
    if (phase === 'confirm') question.current?.focus();
  }, [phase]);

  const dryRun = async (event: Event) => {
    event.preventDefault();
    setPhase('listing');
    setRefusal(null);
    try {
      const body: Record<string, unknown> = { dryRun: true };
      if (targetPath.trim() !== '') body.targetPath = targetPath.trim();
      setDry(await api<RestoreAnswer>(`${BASE}/${b.id}/restore`, { method: 'POST', json: body }));
      setFilter('');
      setPhase('listed');
    } catch (error) {
      setRefusal(explain(error, b, true));
      setPhase('ask');
    }
  };

  const restore = async () => {
    if (!dry) return;
    setPhase('restoring');
    setRefusal(null);
    try {
      const body: Record<string, unknown> = { dryRun: false, force };
      if (targetPath.trim() !== '') body.targetPath = targetPath.trim();
      const done = await api<RestoreAnswer>(`${BASE}/${b.id}/restore`, { method: 'POST', json: body });
      onDone(`Restored backup #${b.id} (${targetText(b)}): ${done.targetPath} now holds its ${done.filesExtracted} ${done.filesExtracted === 1 ? 'file' : 'files'}, exactly as backed up on ${dateText(b.startedAt)}.`);
    } catch (error) {
      setRefusal(explain(error, b, false));
      setPhase('listed');
    } finally {
      void queries.invalidateQueries({ queryKey: KEYS.all });
    }
  };

  const folders = dry?.files.filter((f) => f.endsWith('/')).length ?? 0;
  const needle = filter.trim().toLowerCase();
  const matching = dry ? (needle === '' ? dry.files : dry.files.filter((f) => f.toLowerCase().includes(needle))) : [];
  const where = dry?.targetPath ?? '';

  return (
    <dialog
      ref={dialog}
      class="bk-dialog bk-restore"
      aria-labelledby="bk-restore-title"
      onCancel={(e) => {
        e.preventDefault();
        if (phase !== 'restoring') onClose();
      }}
    >
      <h2 id="bk-restore-title">Restore backup #{b.id}</h2>
      <p class="bk-muted">
        Backup #{b.id} of {targetText(b)}, made {dateText(b.startedAt)} ({b.scheduleClass}), {bytesText(b.sizeBytes)}.
      </p>
      {refusal !== null && (
        <p role="alert" class="bk-refusal">
          {refusal}
        </p>
      )}

      {(phase === 'ask' || phase === 'listing') && (
        <form class="bk-dialog-form" onSubmit={(e) => void dryRun(e)}>
          <p>First a dry run: the controller reads and checks the whole archive and lists what it would write, writing nothing.</p>
          <div class="bk-field">
            <label for="bk-restore-path">Restore into</label>
            <input
              id="bk-restore-path"
              value={targetPath}
              onInput={(e) => setTargetPath((e.target as HTMLInputElement).value)}
              placeholder={b.targetType === 'DATABASE' ? 'restore/database' : 'Where it came from'}
              autocomplete="off"
              spellcheck={false}
              maxLength={1024}
              aria-describedby="bk-restore-path-hint"
            />
            <small id="bk-restore-path-hint">
              {b.targetType === 'DATABASE'
                ? 'Empty: restore/database. The live database is never replaced: swap the copy in while the controller is stopped.'
                : 'Empty: where it came from. Else a folder inside the controller’s services, dedicated, templates, config, state or restore folders, relative to the controller’s folder.'}
            </small>
          </div>
          <div class="bk-actions bk-dialog-actions">
            <button type="button" class="bk-secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" disabled={phase === 'listing'}>
              {phase === 'listing' ? 'Reading the archive…' : 'Dry run'}
            </button>
          </div>
        </form>
      )}

      {phase === 'listed' && dry && (
        <div class="bk-dialog-form">
          <h3 ref={listedHeading} tabIndex={-1}>
            What the restore would write
          </h3>
          <p role="status">
            Dry run, nothing written: restoring puts the backup’s {dry.filesExtracted} {dry.filesExtracted === 1 ? 'file' : 'files'}
            {folders > 0 ? ` (in ${folders} ${folders === 1 ? 'folder' : 'folders'})` : ''} into <code>{where}</code>. What is there now is replaced as a whole: files there that the
            backup does not hold are removed.
          </p>
          <div class="bk-field">
            <label for="bk-restore-filter">Find in the list</label>
            <input id="bk-restore-filter" type="search" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} autocomplete="off" spellcheck={false} />
          </div>
          <ul class="bk-files" aria-label="Files the restore would write" tabIndex={0}>
            {matching.slice(0, LIST_LIMIT).map((f) => (
              <li key={f} class={f.endsWith('/') ? 'bk-folder' : undefined}>
                {f}
              </li>
            ))}
          </ul>
          <p class="bk-muted">
            {matching.length > LIST_LIMIT
              ? `The first ${LIST_LIMIT} of ${matching.length} entries are shown: narrow with Find.`
              : needle !== ''
                ? `${matching.length} of ${dry.files.length} entries match.`
                : `${dry.files.length} ${dry.files.length === 1 ? 'entry' : 'entries'}.`}
          </p>
          {serviceTarget && (
            <div class="bk-field bk-check-field">
              {live ? (
                <p class="bk-warning">
                  {b.targetName} is {live.state} now: the controller refuses to restore under a running service unless you restore over it anyway. Stopping it first on the Services page is safer.
                </p>
              ) : (
                !access.services && <p class="bk-muted">If {b.targetName} is running, the controller refuses unless you restore over it anyway.</p>
              )}
              <label class="bk-check">
                <input type="checkbox" checked={force} onChange={(e) => setForce((e.target as HTMLInputElement).checked)} />
                Restore over the running service (force): its folder is replaced while it runs
              </label>
            </div>
          )}
          <div class="bk-actions bk-dialog-actions">
            <button
              type="button"
              class="bk-secondary"
              onClick={() => {
                setRefusal(null);
                setPhase('ask');
              }}
            >
              Back
            </button>
            <button type="button" class="bk-secondary" onClick={onClose}>
              Cancel
            </button>
            <button
              type="button"
              class="bk-danger"
              onClick={() => {
                setRefusal(null);
                setPhase('confirm');
              }}
            >
              Restore…
            </button>
          </div>
        </div>
      )}

      {(phase === 'confirm' || phase === 'restoring') && dry && (
        <div class="bk-dialog-form" role="group" aria-labelledby="bk-restore-question">
          <p id="bk-restore-question" ref={question} tabIndex={-1} class="bk-question">
            Replace <code>{where}</code> with backup #{b.id}?
          </p>
          <p>
            Everything in <code>{where}</code> is replaced by the {dry.filesExtracted} {dry.filesExtracted === 1 ? 'file' : 'files'} of backup #{b.id} ({targetText(b)}, {dateText(b.startedAt)}); files there that
            the backup does not hold are deleted. This cannot be undone.
            {force && ` ${b.targetName} is restored over even if it runs.`}
          </p>
          <div class="bk-actions bk-dialog-actions">
            <button type="button" class="bk-secondary" disabled={phase === 'restoring'} onClick={() => setPhase('listed')}>
              Back
            </button>
            <button type="button" class="bk-danger" disabled={phase === 'restoring'} onClick={() => void restore()}>
              {phase === 'restoring' ? 'Restoring…' : `Replace ${where}`}
            </button>
          </div>
        </div>
      )}
    </dialog>
  );
}
