import { useQueryClient } from '@tanstack/preact-query';
import { useEffect, useState } from 'preact/hooks';
import { useLocation, useSearchParams } from 'wouter-preact';
import { onLiveEvent, onReconnect } from '../live';
import { DedicatedForm } from './dedicated/form';
import { DedicatedList } from './dedicated/list';
import { DEDICATED_KEY } from './dedicated/requests';

/**
 * The Dedicated page (issue 41): single servers on fixed ports in folders of their own. The
 * list, `?new` the create form, `?edit=<name>` the edit form. Service and dedicated events from
 * the live socket reload the list (a start shows STARTING, then READY, as it happens); it also
 * polls, in case the socket is down.
 */
export function Dedicated() {
  const queries = useQueryClient();
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    const reload = () => void queries.invalidateQueries({ queryKey: DEDICATED_KEY });
    const offEvents = onLiveEvent((event) => {
      if (event.type.startsWith('DEDICATED_') || event.type.startsWith('SERVICE_')) reload();
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
      <DedicatedForm
        key={editing ?? '(new)'}
        name={editing}
        onDone={(message) => {
          setNotice(message);
          navigate('/dedicated');
        }}
        onCancel={() => navigate('/dedicated')}
      />
    );
  }

  return (
    <section>
      <div class="gd-head">
        <h1>Dedicated services</h1>
        <button
          type="button"
          onClick={() => {
            setNotice(null);
            navigate('/dedicated?new');
          }}
        >
          New dedicated service
        </button>
      </div>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <DedicatedList
        onEdit={(name) => {
          setNotice(null);
          navigate(`/dedicated?edit=${encodeURIComponent(name)}`);
        }}
        onNotice={setNotice}
      />
    </section>
  );
}
