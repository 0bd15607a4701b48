/**
 * Every pack the controller knows, newest first: its name and the prompt players see, where it
 * comes from (uploaded here, with its download, or hosted elsewhere, with its address), the
 * SHA-1 clients check it against, where it is assigned, who added it and when; and Delete,
 * which asks first (its assignments go with it, and an uploaded pack's file).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import type { UseQueryResult } from '@tanstack/preact-query';
import type { May } from './may';
import { dateText, formatBytes, NODE, placeText, RP_KEY, sourceText, type Assignment, type Pack, type PackList, type Place, type Scope } from './model';
import { NeedsNode, OutcomeLine, refusalText, type Outcome } from './outcome';
import { sentence } from '../../sentence';
import { deletePack } from './requests';

interface Props {
  may: May;
  packs: UseQueryResult<PackList>;
  assignments: readonly Assignment[];
}

const placeOf = (a: Assignment): Place => ({ scope: a.scope as Scope, target: a.target });

export function PackListSection({ may, packs, assignments }: Props) {
  const [deleting, setDeleting] = useState<Pack | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const list = packs.data?.packs;
  const mayManage = may(NODE.manage);
  return (
    <section class="rp-card" aria-labelledby="rp-packs-title">
      <h2 id="rp-packs-title">Packs</h2>
      {packs.isError ? (
        <p role="alert" class="rp-error">
          {refusalText(packs.error, 'The packs could not be read')}
        </p>
      ) : !list ? (
        <p class="rp-muted">Loading…</p>
      ) : (
        <>
          <p class="rp-muted">
            {list.length === 0 ? 'No pack yet: upload one, or add one hosted elsewhere, below.' : `${list.length} pack${list.length === 1 ? '' : 's'}, newest first.`}
          </p>
          {!mayManage && <NeedsNode what="delete packs" node={NODE.manage} />}
          <OutcomeLine outcome={outcome} />
          {list.length > 0 && (
            <div class="rp-table-wrap">
              <table class="rp-table rp-packs">
                <caption class="rp-hidden">The packs</caption>
                <thead>
                  <tr>
                    <th scope="col">Pack</th>
                    <th scope="col">From</th>
                    <th scope="col">SHA-1</th>
                    <th scope="col">Assigned</th>
                    <th scope="col">Added</th>
                    <th scope="col">
                      <span class="rp-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((pack) => {
                    const where = assignments.filter((a) => a.packId === pack.id);
                    return (
                      <tr key={pack.id} data-id={pack.id}>
                        <th scope="row" class="rp-pack-name">
                          <span>{pack.name}</span>
                          {pack.force && <span class="rp-badge rp-badge-force">Required</span>}
                          {pack.promptMessage !== '' && <small class="rp-muted">Prompt: “{pack.promptMessage}”</small>}
                          {pack.force && <small class="rp-muted">A player who declines it is kicked.</small>}
                        </th>
                        <td data-label="From" class="rp-from">
                          {pack.source === 'LOCAL' ? (
                            <>
                              {sourceText(pack)}, {formatBytes(pack.fileSize)}{' '}
                              <a href={pack.url} download={`${pack.name}.zip`} aria-label={`Download ${pack.name}`}>
                                Download
                              </a>
                            </>
                          ) : (
                            <>
                              {sourceText(pack)}:{' '}
                              <a href={pack.url} rel="noreferrer noopener" target="_blank" class="rp-url">
                                {pack.url}
                              </a>
                            </>
                          )}
                        </td>
                        <td data-label="SHA-1">
                          <code class="rp-hash">{pack.sha1Hash}</code>
                        </td>
                        <td data-label="Assigned" class="rp-where">
                          {where.length === 0 ? <span class="rp-muted">nowhere yet</span> : where.map((a) => placeText(placeOf(a))).join('; ')}
                        </td>
                        <td data-label="Added" class="rp-added">
                          <time dateTime={pack.uploadedAt}>{dateText(pack.uploadedAt)}</time> <span class="rp-muted">by {pack.uploadedBy}</span>
                        </td>
                        <td class="rp-row-actions">
                          <button type="button" class="rp-danger-outline" aria-label={`Delete ${pack.name}`} onClick={() => setDeleting(pack)}>
                            Delete
                          </button>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      {deleting && (
        <DeleteDialog
          pack={deleting}
          assignments={assignments.filter((a) => a.packId === deleting.id)}
          onClose={() => setDeleting(null)}
          onDone={(text) => {
            setDeleting(null);
            setOutcome({ ok: true, text });
          }}
        />
      )}
    </section>
  );
}

interface DialogProps {
  pack: Pack;
  assignments: readonly Assignment[];
  onClose: () => void;
  onDone: (text: string) => void;
}

function DeleteDialog({ pack, assignments, onClose, onDone }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const queries = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);
  useEffect(() => {
    if (refusal !== null) close.current?.focus();
  }, [refusal]);

  const remove = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await deletePack(pack.id);
      onDone(`${sentence(answer.message)}${assignments.length > 0 ? ` Its ${assignments.length === 1 ? 'assignment' : `${assignments.length} assignments`} went with it.` : ''}`);
    } catch (error) {
      setRefusal(refusalText(error, `${pack.name} was not deleted`));
    } finally {
      setBusy(false);
      void queries.invalidateQueries({ queryKey: RP_KEY });
    }
  };

  return (
    <dialog
      ref={dialog}
      class="rp-dialog"
      aria-labelledby="rp-delete-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id="rp-delete-title">Delete {pack.name}?</h2>
      {refusal === null ? (
        <form onSubmit={(e) => void remove(e)}>
          <p>
            Players stop getting it when they next join a server.{' '}
            {pack.source === 'LOCAL' ? 'Its file is removed from the controller.' : 'The file where it is hosted is left alone.'}
          </p>
          {assignments.length > 0 ? (
            <p>
              Its assignments go with it: {assignments.map((a) => placeText(placeOf(a))).join('; ')}.
            </p>
          ) : (
            <p>It is not assigned anywhere.</p>
          )}
          <div class="rp-actions rp-dialog-actions">
            <button type="submit" class="rp-danger" disabled={busy}>
              {busy ? 'Deleting…' : 'Delete'}
            </button>
            <button type="button" class="rp-secondary" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <p class="rp-refusal" role="alert">
            {refusal}
          </p>
          <div class="rp-actions rp-dialog-actions">
            <button type="button" class="rp-secondary" onClick={onClose} ref={close}>
              Close
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
