/**
 * A modal question before something that cannot be undone (deleting a backup, pruning): focus
 * stays in it, Escape and Cancel close it, and a refusal is said in it with only Close left.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

interface Props {
  title: string;
  children: ComponentChildren;
  /** The confirming button's text (it names what it does). */
  confirm: string;
  busyText: string;
  /** Does it; resolves with null when done, or the refusal in words. */
  onConfirm: () => Promise<string | null>;
  onClose: () => void;
}

let counter = 0;

export function ConfirmDialog({ title, children, confirm, busyText, onConfirm, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const [id] = useState(() => `bk-confirm-${++counter}`);
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

  const go = async () => {
    setBusy(true);
    try {
      const problem = await onConfirm();
      if (problem !== null) setRefusal(problem);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      class="bk-dialog"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      {refusal === null ? (
        <>
          {children}
          <div class="bk-actions bk-dialog-actions">
            <button type="button" class="bk-secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="button" class="bk-danger" disabled={busy} onClick={() => void go()}>
              {busy ? busyText : confirm}
            </button>
          </div>
        </>
      ) : (
        <>
          <p role="alert" class="bk-refusal">
            {refusal}
          </p>
          <div class="bk-actions bk-dialog-actions">
            <button type="button" class="bk-secondary" ref={close} onClick={onClose}>
              Close
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
