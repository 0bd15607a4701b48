import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../api';

interface Props {
  title: string;
  /** What the action does and what it leaves alone. */
  children: ComponentChildren;
  confirmLabel: string;
  /** The request; resolving closes the dialog through `onDone`. */
  onConfirm: () => Promise<void>;
  /**
   * Words for a refusal the operator can act on (a 409: what still runs, what to do); null
   * for any other failure, which shows the API's own message.
   */
  explain: (failure: ApiFailure) => ComponentChildren | null;
  onDone: () => void;
  onClose: () => void;
}

/**
 * A modal question before something that cannot be undone (a delete). It stays open when the
 * API refuses and says why there, where the operator is looking; the confirm button goes then,
 * since asking again would be refused the same way.
 */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, explain, onDone, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<ComponentChildren | null>(null);

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
      onDone();
    } catch (failure) {
      if (failure instanceof ApiFailure) setRefusal(explain(failure) ?? <p>{failure.message}</p>);
      else setRefusal(<p>The controller cannot be reached; nothing was deleted.</p>);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      class="gd-dialog"
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      {refusal === null ? (
        children
      ) : (
        <div class="gd-refusal" role="alert">
          {refusal}
        </div>
      )}
      <div class="gd-actions">
        {refusal === null && (
          <button type="button" class="gd-danger" disabled={busy} onClick={() => void confirm()}>
            {busy ? 'Deleting…' : confirmLabel}
          </button>
        )}
        <button type="button" class="gd-secondary" onClick={onClose}>
          {refusal === null ? 'Cancel' : 'Close'}
        </button>
      </div>
    </dialog>
  );
}
