/**
 * A group's own page (/groups/:name): what it runs and its instances, and the group actions
 * (POST /api/groups/{name}/actions/*): start N, a rolling restart a stagger apart that keeps the
 * group's minimum READY, stop all (drained). Each shows its dry run first (the plan, step by
 * step, with what to know) and runs on the controller once confirmed; its progress follows from
 * the live events, so closing the page does not stop it.
 */
import { useState } from 'preact/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { Link, useParams } from 'wouter-preact';
import { api } from '../../api';
import { useLiveRefresh } from '../../live-refresh';
import { Modal } from '../../modal';
import { loadStylesheet } from '../../stylesheet';
import { ACTION_WORDS, actionBody, groupPath, instancesKey, runKey, stepWords, type ActionKind, type ActionOptions, type ActionPlan, type ActionRun, type GroupFacts, type Instance } from './model';
import groupCss from './group.css' with { type: 'file' };

export const ready = loadStylesheet(groupCss);

const SERVICE_EVENT = (type: string) => type.startsWith('SERVICE_');

export function Page() {
  const { name } = useParams<{ name: string }>();
  const group = decodeURIComponent(name ?? '');
  const queries = useQueryClient();
  const facts = useQuery({ queryKey: ['group', group], queryFn: () => api<GroupFacts>(groupPath(group)) });
  const instances = useQuery({ queryKey: instancesKey(group), queryFn: () => api<{ services: Instance[] }>(`/api/services?group=${encodeURIComponent(group)}`) });
  const run = useQuery({ queryKey: runKey(group), queryFn: () => api<{ run: ActionRun | null }>(groupPath(group, '/actions')) });
  // Every step ends in a service event: the instances and the run are read again after each.
  useLiveRefresh([instancesKey(group), runKey(group), ['group', group]], SERVICE_EVENT, 150);

  const [options, setOptions] = useState<ActionOptions>({ count: 1, staggerSeconds: 10, drain: true });
  const [asking, setAsking] = useState<{ action: ActionKind; plan: ActionPlan } | null>(null);
  const dryRun = useMutation({
    mutationFn: (action: ActionKind) => api<{ plan: ActionPlan }>(groupPath(group, `/actions/${action}`), { method: 'POST', json: actionBody(action, options, true) }),
    onSuccess: ({ plan }, action) => setAsking({ action, plan }),
  });
  const begin = useMutation({
    mutationFn: (action: ActionKind) => api<{ run: ActionRun }>(groupPath(group, `/actions/${action}`), { method: 'POST', json: actionBody(action, options, false) }),
    onSuccess: ({ run: started }) => {
      queries.setQueryData(runKey(group), { run: started });
      setAsking(null);
    },
  });
  const running = run.data?.run?.status === 'running';

  if (facts.isError) {
    return (
      <section>
        <h1>{group}</h1>
        <p role="alert" class="error">
          {facts.error.message}
        </p>
      </section>
    );
  }
  return (
    <section class="gp-page" aria-labelledby="gp-title">
      <p class="gp-crumbs">
        <Link href="/groups">Groups</Link> / {group}
      </p>
      <h1 id="gp-title">{group}</h1>
      {facts.data && (
        <p class="gp-facts">
          {facts.data.software} {facts.data.version} · {facts.data.type} · {facts.data.activeInstances} running (min {facts.data.minInstances}, max {facts.data.maxInstances}) · {facts.data.memory}
        </p>
      )}

      <section class="gp-card" aria-labelledby="gp-actions-title">
        <h2 id="gp-actions-title">Group actions</h2>
        <p class="gp-muted">Each shows what it will do first. It then runs on the controller: closing this page does not stop it.</p>
        <div class="gp-actions">
          <form aria-label="Start instances" onSubmit={(e) => (e.preventDefault(), dryRun.mutate('start'))}>
            <label>
              Instances to start
              <input type="number" min={1} max={1000} value={options.count} onInput={(e) => setOptions({ ...options, count: Math.max(1, Number(e.currentTarget.value) || 1) })} />
            </label>
            <button type="submit" disabled={running || dryRun.isPending}>
              Start…
            </button>
          </form>
          <form aria-label="Rolling restart" onSubmit={(e) => (e.preventDefault(), dryRun.mutate('restart'))}>
            <label>
              Stagger (s)
              <input type="number" min={0} max={3600} value={options.staggerSeconds} onInput={(e) => setOptions({ ...options, staggerSeconds: Math.max(0, Number(e.currentTarget.value) || 0) })} />
            </label>
            <button type="submit" disabled={running || dryRun.isPending}>
              Rolling restart…
            </button>
          </form>
          <form aria-label="Stop all" onSubmit={(e) => (e.preventDefault(), dryRun.mutate('stop'))}>
            <label class="gp-check">
              <input type="checkbox" checked={options.drain} onChange={(e) => setOptions({ ...options, drain: e.currentTarget.checked })} />
              Drain players first
            </label>
            <button type="submit" class="gp-danger" disabled={running || dryRun.isPending}>
              Stop all…
            </button>
          </form>
        </div>
        {dryRun.isError && (
          <p role="alert" class="error">
            {dryRun.error.message}
          </p>
        )}
        {run.data?.run && <RunView run={run.data.run} />}
      </section>

      <section class="gp-card" aria-labelledby="gp-instances-title">
        <h2 id="gp-instances-title">Instances</h2>
        {instances.data && instances.data.services.length === 0 && <p class="gp-muted">None running.</p>}
        {instances.data && instances.data.services.length > 0 && (
          <ul class="gp-instances" aria-label="Instances of the group">
            {instances.data.services.map((s) => (
              <li key={s.name} data-state={s.state}>
                <Link href={`/services/${encodeURIComponent(s.name)}`}>{s.name}</Link> <span class="gp-state">{s.state}</span> <span class="gp-muted">{s.playerCount} players · node {s.nodeId}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      {asking && <PlanDialog asking={asking} busy={begin.isPending} failure={begin.isError ? begin.error.message : null} onConfirm={() => begin.mutate(asking.action)} onCancel={() => (setAsking(null), begin.reset())} />}
    </section>
  );
}

function PlanDialog({ asking, busy, failure, onConfirm, onCancel }: { asking: { action: ActionKind; plan: ActionPlan }; busy: boolean; failure: string | null; onConfirm: () => void; onCancel: () => void }) {
  const { plan } = asking;
  return (
    <Modal labelledBy="gp-plan-title" class="gp-dialog" onCancel={onCancel}>
      <h2 id="gp-plan-title">
        {ACTION_WORDS[asking.action]} of {plan.group}?
      </h2>
      {plan.refusal ? (
        <p role="alert" class="error">
          {plan.refusal}
        </p>
      ) : (
        <ol class="gp-plan" aria-label="What it will do">
          {plan.steps.map((step, i) => (
            <li key={i}>{stepWords(step)}</li>
          ))}
        </ol>
      )}
      {plan.warnings.length > 0 && (
        <ul class="gp-warnings" aria-label="To know before">
          {plan.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {failure && (
        <p role="alert" class="error">
          {failure}
        </p>
      )}
      <div class="gp-dialog-buttons">
        <button type="button" class="gp-secondary" onClick={onCancel}>
          Cancel
        </button>
        {!plan.refusal && (
          <button type="button" disabled={busy} onClick={onConfirm}>
            {busy ? 'Starting…' : 'Confirm'}
          </button>
        )}
      </div>
    </Modal>
  );
}

function RunView({ run }: { run: ActionRun }) {
  const state = run.status === 'running' ? 'running' : run.status === 'done' ? 'finished' : 'stopped at a failure';
  return (
    <div class="gp-run">
      <h3>
        {ACTION_WORDS[run.action]} by {run.actor}: {state}
      </h3>
      <ol aria-label={`${ACTION_WORDS[run.action]} progress`}>
        {run.steps.map((step, i) => (
          <li key={i} data-status={step.status}>
            <span class="gp-step-status">{step.status}</span> {step.outcome || stepWords(step)}
          </li>
        ))}
      </ol>
    </div>
  );
}
