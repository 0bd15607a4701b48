/**
 * The browser's own modal <dialog>, opened on mount and closed on unmount: focus is kept inside
 * and Escape answers `onCancel`. Named by the heading its `labelledBy` points at. The dialogs of
 * the Services rows, the bulk confirmation and the group actions use it.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Modal({ labelledBy, onCancel, class: className = 'svc-confirm', children }: { labelledBy: string; onCancel: () => void; class?: string; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      class={className}
      aria-labelledby={labelledBy}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      {children}
    </dialog>
  );
}
