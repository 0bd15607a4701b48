/**
 * A modal question before an action that touches several services: the browser's own <dialog>
 * (focus kept inside, Escape answers Cancel), its heading the question and so its accessible name.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function ConfirmDialog({ question, children, onConfirm, onCancel }: { question: string; children?: ComponentChildren; onConfirm: () => void; onCancel: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="svc-confirm"
      aria-labelledby="svc-confirm-question"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="svc-confirm-question">{question}</h2>
      {children}
      <div class="svc-confirm-buttons">
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" onClick={onConfirm}>
          Confirm
        </button>
      </div>
    </dialog>
  );
}
