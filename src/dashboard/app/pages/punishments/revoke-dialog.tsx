/**
 * Lifting a punishment in force (DELETE /api/punishments/{id}, with the reason kept on the
 * record). A modal dialog: focus stays in it, Escape closes it. When the API answers 409 the
 * record was no longer in force (revoked by someone else meanwhile, superseded, or ended): the
 * dialog says so in words and offers only Close, since asking again would be refused the same way.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api, ApiFailure } from '../../api';
import { aType, BASE, LIST_KEY, LOGIN_BLOCKING, RECORD_KEY, scopeText, type Punishment } from './model';
import { refusalText } from './outcome';
import { sentence } from '../../sentence';

interface Props {
  punishment: Punishment;
  /** Called with what happened, in words, once the record is lifted. */
  onDone: (message: string) => void;
  onClose: () => void;
}

/** What a refusal of the revoke means. */
function explain(error: unknown, p: Punishment): string {
  if (error instanceof ApiFailure && error.status === 409) {
    return `Punishment #${p.id} is no longer in force, so there is nothing to revoke: ${sentence(error.message)} Someone may have revoked it already, a newer punishment may have replaced it, or it ended. The list shows it as it is now.`;
  }
  if (error instanceof ApiFailure && error.status === 404) return `Punishment #${p.id} no longer exists: ${sentence(error.message)}`;
  return refusalText(error, `Punishment #${p.id} was not revoked`);
}

export function RevokeDialog({ punishment: p, onDone, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const queries = useQueryClient();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const close = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);

  // The form's buttons are gone with a refusal: focus goes to the one left.
  useEffect(() => {
    if (refusal !== null) close.current?.focus();
  }, [refusal]);

  const revoke = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await api<{ message: string }>(`${BASE}/${p.id}`, { method: 'DELETE', json: reason.trim() === '' ? {} : { reason: reason.trim() } });
      const freed = LOGIN_BLOCKING.has(p.type) ? `${p.targetName} may join again` : `${p.targetName} may chat again`;
      onDone(`${sentence(answer.message)} ${freed}${p.scope === 'NETWORK' ? '' : ` (${scopeText(p)})`}.`);
    } catch (error) {
      setRefusal(explain(error, p));
    } finally {
      setBusy(false);
      void queries.invalidateQueries({ queryKey: LIST_KEY });
      void queries.invalidateQueries({ queryKey: RECORD_KEY });
    }
  };

  const title = `Revoke punishment #${p.id}`;
  return (
    <dialog
      ref={dialog}
      class="pn-dialog"
      aria-labelledby="pn-revoke-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id="pn-revoke-title">{title}</h2>
      {refusal === null ? (
        <form onSubmit={(e) => void revoke(e)}>
          <p>
            This lifts {aType(p.type)} of {p.targetName} ({scopeText(p)}) at once{p.reason ? `, issued for “${p.reason}”` : ''}. The record stays, marked as revoked by you.
          </p>
          <div class="pn-field">
            <label for="pn-revoke-reason">Why (kept on the record)</label>
            <input id="pn-revoke-reason" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value.replace(/[\r\n]+/g, ' '))} maxLength={1024} autocomplete="off" />
          </div>
          <div class="pn-actions">
            <button type="submit" class="pn-danger" disabled={busy}>
              {busy ? 'Revoking…' : 'Revoke'}
            </button>
            <button type="button" class="pn-secondary" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <p class="pn-refusal" role="alert">
            {refusal}
          </p>
          <div class="pn-actions">
            <button type="button" class="pn-secondary" onClick={onClose} ref={close}>
              Close
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
