/**
 * A modal question before an action that touches several services (modal.tsx: focus kept
 * inside, Escape answers Cancel), its heading the question and so its accessible name.
 */
import type { ComponentChildren } from 'preact';
import { Modal } from '../../modal';

export function ConfirmDialog({ question, children, onConfirm, onCancel }: { question: string; children?: ComponentChildren; onConfirm: () => void; onCancel: () => void }) {
  return (
    <Modal labelledBy="svc-confirm-question" onCancel={onCancel}>
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
    </Modal>
  );
}
