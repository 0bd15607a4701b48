/**
 * The bar for the selected services: Start, Stop, Restart and the stagger between services; an
 * action is confirmed in a dialog naming how many services it touches, then runs one service at
 * a time (see bulk.ts) with each one's progress listed under the bar.
 */
import { useState } from 'preact/hooks';
import { ACTION_WORD, useBulkRun, type BulkAction, type BulkRun } from './bulk';
import { ConfirmDialog } from './confirm';
import { DOWN_STATES, type Service } from './model';

const DEFAULT_STAGGER_S = 5;
const MAX_STAGGER_S = 600;

/** The services an action touches: Start only those with no process (see runStep). */
function touched(action: BulkAction, selected: Service[]): Service[] {
  return action === 'start' ? selected.filter((s) => DOWN_STATES.has(s.state)) : selected;
}

const plural = (n: number) => `${n} service${n === 1 ? '' : 's'}`;

/** The dialog's words on the order and the pause between services. */
function order(targets: Service[], seconds: number): string {
  const names = targets.map((s) => s.name).join(', ');
  if (targets.length === 1) return `${names}.`;
  return `One at a time in this order, ${seconds} s between one's answer and the next: ${names}.`;
}

const WHAT_IT_DOES: Record<BulkAction, string> = {
  start: 'A crashed service is started again under its own name; a stopped one starts its group (a dedicated one, itself).',
  stop: 'Each is stopped (players on it are moved off first, up to its group’s drain timeout) and leaves the list.',
  restart: 'Each is stopped (players on it are moved off first), then started again.',
};

export function BulkBar({ selected }: { selected: Service[] }) {
  const { run, begin, cancel, dismiss } = useBulkRun();
  const [stagger, setStagger] = useState(String(DEFAULT_STAGGER_S));
  const [asking, setAsking] = useState<BulkAction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const running = run !== null && !run.finished;
  const seconds = Number(stagger);
  const staggerOk = stagger.trim() !== '' && Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_STAGGER_S;

  const ask = (action: BulkAction) => {
    setNotice(null);
    if (touched(action, selected).length === 0) setNotice('None of the selected services is stopped or crashed: there is nothing to start.');
    else setAsking(action);
  };
  const targets = asking ? touched(asking, selected) : [];

  return (
    <section class="svc-bulk" aria-label="Selected services">
      <div class="svc-bulk-controls">
        <span>{selected.length} selected</span>
        {(['start', 'stop', 'restart'] as const).map((action) => (
          <button key={action} type="button" disabled={selected.length === 0 || running || !staggerOk} onClick={() => ask(action)}>
            {ACTION_WORD[action]}
          </button>
        ))}
        <label class="svc-stagger">
          <span>Stagger (s)</span>
          <input type="number" min={0} max={MAX_STAGGER_S} step={1} value={stagger} onInput={(e) => setStagger(e.currentTarget.value)} />
        </label>
      </div>
      <p class="notice">Start brings back selected services that crashed or stopped, under their own name; running ones are left alone. For one more instance, start its group above.</p>
      {!staggerOk && <p class="error" role="alert">The stagger is a number of seconds from 0 to {MAX_STAGGER_S}.</p>}
      {notice && <p role="status">{notice}</p>}
      {asking && (
        <ConfirmDialog
          question={`${ACTION_WORD[asking]} ${plural(targets.length)}?`}
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            setAsking(null);
            begin(asking, targets, seconds);
          }}
        >
          <p>{order(targets, seconds)}</p>
          <p>{WHAT_IT_DOES[asking]}</p>
          {asking === 'start' && targets.length < selected.length && <p>{plural(selected.length - targets.length)} of the selection already running: left alone.</p>}
        </ConfirmDialog>
      )}
      {run && <Progress run={run} onCancel={cancel} onDismiss={dismiss} />}
    </section>
  );
}

function Progress({ run, onCancel, onDismiss }: { run: BulkRun; onCancel: () => void; onDismiss: () => void }) {
  const title = `${ACTION_WORD[run.action]} of ${plural(run.steps.length)}`;
  return (
    <div class="svc-progress">
      <h2>
        {title}: {run.finished ? 'finished' : 'running'}
      </h2>
      <ol aria-label={`${ACTION_WORD[run.action]} progress`}>
        {run.steps.map((step) => (
          <li key={step.name} data-status={step.status}>
            <strong>{step.name}</strong> <span class="svc-step-status">{step.status}</span>
            {step.message && <span class="svc-step-message">{step.message}</span>}
          </li>
        ))}
      </ol>
      {run.finished ? (
        <button type="button" class="secondary" onClick={onDismiss}>
          Dismiss
        </button>
      ) : (
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel the rest
        </button>
      )}
    </div>
  );
}
