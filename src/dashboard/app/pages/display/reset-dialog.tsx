/**
 * Asked before POST /api/displays/{name}/reset, which rewrites the group's display file with
 * the defaults (nothing of the old one is kept). A refusal stays in the dialog, in words, and
 * the reset button goes (asking again would be refused the same way). Escape or Cancel closes
 * it; the keyboard starts on Cancel.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { refusalWords } from './access';
import { displayPath, type Display } from './model';

interface Props {
  name: string;
  unsaved: number;
  onDone: (display: Display) => void;
  onClose: () => void;
}

export function ResetDialog({ name, unsaved, onDone, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    cancel.current?.focus();
    return () => element?.close();
  }, []);

  const reset = async () => {
    setBusy(true);
    try {
      onDone(await api<Display>(`${displayPath(name)}/reset`, { method: 'POST' }));
    } catch (error) {
      setRefusal(refusalWords(error, 'Not reset'));
      cancel.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      class="dp-dialog"
      aria-labelledby="dp-reset-title"
      aria-describedby="dp-reset-text"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id="dp-reset-title">Reset the display of {name}?</h2>
      <p id="dp-reset-text">
        Every sign line, NPC setting, status item and state label of {name} goes back to the default, and config/modules/display/{name}.toml is written again with them; nothing
        of the current display is kept.
        {unsaved > 0 && ` Your ${unsaved} unsaved ${unsaved === 1 ? 'change goes' : 'changes go'} too.`}
      </p>
      {refusal && (
        <p role="alert" class="dp-error dp-refusal-box">
          {refusal}
        </p>
      )}
      <div class="dp-actions dp-dialog-actions">
        {refusal === null && (
          <button type="button" class="dp-danger" disabled={busy} onClick={() => void reset()}>
            {busy ? 'Resetting…' : `Reset ${name}`}
          </button>
        )}
        <button type="button" class="dp-secondary" ref={cancel} onClick={onClose}>
          {refusal === null ? 'Cancel' : 'Close'}
        </button>
      </div>
    </dialog>
  );
}
