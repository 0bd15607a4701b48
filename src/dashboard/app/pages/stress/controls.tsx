/**
 * Start a stress test (players, a backend group or all of them, ramp seconds), move a running
 * one to another count (ramp), stop it. Each action counts against its route's 5 a minute: the
 * page says how many are available, disables a button when none is and counts down to the next.
 */
import { useEffect, useState } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { ApiFailure } from '../../api';
import { OutcomeLine, useAction } from '../settings/outcome';
import { GROUPS_KEY, listGroups } from '../settings/requests';
import { budget, recordRefusal, recordSend, STRESS_LIMIT, type Budget, type StressAction } from './budget';
import { MAX_PLAYERS, MAX_SECONDS, rampStress, startStress, stopStress, STRESS_KEY, type StressStatus } from './requests';

/** Sends one stress mutation and books it against its route's budget (a 400 was refused before it counted). */
async function counted(action: StressAction, send: () => Promise<{ message: string; stress: StressStatus }>) {
  try {
    const answer = await send();
    recordSend(action);
    return answer;
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 429) recordRefusal(action, Number(/retry in (\d+)/.exec(error.message)?.[1] ?? 60));
    else if (!(error instanceof ApiFailure) || error.status !== 400) recordSend(action);
    throw error;
  }
}

const ACTIONS: StressAction[] = ['start', 'ramp', 'stop'];
const NAMES: Record<StressAction, string> = { start: 'Start', ramp: 'Ramp', stop: 'Stop' };

/** The three budgets, ticking every second while any is refilling. */
function useBudgets() {
  const [now, setNow] = useState(Date.now());
  const budgets = Object.fromEntries(ACTIONS.map((a) => [a, budget(a, now)])) as Record<StressAction, Budget>;
  const ticking = ACTIONS.some((a) => budgets[a].refilling);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return { budgets, refresh: () => setNow(Date.now()) };
}

function BudgetLine({ action, b }: { action: StressAction; b: Budget }) {
  return (
    <p class={b.left === 0 ? 'op-error' : 'op-muted'}>
      {b.left === 0
        ? `${NAMES[action]}: none available now (the controller allows ${STRESS_LIMIT} a minute): the next is possible in ${b.freeInSeconds} s.`
        : `${NAMES[action]}: ${b.left} of ${STRESS_LIMIT} available now (one comes back every 12 s).`}
    </p>
  );
}

const num = (event: Event) => (event.target as HTMLInputElement).value;

export function StressControls({ status }: { status: StressStatus }) {
  const queries = useQueryClient();
  const groups = useQuery({ queryKey: GROUPS_KEY, queryFn: listGroups });
  const backends = (groups.data?.groups ?? []).filter((g) => g.software !== 'VELOCITY');
  const [players, setPlayers] = useState('100');
  const [group, setGroup] = useState('');
  const [seconds, setSeconds] = useState('30');
  const action = useAction();
  const { budgets, refresh } = useBudgets();

  const run = (kind: StressAction, send: () => Promise<{ message: string; stress: StressStatus }>) =>
    void action
      .run(async () => {
        const answer = await counted(kind, send);
        queries.setQueryData(STRESS_KEY, answer.stress);
        return answer.message;
      })
      .finally(refresh);
  const submit = (event: Event) => {
    event.preventDefault();
    if (status.active) run('ramp', () => rampStress(Number(players), Number(seconds)));
    else run('start', () => startStress(Number(players), group === '' ? null : group, Number(seconds)));
  };

  return (
    <section class="op-card" aria-labelledby="sx-controls">
      <h2 id="sx-controls">{status.active ? 'Change the running test' : 'Start a test'}</h2>
      <form class="sx-form" aria-label={status.active ? 'Ramp the stress test' : 'Start a stress test'} onSubmit={submit}>
        <div class="op-field">
          <label for="sx-players">{status.active ? 'Move to players' : 'Simulated players'}</label>
          <input id="sx-players" type="number" required min={0} max={MAX_PLAYERS} step={1} value={players} onInput={(e) => setPlayers(num(e))} />
        </div>
        {!status.active && (
          <div class="op-field">
            <label for="sx-group">On</label>
            <select id="sx-group" value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
              <option value="">Every backend group</option>
              {backends.map((g) => (
                <option key={g.name} value={g.name}>
                  {g.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <div class="op-field">
          <label for="sx-seconds">{status.active ? 'Over (seconds)' : 'Ramp up over (seconds)'}</label>
          <input id="sx-seconds" type="number" required min={0} max={MAX_SECONDS} step={1} value={seconds} onInput={(e) => setSeconds(num(e))} />
        </div>
        <div class="op-actions">
          <button type="submit" disabled={action.busy || budgets[status.active ? 'ramp' : 'start'].left === 0}>
            {status.active ? 'Ramp' : 'Start'}
          </button>
          {status.active && (
            <button type="button" class="op-danger" disabled={action.busy || budgets.stop.left === 0} onClick={() => run('stop', stopStress)}>
              Stop the test
            </button>
          )}
        </div>
      </form>
      <div aria-live="polite" class="sx-budgets">
        {(status.active ? (['ramp', 'stop'] as const) : (['start'] as const)).map((a) => (
          <BudgetLine key={a} action={a} b={budgets[a]} />
        ))}
      </div>
      <OutcomeLine outcome={action.outcome} />
    </section>
  );
}
