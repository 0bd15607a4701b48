/**
 * A row's two actions that need an answer first: a console command written to the service
 * (POST /api/services/{name}/exec; the reply shows in its console, on its own page) and a move
 * to another node (POST /api/services/{name}/migrate: a node of GET /api/nodes, or the placement
 * strategy's choice). Both are the browser's own <dialog>, named by their heading; refusals are
 * shown in the API's words inside it (a cluster that is off, a node that cannot take it).
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { Link } from 'wouter-preact';
import { api, ApiFailure } from '../../api';
import { Modal } from '../../modal';
import { SERVICES_KEY } from './live';
import type { Service } from './model';

/** The exec route's limit: one line of at most 4096 characters. */
const COMMAND_MAX = 4096;

function RowDialog({ title, id, children, onClose }: { title: string; id: string; children: ComponentChildren; onClose: () => void }) {
  return (
    <Modal labelledBy={id} onCancel={onClose}>
      <h2 id={id}>{title}</h2>
      {children}
    </Modal>
  );
}

export function CommandDialog({ service, onClose }: { service: Service; onClose: () => void }) {
  const [command, setCommand] = useState('');
  const run = useMutation({
    mutationFn: (line: string) => api<{ message: string }>(`/api/services/${encodeURIComponent(service.name)}/exec`, { method: 'POST', json: { command: line } }),
  });
  const line = command.trim();
  const problem = /[\r\n]/.test(command) ? 'One line only.' : line.length > COMMAND_MAX ? `At most ${COMMAND_MAX} characters.` : null;
  return (
    <RowDialog title={`Run a command on ${service.name}`} id="svc-command-title" onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (line && !problem) run.mutate(line);
        }}
      >
        <label for="svc-command-line">Command</label>
        <input id="svc-command-line" value={command} autocomplete="off" spellcheck={false} placeholder="say Restarting in 5 minutes" onInput={(e) => setCommand(e.currentTarget.value)} />
        {problem && <p class="error">{problem}</p>}
        {run.isSuccess && (
          <p role="status">
            Sent. The reply shows in the <Link href={`/services/${encodeURIComponent(service.name)}`}>console of {service.name}</Link>.
          </p>
        )}
        {run.isError && (
          <p class="error" role="alert">
            {run.error.message}
          </p>
        )}
        <div class="svc-confirm-buttons">
          <button type="button" class="secondary" onClick={onClose}>
            Close
          </button>
          <button type="submit" disabled={!line || problem !== null || run.isPending}>
            {run.isPending ? 'Sending…' : 'Run'}
          </button>
        </div>
      </form>
    </RowDialog>
  );
}

interface NodeRow {
  nodeId: string;
  isConnected: boolean;
}

/** Where the strategy's choice is asked for (the route's target omitted). */
const STRATEGY = '';

export function MoveDialog({ service, onClose }: { service: Service; onClose: () => void }) {
  const queries = useQueryClient();
  const nodes = useQuery({ queryKey: ['nodes', 'for-move'], queryFn: () => api<{ nodes: NodeRow[] }>('/api/nodes') });
  const [target, setTarget] = useState(STRATEGY);
  const move = useMutation({
    mutationFn: () => api<{ message: string }>(`/api/services/${encodeURIComponent(service.name)}/migrate`, { method: 'POST', json: target === STRATEGY ? {} : { target } }),
    onSettled: () => void queries.invalidateQueries({ queryKey: SERVICES_KEY }),
  });
  const clusterOff = nodes.error instanceof ApiFailure && nodes.error.code === 'CLUSTER_NOT_ENABLED';
  return (
    <RowDialog title={`Move ${service.name} to another node`} id="svc-move-title" onClose={onClose}>
      {clusterOff ? (
        <p>The cluster is off: every service runs on this machine. Set [cluster] enabled = true in svc.toml and connect an agent to move services.</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            move.mutate();
          }}
        >
          <p>
            Now on node <strong>{service.nodeId}</strong>. It is stopped gracefully (drained first when players are on) and started there under the same name.
          </p>
          <label for="svc-move-target">Node</label>
          <select id="svc-move-target" value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value={STRATEGY}>The placement strategy’s choice</option>
            <option value="local">local (this machine)</option>
            {nodes.data?.nodes
              .filter((n) => n.nodeId !== 'local')
              .map((n) => (
                <option key={n.nodeId} value={n.nodeId} disabled={!n.isConnected}>
                  {n.nodeId}
                  {n.isConnected ? '' : ' (not connected)'}
                </option>
              ))}
          </select>
          {nodes.isError && !clusterOff && <p class="error">The nodes could not be read: {nodes.error.message}</p>}
          {move.isSuccess && <p role="status">{move.data.message}.</p>}
          {move.isError && (
            <p class="error" role="alert">
              {move.error.message}
            </p>
          )}
          <div class="svc-confirm-buttons">
            <button type="button" class="secondary" onClick={onClose}>
              Close
            </button>
            <button type="submit" disabled={move.isPending || move.isSuccess}>
              {move.isPending ? 'Moving…' : 'Move'}
            </button>
          </div>
        </form>
      )}
    </RowDialog>
  );
}
