import { useQueryClient } from '@tanstack/preact-query';
import { useEffect, useState } from 'preact/hooks';
import { useLocation, useSearchParams } from 'wouter-preact';
import { onLiveEvent, onReconnect } from '../live';
import { GroupForm } from './groups/form';
import { GroupList } from './groups/list';
import { GROUPS_KEY } from './groups/requests';

/**
 * The Groups page (issue 41): the list, `?new` the create form, `?edit=<name>` the edit form
 * (links that survive a reload and work with the back button). A group or service event from
 * the live socket reloads the list, so instance counts follow starts and stops as they happen;
 * the list also polls, in case the socket is down.
 */
export function Groups() {
  const queries = useQueryClient();
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    const reload = () => void queries.invalidateQueries({ queryKey: GROUPS_KEY });
    const offEvents = onLiveEvent((event) => {
      if (event.type.startsWith('GROUP_') || event.type.startsWith('SERVICE_')) reload();
    });
    const offReconnect = onReconnect(reload);
    return () => {
      offEvents();
      offReconnect();
    };
  }, [queries]);

  const editing = params.get('edit');
  if (params.has('new') || editing !== null) {
    return (
      <GroupForm
        key={editing ?? '(new)'}
        name={editing}
        onDone={(message) => {
          setNotice(message);
          navigate('/groups');
        }}
        onCancel={() => navigate('/groups')}
      />
    );
  }

  return (
    <section>
      <div class="gd-head">
        <h1>Groups</h1>
        <button
          type="button"
          onClick={() => {
            setNotice(null);
            navigate('/groups?new');
          }}
        >
          New group
        </button>
      </div>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <GroupList
        onEdit={(name) => {
          setNotice(null);
          navigate(`/groups?edit=${encodeURIComponent(name)}`);
        }}
        onNotice={setNotice}
      />
    </section>
  );
}
