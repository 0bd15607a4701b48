/**
 * Asks before deleting a file or a folder (a folder with everything in it, counted first),
 * then deletes it, showing how far it got and the API's refusal if there is one.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import type { ScopeName } from './paths';
import { deleteAll, deletionOrder } from './remove-tree';
import type { FileEntry } from './requests';

type Phase = { name: 'counting' } | { name: 'asking'; paths: string[] } | { name: 'deleting'; paths: string[]; done: number } | { name: 'failed'; message: string };

export function DeleteDialog({ scope, entry, onClose }: { scope: ScopeName; entry: FileEntry; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const queries = useQueryClient();
  const [phase, setPhase] = useState<Phase>(entry.isDirectory ? { name: 'counting' } : { name: 'asking', paths: [entry.path] });
  useEffect(() => {
    dialog.current?.showModal();
    if (!entry.isDirectory) return;
    let live = true;
    deletionOrder(scope, entry).then(
      (paths) => live && setPhase({ name: 'asking', paths }),
      (error: Error) => live && setPhase({ name: 'failed', message: `The folder could not be read: ${error.message}` }),
    );
    return () => {
      live = false;
    };
  }, [scope, entry]);

  const confirm = async (paths: string[]) => {
    setPhase({ name: 'deleting', paths, done: 0 });
    try {
      await deleteAll(scope, paths, (done) => setPhase({ name: 'deleting', paths, done }));
      onClose();
    } catch (error) {
      setPhase({ name: 'failed', message: (error as Error).message });
    } finally {
      void queries.invalidateQueries({ queryKey: ['files', scope] });
    }
  };
  const inside = phase.name === 'asking' ? phase.paths.length - 1 : 0;
  const busy = phase.name === 'deleting' || phase.name === 'counting';
  return (
    // Escape closes it only when nothing is under way.
    <dialog ref={dialog} class="fm-dialog" aria-labelledby="fm-delete-title" onCancel={(e) => (busy ? e.preventDefault() : onClose())}>
      <h2 id="fm-delete-title">
        Delete {entry.isDirectory ? 'folder' : 'file'} {entry.name}?
      </h2>
      {phase.name === 'counting' && <p>Counting what the folder holds…</p>}
      {phase.name === 'asking' && (
        <p>
          {entry.isDirectory
            ? inside === 0
              ? 'The folder is empty.'
              : `Everything in it is deleted too: ${inside} ${inside === 1 ? 'entry' : 'entries'}.`
            : `${entry.path} is deleted.`}{' '}
          This cannot be undone.
        </p>
      )}
      {phase.name === 'deleting' && (
        <p role="status">
          Deleting… {phase.done} of {phase.paths.length}
        </p>
      )}
      {phase.name === 'failed' && (
        <p class="error" role="alert">
          {phase.message}
        </p>
      )}
      <div class="fm-dialog-buttons">
        <button type="button" class="fm-secondary" disabled={phase.name === 'deleting'} onClick={onClose}>
          {phase.name === 'failed' ? 'Close' : 'Cancel'}
        </button>
        {phase.name !== 'failed' && (
          <button type="button" class="fm-danger-button" disabled={phase.name !== 'asking'} onClick={() => phase.name === 'asking' && void confirm(phase.paths)}>
            Delete
          </button>
        )}
      </div>
    </dialog>
  );
}
