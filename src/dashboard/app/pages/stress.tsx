import { useEffect } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { onLiveEvent } from '../live';
import { LoadFailure } from './settings/outcome';
import { StressControls } from './stress/controls';
import { getStress, perService, STRESS_KEY, type StressStatus } from './stress/requests';
import { StressStatusView } from './stress/status-view';
import './settings/shared.css';
import './stress/stress.css';

/** Polled every 3 s while a test runs (elapsed time, capacity, overflow), every 15 s otherwise. */
const ACTIVE_MS = 3_000;
const IDLE_MS = 15_000;

/**
 * The Stress page: simulated players on a backend group (or all), ramped up, moved, stopped.
 * The counts move live with every STRESS_TEST_UPDATED tick (no request); the rest is polled.
 */
export function Stress() {
  const queries = useQueryClient();
  const status = useQuery({ queryKey: STRESS_KEY, queryFn: getStress, refetchInterval: (q) => (q.state.data?.active ? ACTIVE_MS : IDLE_MS) });
  useEffect(
    () =>
      onLiveEvent((e) => {
        if (e.type !== 'STRESS_TEST_UPDATED') return;
        const before = queries.getQueryData<StressStatus>(STRESS_KEY);
        if (!before?.active) return void queries.invalidateQueries({ queryKey: STRESS_KEY });
        queries.setQueryData<StressStatus>(STRESS_KEY, {
          ...before,
          currentPlayers: Number(e.data.simulatedPlayers) || 0,
          targetPlayers: Number(e.data.targetPlayers) || 0,
          services: perService(e.data.perService),
        });
      }),
    [queries],
  );
  return (
    <div class="op-page">
      <h1>Stress</h1>
      {status.isPending && <p>Loading…</p>}
      {status.isError && <LoadFailure error={status.error} />}
      {status.data && (
        <>
          <StressStatusView status={status.data} />
          <StressControls status={status.data} />
        </>
      )}
    </div>
  );
}
