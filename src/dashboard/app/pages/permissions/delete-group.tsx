/** Deleting a group, asked first; a refusal stays in the dialog in the API's words. */
import { useLocation } from 'wouter-preact';
import { ConfirmDialog } from '../../forms/confirm-dialog';
import { refusalWords } from './common';
import { viewHref } from './links';
import { deleteGroup, type PermGroup } from './requests';

export function DeleteGroup({ group, onDone, onClose }: { group: PermGroup; onDone: (message: string) => void; onClose: () => void }) {
  const [, navigate] = useLocation();
  let message = '';
  return (
    <ConfirmDialog
      title={`Delete the group ${group.name}?`}
      confirmLabel={`Delete ${group.name}`}
      onConfirm={async () => {
        message = (await deleteGroup(group.name)).message;
      }}
      explain={(failure) => <p>{refusalWords(failure)}</p>}
      onDone={() => {
        onDone(message.charAt(0).toUpperCase() + message.slice(1) + '.');
        navigate(viewHref('groups'));
      }}
      onClose={onClose}
    >
      <p>Its members leave it, groups that inherit from it stop inheriting its permissions, and tracks drop it. This cannot be undone.</p>
    </ConfirmDialog>
  );
}

