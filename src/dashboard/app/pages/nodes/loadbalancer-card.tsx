import { useEffect, useRef } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { api, ApiFailure } from '../../api';
import { onLiveEvent, onReconnect } from '../../live';

/** GET /api/loadbalancer (src/loadbalancer/model.ts, LoadBalancerStatusSchema). */
export interface LoadBalancerStatus {
  enabled: boolean;
  bind: string;
  port: number;
  strategy: string;
  proxyProtocol: boolean;
  totalConnections: number;
  activeConnections: number;
  rejectedConnections: number;
  backends: { name: string; host: string; port: number; playerCount: number; health: string; connectionCount: number }[];
}

/** How often the figures are read again while the page is open (the counters have no event). */
const POLL_MS = 5_000;
/** Events that change the backends: a proxy READY or gone, a health change, the balancer itself. */
const LB_EVENTS = /^(LOAD_BALANCER_|SERVICE_(READY|STOPPING|STOPPED|CRASHED))/;

const notEnabled = (error: unknown) => error instanceof ApiFailure && error.code === 'LOAD_BALANCER_NOT_ENABLED';
const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * The TCP load balancer in front of the proxies: where it listens, how it picks, its
 * connection counters and every READY proxy with its health. Nothing when it is not enabled
 * (404 LOAD_BALANCER_NOT_ENABLED); one quiet line when it is enabled but could not bind.
 */
export function LoadBalancerCard() {
  const lb = useQuery({
    queryKey: ['loadbalancer'],
    queryFn: () => api<LoadBalancerStatus>('/api/loadbalancer'),
    // Polled only while shown (the query lives with this card), and not at all once it is off.
    refetchInterval: (query) => (notEnabled(query.state.error) ? false : POLL_MS),
  });
  // Live events refresh it only while it runs: an off balancer is not asked again at every READY.
  const running = useRef(false);
  running.current = lb.isSuccess;
  const queries = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      if (!running.current) return;
      clearTimeout(timer);
      // A burst (a proxy READY, then its health) causes one read after it.
      timer = setTimeout(() => void queries.invalidateQueries({ queryKey: ['loadbalancer'] }), 300);
    };
    const stopEvents = onLiveEvent((event) => {
      if (LB_EVENTS.test(event.type)) refresh();
    });
    const stopOpen = onReconnect(refresh);
    return () => {
      clearTimeout(timer);
      stopEvents();
      stopOpen();
    };
  }, [queries]);

  if (lb.isPending) return null;
  if (lb.isError) {
    if (!notEnabled(lb.error)) return <p role="alert" class="nd-error">Load balancer: {lb.error.message}</p>;
    // Enabled in svc.toml but its port could not be bound: the server says so in the message.
    return /enabled but not running/.test(lb.error.message) ? <p class="nd-muted">Load balancer: {lb.error.message}</p> : null;
  }
  const s = lb.data;
  return (
    <section class="nd-card" aria-labelledby="nd-lb-title">
      <h2 id="nd-lb-title">
        Load balancer <span class="nd-pill nd-on">{s.enabled ? 'on' : 'off'}</span>
      </h2>
      <dl class="nd-facts">
        <dt>Listens on</dt>
        <dd><code>{hostPort(s.bind, s.port)}</code></dd>
        <dt>Strategy</dt>
        <dd>{s.strategy}</dd>
        <dt>PROXY protocol</dt>
        <dd>{s.proxyProtocol ? 'on: a v2 header precedes each client’s bytes' : 'off'}</dd>
      </dl>
      <dl class="nd-figures" aria-label="Connections">
        <div><dt>Total connections</dt><dd>{s.totalConnections}</dd></div>
        <div><dt>Active</dt><dd>{s.activeConnections}</dd></div>
        <div><dt>Rejected</dt><dd>{s.rejectedConnections}</dd></div>
      </dl>
      <h3>Proxies</h3>
      {s.backends.length === 0 ? (
        <p class="nd-muted">No proxy is READY: players who connect are turned away until one is.</p>
      ) : (
        <table class="stack nd-backends" aria-label="Load balancer backends">
          <thead>
            <tr><th>Proxy</th><th>Address</th><th>Players</th><th>Connections</th><th>Health</th></tr>
          </thead>
          <tbody>
            {s.backends.map((b) => (
              <tr key={`${b.host}:${b.port}`}>
                <td data-label="Proxy">{b.name}</td>
                <td data-label="Address"><code>{hostPort(b.host, b.port)}</code></td>
                <td data-label="Players">{b.playerCount}</td>
                <td data-label="Connections">{b.connectionCount}</td>
                <td data-label="Health">
                  <span class={`nd-pill ${b.health.toLowerCase() === 'healthy' ? 'nd-healthy' : 'nd-unhealthy'}`}>{b.health.toLowerCase()}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
