import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { ApiFailure } from '../../api';
import { ConfirmDialog } from '../../forms/confirm-dialog';
import { ACTIVE_STATES, DEDICATED_KEY, deleteDedicated, listDedicated, startDedicated, stopDedicated, type DedicatedView } from './requests';

interface Props {
  onEdit: (name: string) => void;
  onNotice: (message: string) => void;
}

/** Why a delete was refused, in words: it runs, so stop it first; the folder stays either way. */
function explainRefusal(service: DedicatedView, failure: ApiFailure) {
  if (failure.code !== 'DEDICATED_ALREADY_RUNNING') return null;
  return (
    <>
      <p>
        <strong>{service.name} is running</strong>, and a dedicated service can only be deleted while it is stopped. The controller said: “{failure.message}”.
      </p>
      <p>Stop it first with its Stop button, wait until it shows “stopped”, then delete it. Its folder {service.directory} is kept either way.</p>
    </>
  );
}

/** Every dedicated service with how it runs, and start, stop, edit and delete for each. */
export function DedicatedList({ onEdit, onNotice }: Props) {
  const queries = useQueryClient();
  const services = useQuery({ queryKey: DEDICATED_KEY, queryFn: listDedicated, refetchInterval: 5_000 });
  const [deleting, setDeleting] = useState<DedicatedView | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  if (services.isPending) return <p>Loading…</p>;
  if (services.isError) return <p role="alert" class="error">{services.error.message}</p>;
  const list = services.data.services;

  /** Start or stop: the answer's message is the notice; a refusal (port held, jar missing) says why. */
  const act = async (verb: 'start' | 'stop', name: string) => {
    setPending(name);
    setFailure(null);
    try {
      const answer = await (verb === 'start' ? startDedicated(name) : stopDedicated(name));
      onNotice(answer.message);
    } catch (error) {
      setFailure(`Could not ${verb} ${name}: ${error instanceof ApiFailure ? error.message : 'the controller cannot be reached'}`);
    } finally {
      setPending(null);
      await queries.invalidateQueries({ queryKey: DEDICATED_KEY });
    }
  };

  return (
    <>
      {failure && (
        <p class="error" role="alert">
          {failure}
        </p>
      )}
      <table class="gd-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>State</th>
            <th>Port</th>
            <th>Software</th>
            <th>Memory</th>
            <th>Players</th>
            <th>Uptime</th>
            <th>Proxies</th>
            <th>
              <span class="gd-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.length === 0 && (
            <tr>
              <td colSpan={9} class="empty">
                No dedicated services yet: “New dedicated service” creates the first.
              </td>
            </tr>
          )}
          {list.map((s) => {
            const active = s.state !== null && ACTIVE_STATES.includes(s.state);
            return (
              <tr key={s.name}>
                <th scope="row" data-label="Name">
                  {s.name}
                </th>
                <td data-label="State">
                  <span class={`gd-state gd-state-${(s.state ?? 'stopped').toLowerCase()}`}>{s.state ?? 'stopped'}</span>
                </td>
                <td data-label="Port">{s.port}</td>
                <td data-label="Software">
                  {s.software} {s.version}
                </td>
                <td data-label="Memory">{s.memory}</td>
                <td data-label="Players">{s.playerCount ?? '—'}</td>
                <td data-label="Uptime">{s.uptime ?? '—'}</td>
                <td data-label="Proxies">{s.proxyEnabled ? 'listed' : 'not listed'}</td>
                <td class="gd-row-actions">
                  {active ? (
                    <button type="button" class="gd-secondary" disabled={pending === s.name} aria-label={`Stop ${s.name}`} onClick={() => void act('stop', s.name)}>
                      Stop
                    </button>
                  ) : (
                    <button type="button" disabled={pending === s.name} aria-label={`Start ${s.name}`} onClick={() => void act('start', s.name)}>
                      Start
                    </button>
                  )}
                  <button type="button" class="gd-secondary" aria-label={`Edit ${s.name}`} onClick={() => onEdit(s.name)}>
                    Edit
                  </button>
                  <button type="button" class="gd-danger" aria-label={`Delete ${s.name}`} onClick={() => setDeleting(s)}>
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {deleting && (
        <ConfirmDialog
          title={`Delete dedicated service ${deleting.name}?`}
          confirmLabel={`Delete ${deleting.name}`}
          onConfirm={async () => {
            const answer = await deleteDedicated(deleting.name);
            onNotice(answer.message);
            await queries.invalidateQueries({ queryKey: DEDICATED_KEY });
          }}
          explain={(refusal) => explainRefusal(deleting, refusal)}
          onDone={() => setDeleting(null)}
          onClose={() => setDeleting(null)}
        >
          <p>Its configuration (config/dedicated/{deleting.name}.toml) goes. Its folder {deleting.directory}, with the world in it, is kept.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
