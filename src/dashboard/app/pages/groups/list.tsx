import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { ApiFailure } from '../../api';
import { ConfirmDialog } from '../../forms/confirm-dialog';
import { deleteGroup, GROUPS_KEY, listGroups, type GroupView } from './requests';

interface Props {
  onEdit: (name: string) => void;
  onNotice: (message: string) => void;
}

/**
 * Why a delete was refused, in words an operator acts on. A group goes only when none of its
 * services runs; with Min instances above 0 the controller starts new ones as they stop, so
 * that has to go to 0 first.
 */
function explainRefusal(group: GroupView, failure: ApiFailure) {
  if (failure.code !== 'GROUP_HAS_RUNNING_INSTANCES') return null;
  return (
    <>
      <p>
        <strong>{group.name} still has running services</strong>, and a group can only be deleted once none of them runs. The controller said: “{failure.message}”.
      </p>
      <p>
        Stop its services first (Services page){group.minInstances > 0 && <>, after setting its Min instances to 0 with Edit: otherwise the controller starts new ones to keep {group.minInstances} running</>}. Then delete the group.
      </p>
    </>
  );
}

/** Every group: what it runs, how many, its memory, whether it is kept (static) or quarantined. */
export function GroupList({ onEdit, onNotice }: Props) {
  const queries = useQueryClient();
  const groups = useQuery({ queryKey: GROUPS_KEY, queryFn: listGroups, refetchInterval: 5_000 });
  const [deleting, setDeleting] = useState<GroupView | null>(null);

  if (groups.isPending) return <p>Loading…</p>;
  if (groups.isError) return <p role="alert" class="error">{groups.error.message}</p>;
  const list = groups.data.groups;

  return (
    <>
      <table class="gd-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Software</th>
            <th>Instances</th>
            <th>Memory</th>
            <th>Type</th>
            <th>Static</th>
            <th>Quarantine</th>
            <th>
              <span class="gd-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.length === 0 && (
            <tr>
              <td colSpan={8} class="empty">
                No groups yet: “New group” creates the first.
              </td>
            </tr>
          )}
          {list.map((g) => (
            <tr key={g.name}>
              <th scope="row" data-label="Name">
                <Link href={`/groups/${encodeURIComponent(g.name)}`}>{g.name}</Link>
              </th>
              <td data-label="Software">
                {g.software} {g.version}
              </td>
              <td data-label="Instances">
                {g.activeInstances} running <span class="gd-muted">(min {g.minInstances}, max {g.maxInstances})</span>
              </td>
              <td data-label="Memory">{g.memory}</td>
              <td data-label="Type">{g.type}</td>
              <td data-label="Static">{g.static ? 'yes: work folders kept' : 'no'}</td>
              <td data-label="Quarantine" class="gd-wrap">
                {g.quarantine === null ? (
                  <span class="gd-muted">none</span>
                ) : (
                  <>
                    <span class="badge">quarantined</span> {g.quarantine.reason}
                    <small class="gd-muted">{g.quarantine.lift}</small>
                  </>
                )}
              </td>
              <td class="gd-row-actions">
                <button type="button" class="gd-secondary" aria-label={`Edit ${g.name}`} onClick={() => onEdit(g.name)}>
                  Edit
                </button>
                <button type="button" class="gd-danger" aria-label={`Delete ${g.name}`} onClick={() => setDeleting(g)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deleting && (
        <ConfirmDialog
          title={`Delete group ${deleting.name}?`}
          confirmLabel={`Delete ${deleting.name}`}
          onConfirm={async () => {
            const answer = await deleteGroup(deleting.name);
            onNotice(answer.message);
            await queries.invalidateQueries({ queryKey: GROUPS_KEY });
          }}
          explain={(failure) => explainRefusal(deleting, failure)}
          onDone={() => setDeleting(null)}
          onClose={() => setDeleting(null)}
        >
          <p>
            Its definition (config/groups/{deleting.name}.toml) goes, and with it its warm pool. Its template folders stay. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
