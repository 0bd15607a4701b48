/** The running test as GET /api/stress (and its live STRESS_TEST_UPDATED ticks) has it. */
import type { StressStatus } from './requests';

const elapsed = (s: number) => `${Math.floor(s / 60)}m ${s % 60}s`;

export function StressStatusView({ status: s }: { status: StressStatus }) {
  const services = Object.entries(s.services).sort(([a], [b]) => a.localeCompare(b));
  const proxies = Object.entries(s.proxyServices).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section class="op-card" aria-labelledby="sx-status">
      <h2 id="sx-status">
        Status <span class={s.active ? 'op-pill op-pill-on' : 'op-pill'}>{s.active ? `running on ${s.group ?? 'every backend group'}` : 'no test running'}</span>
      </h2>
      <dl class="figures sx-figures">
        <div><dt>Simulated players</dt><dd>{s.currentPlayers} of {s.targetPlayers}</dd></div>
        <div><dt>Capacity</dt><dd>{s.totalCapacity}</dd></div>
        <div><dt>Without room</dt><dd class={s.overflow > 0 ? 'sx-bad' : undefined}>{s.overflow}</dd></div>
        <div><dt>Running for</dt><dd>{s.active ? elapsed(s.elapsedSeconds) : '—'}</dd></div>
      </dl>
      {s.active && (
        <progress class="sx-progress" max={Math.max(1, s.targetPlayers)} value={s.currentPlayers} aria-label={`${s.currentPlayers} of ${s.targetPlayers} simulated players placed`} />
      )}
      {s.active && (
        <table class="stack sx-services">
          <thead>
            <tr><th>Service</th><th>Simulated players</th></tr>
          </thead>
          <tbody>
            {services.length === 0 && (
              <tr><td colSpan={2} class="empty">No READY backend to place players on.</td></tr>
            )}
            {services.map(([name, count]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td data-label="Simulated players">{count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {s.active && proxies.length > 0 && (
        <p class="op-muted">
          Proxies would carry: {proxies.map(([name, count]) => `${name} ${count}`).join(', ')}.
        </p>
      )}
      <p class="op-muted">Simulated players count toward the figures only; scaling pauses while a test runs.</p>
    </section>
  );
}
