/**
 * The runs: every backup record, newest first, 25 a page with the API's total, filtered by
 * target name and status as the API filters. A running one shows how long it has run, and its
 * outcome arrives with the module's events (or the next read, for a session without the events
 * socket). Each archive can be verified, restored (a dry run first), downloaded (by those the
 * route allows) and deleted.
 */
import { useState } from 'preact/hooks';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { mayDownload, type Access } from './access';
import { useNow } from './clock';
import { ConfirmDialog } from './confirm-dialog';
import { downloadArchive, type DownloadProgress } from './download';
import { BASE, byText, bytesText, CREDENTIAL_TYPES, dateText, KEYS, NODE, spanText, STATUS_LABELS, targetText, TYPE_LABELS, type Backup, type BackupList, type TargetType, type VerifyAnswer } from './model';
import { sentence } from '../../sentence';
import { OutcomeLine, refusalText, type Outcome } from './outcome';
import { RestoreDialog } from './restore-dialog';

const PAGE = 25;
const STATUSES = ['RUNNING', 'SUCCESS', 'PARTIAL', 'FAILED'] as const;

interface Props {
  access: Access;
  /** Target names to suggest in the filter. */
  names: readonly string[];
  /** The page's request to show the newest records (after a trigger): a new nonce each time. */
  showNewest: number;
}

function listPath(target: string, status: string, offset: number): string {
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (target) query.set('target', target);
  if (status) query.set('status', status);
  return `${BASE}?${query}`;
}

function StatusCell({ b, now }: { b: Backup; now: number }) {
  const label = STATUS_LABELS[b.status] ?? b.status;
  if (b.status === 'RUNNING') {
    return (
      <span class="bk-status bk-status-running">
        <span class="bk-pulse" aria-hidden="true" />
        <strong>{label}</strong> <span class="bk-muted">for {spanText(now - Date.parse(b.startedAt))}</span>
      </span>
    );
  }
  const took = b.completedAt === null ? null : Date.parse(b.completedAt) - Date.parse(b.startedAt);
  return (
    <span class={`bk-status bk-status-${b.status.toLowerCase()}`}>
      <strong>{label}</strong>
      {took !== null && <span class="bk-muted"> in {spanText(took)}</span>}
      {b.errorMessage && <small class="bk-status-why">{sentence(b.errorMessage)}</small>}
    </span>
  );
}

export function RunsSection({ access, names, showNewest }: Props) {
  const queries = useQueryClient();
  const [target, setTarget] = useState('');
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [verifying, setVerifying] = useState<number | null>(null);
  const [downloading, setDownloading] = useState<{ id: number; progress: DownloadProgress } | null>(null);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [deleting, setDeleting] = useState<Backup | null>(null);

  // A trigger from the form: the newest page, unfiltered, so its records show.
  const [shownNewest, setShownNewest] = useState(showNewest);
  if (showNewest !== shownNewest) {
    setShownNewest(showNewest);
    setTarget('');
    setStatus('');
    setOffset(0);
  }

  const targetText_ = target.trim();
  const list = useQuery({
    queryKey: [...KEYS.list, targetText_, status, offset],
    queryFn: () => api<BackupList>(listPath(targetText_, status, offset)),
    placeholderData: keepPreviousData,
    // Without the events socket, read again: often while something runs, else now and then.
    refetchInterval: access.live ? false : (query) => (query.state.data?.backups.some((b) => b.status === 'RUNNING') ? 2_000 : 15_000),
  });
  const rows = list.data?.backups;
  const running = rows?.some((b) => b.status === 'RUNNING') ?? false;
  const now = useNow(1_000, running);
  const total = list.data?.total ?? 0;
  const shown = rows?.length ?? 0;

  const change =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setOffset(0);
    };

  const verify = async (b: Backup) => {
    setVerifying(b.id);
    setOutcome(null);
    try {
      const answer = await api<VerifyAnswer>(`${BASE}/${b.id}/verify`, { method: 'POST' });
      setOutcome(
        answer.valid
          ? {
              ok: true,
              text: `Backup #${b.id} (${targetText(b)}) holds: the archive’s SHA-256 is the one recorded when it was written (${b.checksum.slice(0, 12)}…), and every file in it matches its manifest.`,
            }
          : {
              ok: false,
              text: (
                <>
                  Backup #{b.id} ({targetText(b)}) does not hold: {answer.errors.length === 1 ? 'one problem' : `${answer.errors.length} problems`}. Do not restore it.
                  <ul class="bk-errors">
                    {answer.errors.map((e, i) => (
                      <li key={i}>{e}</li>
                    ))}
                  </ul>
                </>
              ),
            },
      );
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, `Backup #${b.id} was not verified`) });
    } finally {
      setVerifying(null);
    }
  };

  const download = async (b: Backup) => {
    setOutcome(null);
    setDownloading({ id: b.id, progress: { received: 0, total: b.sizeBytes || null } });
    try {
      const name = await downloadArchive(b.id, b.archivePath.split('/').pop() || `backup-${b.id}.tar.zst`, (progress) => setDownloading({ id: b.id, progress }));
      setOutcome({ ok: true, text: `Backup #${b.id} is downloaded as ${name} (${bytesText(b.sizeBytes)}, SHA-256 ${b.checksum.slice(0, 12)}…).` });
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, `Backup #${b.id} was not downloaded`) });
    } finally {
      setDownloading(null);
    }
  };

  const remove = async (b: Backup) => {
    try {
      const answer = await api<{ message: string }>(`${BASE}/${b.id}`, { method: 'DELETE' });
      setDeleting(null);
      setOutcome({ ok: true, text: `${sentence(answer.message)}${b.archivePath ? ' Its archive is gone from the disk.' : ''}` });
      return null;
    } catch (error) {
      return refusalText(error, `Backup #${b.id} was not deleted`);
    } finally {
      void queries.invalidateQueries({ queryKey: KEYS.all });
    }
  };

  const progressText = (p: DownloadProgress) => (p.total ? `${Math.min(100, Math.floor((p.received / p.total) * 100))}%` : bytesText(p.received));

  return (
    <section class="bk-card" aria-labelledby="bk-runs-title">
      <h2 id="bk-runs-title">Runs</h2>
      <form class="bk-filters" role="search" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <div class="bk-field">
          <label for="bk-f-target">Target</label>
          <input
            id="bk-f-target"
            type="search"
            list="bk-f-target-names"
            value={target}
            onInput={(e) => change(setTarget)((e.target as HTMLInputElement).value)}
            placeholder="Any"
            autocomplete="off"
            spellcheck={false}
            maxLength={128}
            aria-describedby="bk-f-target-hint"
          />
          <datalist id="bk-f-target-names">
            {names.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          <small id="bk-f-target-hint">The exact name: a service, a dedicated service, or “all” for the other types.</small>
        </div>
        <div class="bk-field">
          <label for="bk-f-status">Status</label>
          <select id="bk-f-status" value={status} onChange={(e) => change(setStatus)((e.target as HTMLSelectElement).value)}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
      </form>
      {!access.manage && (
        <p class="bk-muted" role="note">
          Verifying, restoring and deleting need the permission {NODE.manage}, which your account does not hold.
          {' '}
          {access.session && `Config and database archives hold credentials: downloading them needs ${NODE.manage} too.`}
        </p>
      )}
      <OutcomeLine outcome={outcome} />
      {list.isError && (
        <p role="alert" class="bk-error">
          {refusalText(list.error, 'The runs could not be read')}
        </p>
      )}
      {list.isPending && <p class="bk-muted">Loading…</p>}
      {rows && (
        <div class="bk-table-wrap">
          <table class="bk-table bk-runs">
            <caption class="bk-hidden">Backups, newest first</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">What</th>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col">Size</th>
                <th scope="col">
                  <span class="bk-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 && (
                <tr>
                  <td colSpan={6} class="bk-empty">
                    {target || status ? 'No backup matches these filters.' : 'No backup has been made yet: start one above, or wait for a schedule.'}
                  </td>
                </tr>
              )}
              {rows.map((b) => {
                const archive = b.archivePath !== '' && b.status !== 'RUNNING';
                const canDownload = archive && mayDownload(access, b.targetType);
                const busyHere = verifying === b.id || downloading?.id === b.id;
                return (
                  <tr key={b.id} data-id={b.id} data-status={b.status}>
                    <td class="bk-id">#{b.id}</td>
                    <td data-label="What" class="bk-what">
                      <strong>{TYPE_LABELS[b.targetType as TargetType] ?? b.targetType}</strong>
                      {b.targetName !== 'all' && <> {b.targetName}</>}
                      <small class="bk-muted bk-block">
                        {b.scheduleClass}
                        {b.scheduleName && ` · schedule ${b.scheduleName}`}
                        {b.nodeId !== 'local' && ` · node ${b.nodeId}`}
                      </small>
                      {archive && (
                        <details class="bk-details">
                          <summary aria-label={`Archive of backup #${b.id}`}>Archive</summary>
                          <dl>
                            <dt>File</dt>
                            <dd>
                              <code>{b.archivePath}</code>
                            </dd>
                            <dt>SHA-256</dt>
                            <dd>
                              <code>{b.checksum}</code>
                            </dd>
                          </dl>
                        </details>
                      )}
                    </td>
                    <td data-label="Started" class="bk-started">
                      <time dateTime={b.startedAt}>{dateText(b.startedAt)}</time>
                      <small class="bk-muted bk-block">by {byText(b.triggeredBy)}</small>
                    </td>
                    <td data-label="Status" class="bk-status-cell">
                      <StatusCell b={b} now={now} />
                    </td>
                    <td data-label="Size" class="bk-size">
                      {b.status === 'RUNNING' ? <span class="bk-muted">—</span> : archive ? bytesText(b.sizeBytes) : <span class="bk-muted">no archive</span>}
                    </td>
                    <td class="bk-row-actions">
                      <div class="bk-buttons">
                      {archive && access.manage && (
                        <button type="button" class="bk-secondary" disabled={busyHere} onClick={() => void verify(b)} aria-label={`Verify backup #${b.id}`}>
                          {verifying === b.id ? 'Verifying…' : 'Verify'}
                        </button>
                      )}
                      {archive && access.manage && (
                        <button
                          type="button"
                          class="bk-secondary"
                          onClick={() => {
                            setOutcome(null);
                            setRestoring(b);
                          }}
                          aria-label={`Restore backup #${b.id}`}
                        >
                          Restore…
                        </button>
                      )}
                      {canDownload && (
                        <button
                          type="button"
                          class="bk-secondary"
                          disabled={busyHere}
                          onClick={() => void download(b)}
                          aria-label={`Download backup #${b.id} (${bytesText(b.sizeBytes)})`}
                        >
                          {downloading?.id === b.id ? `Downloading ${progressText(downloading.progress)}` : 'Download'}
                        </button>
                      )}
                      {archive && !canDownload && <small class="bk-muted">No download: {CREDENTIAL_TYPES.has(b.targetType) ? 'it holds credentials' : 'not allowed'}</small>}
                      {b.status !== 'RUNNING' && access.manage && (
                        <button
                          type="button"
                          class="bk-danger"
                          disabled={busyHere}
                          onClick={() => {
                            setOutcome(null);
                            setDeleting(b);
                          }}
                          aria-label={`Delete backup #${b.id}`}
                        >
                          Delete
                        </button>
                      )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <nav class="bk-pager" aria-label="Run pages">
        <button type="button" class="bk-secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Newer
        </button>
        <span aria-live="polite">{total === 0 || shown === 0 ? `none of ${total}` : `${offset + 1}–${offset + shown} of ${total}`}</span>
        <button type="button" class="bk-secondary" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          Older
        </button>
      </nav>
      {restoring && (
        <RestoreDialog
          access={access}
          backup={restoring}
          onClose={() => setRestoring(null)}
          onDone={(text) => {
            setRestoring(null);
            setOutcome({ ok: true, text });
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete backup #${deleting.id}`}
          confirm="Delete"
          busyText="Deleting…"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          <p>
            This deletes the record of backup #{deleting.id} ({targetText(deleting)}, {deleting.scheduleClass}, started {dateText(deleting.startedAt)})
            {deleting.archivePath ? <> and its archive {deleting.archivePath} ({bytesText(deleting.sizeBytes)}) from the disk</> : null}. It cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
