/**
 * A row's own Stop and Restart (accessible names carry the service's name, so each row's are
 * told apart), with the answer's refusal shown next to them. A stop waits for the drain, up to
 * the group's drain timeout when players are on: the button says it is still at work. Command
 * and Move open a dialog (row-dialogs.tsx) for what they need first.
 */
import { useState } from 'preact/hooks';
import { useMutation, useQueryClient } from '@tanstack/preact-query';
import { CommandDialog, MoveDialog } from './row-dialogs';
import { api } from '../../api';
import { SERVICES_KEY } from './live';
import type { ActionAnswer, Service } from './model';

type RowAction = 'stop' | 'restart';

export function RowActions({ service }: { service: Service }) {
  const queries = useQueryClient();
  const action = useMutation({
    mutationFn: (what: RowAction) => api<ActionAnswer>(`/api/services/${encodeURIComponent(service.name)}/${what}`, { method: 'POST' }),
    onSettled: () => void queries.invalidateQueries({ queryKey: SERVICES_KEY }),
  });
  const busy = action.isPending;
  const [open, setOpen] = useState<'command' | 'move' | null>(null);
  const running = service.state === 'READY' || service.state === 'STARTING' || service.state === 'DRAINING';
  // A crashed service has no process: Stop takes its record away.
  const stopTitle = service.state === 'CRASHED' ? 'Remove the crashed service from the list' : 'Graceful stop: drain, then stop';
  return (
    <div class="svc-row-actions">
      <button type="button" class="secondary" aria-label={`Stop ${service.name}`} title={stopTitle} disabled={busy} onClick={() => action.mutate('stop')}>
        {busy && action.variables === 'stop' ? 'Stopping…' : 'Stop'}
      </button>
      <button type="button" class="secondary" aria-label={`Restart ${service.name}`} disabled={busy} onClick={() => action.mutate('restart')}>
        {busy && action.variables === 'restart' ? 'Restarting…' : 'Restart'}
      </button>
      <button type="button" class="secondary" aria-label={`Command for ${service.name}`} title="Write a command to its console" disabled={!running} onClick={() => setOpen('command')}>
        Command
      </button>
      <button type="button" class="secondary" aria-label={`Move ${service.name}`} title="Move it to another node" disabled={service.state !== 'READY'} onClick={() => setOpen('move')}>
        Move
      </button>
      {open === 'command' && <CommandDialog service={service} onClose={() => setOpen(null)} />}
      {open === 'move' && <MoveDialog service={service} onClose={() => setOpen(null)} />}
      {action.isError && (
        <p class="error" role="alert">
          {action.error.message}
        </p>
      )}
    </div>
  );
}
