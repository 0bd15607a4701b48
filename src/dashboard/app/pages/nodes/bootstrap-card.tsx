import { useQuery } from '@tanstack/preact-query';
import { api, ApiFailure, signInKind, storedToken } from '../../api';
import { jwtClaims } from '../profile/identity';
import { CopyBlock } from './copy-block';

/** GET /api/cluster/bootstrap (src/http/routes/cluster.ts, BootstrapSchema). */
export interface ClusterBootstrap {
  fingerprint: string;
  certPem: string;
  wsUrl: string;
  validUntil: string;
  sans: string[];
}

/** Where the example puts the agent (README, Cluster: `svc agent --dir /srv/svc-agent`). */
const AGENT_DIR = '/srv/svc-agent';
const DAY_MS = 86_400_000;

/**
 * Why this sign-in may not read GET /api/cluster/bootstrap, or null when it may. It is an
 * API-token route (the cluster token, or an admin token: the master token or a JWT with the
 * admin scope). A game account's dashboard session is refused whatever its permissions
 * (machine-only), and so is a JWT without admin: neither is asked.
 */
function refusalOf(): string | null {
  const only = 'The certificate agents pin is given to API tokens only (GET /api/cluster/bootstrap takes the cluster token or the master token)';
  if (signInKind() === 'session') return `${only}: a dashboard session cannot read it.`;
  const claims = jwtClaims(storedToken() ?? '');
  if (claims && !(Array.isArray(claims.scopes) && claims.scopes.includes('admin'))) return `${only}: this token lacks the admin scope.`;
  return null;
}

/** The first `node-N` no node uses yet, for the example's node_name. */
function freeNodeName(taken: readonly string[]): string {
  for (let n = 1; ; n++) if (!taken.includes(`node-${n}`)) return `node-${n}`;
}

/** The lines of agent.toml's [agent] an operator sets, with what the controller told us. */
function agentToml(nodeName: string, boot: ClusterBootstrap | null): string {
  const lines = [
    '[agent]',
    `controller = "${location.origin}"`,
    '# the [cluster] token of the controller\'s svc.toml (or set SVC_CLUSTER_TOKEN instead)',
    'token = "<cluster token>"',
    `node_name = "${nodeName}"`,
  ];
  if (boot && boot.fingerprint !== '') lines.push(`fingerprint = "${boot.fingerprint}"`, `cluster_url = "${boot.wsUrl}"`);
  // No certificate: [cluster] tls_enabled = false, which an agent accepts only when told to.
  if (boot && boot.fingerprint === '') lines.push('allow_insecure = true');
  return lines.join('\n');
}

function AgentSteps({ nodeName, boot }: { nodeName: string; boot: ClusterBootstrap | null }) {
  return (
    <ol class="nd-steps">
      <li>
        <p>
          On the agent’s machine, with the same svc binary as this controller, write <code>{AGENT_DIR}/agent.toml</code> with these lines: keys left out keep their defaults (a first <code>svc agent --dir {AGENT_DIR}</code> writes the whole file, every key explained, and stops until the token is set).
          {boot && boot.fingerprint !== '' && ' With the fingerprint and the channel, the agent pins this certificate from its first handshake and the cluster token never crosses the API port.'}
          {!boot && ' Without a fingerprint the agent trusts the certificate it meets first and pins it (data/pinned.json).'}
        </p>
        <CopyBlock label="agent.toml" text={agentToml(nodeName, boot)} />
      </li>
      <li>
        <p>
          Start the agent (as a service: <code>config/svc-agent.service</code>). It enrols with the token, keeps its own secret in <code>data/node.json</code> and shows up above as connected; the token may then leave agent.toml.
        </p>
        <CopyBlock label="Start the agent" text={`svc agent --dir ${AGENT_DIR}`} />
      </li>
    </ol>
  );
}

/** How to read what the route would have answered, where this sign-in may not call it. */
function ElsewhereHowTo({ why }: { why: string }) {
  return (
    <>
      <p class="nd-muted">{why}</p>
      <CopyBlock label="Ask the controller with the cluster token" text={`curl -s -H "Authorization: Bearer $SVC_CLUSTER_TOKEN" ${location.origin}/api/cluster/bootstrap`} />
      <p class="nd-muted">
        Or, on the controller’s machine, in its folder: the certificate is <code>data/cluster/cluster.crt</code> (<code>[cluster] keystore_path</code>), and its fingerprint is what this prints after <code>SHA256 Fingerprint=</code>:
      </p>
      <CopyBlock label="Fingerprint from the file" text="openssl x509 -in data/cluster/cluster.crt -noout -fingerprint -sha256" />
    </>
  );
}

function Facts({ boot }: { boot: ClusterBootstrap }) {
  const until = new Date(boot.validUntil);
  const days = Math.floor((until.getTime() - Date.now()) / DAY_MS);
  return (
    <dl class="nd-facts">
      <dt>Fingerprint (SHA-256)</dt>
      <dd><code class="nd-fingerprint">{boot.fingerprint}</code></dd>
      <dt>Agent channel</dt>
      <dd><code>{boot.wsUrl}</code></dd>
      <dt>Valid until</dt>
      <dd class={days < 30 ? 'nd-warn' : undefined}>
        <time dateTime={boot.validUntil}>{until.toLocaleString()}</time> ({days < 0 ? 'expired' : `${days} days left`})
      </dd>
      <dt>Names (SANs)</dt>
      <dd>
        {boot.sans.map((san, i) => (
          <span key={san}>
            {i > 0 && ', '}
            <code>{san}</code>
          </span>
        ))}
      </dd>
    </dl>
  );
}

/**
 * What an operator needs to join an agent: the certificate agents pin (fingerprint, PEM, the
 * channel's address, validity, names) and the lines to paste on the agent's machine. Shown
 * while the cluster is on. A sign-in that may not read the bootstrap route (a dashboard
 * session) is told where to get the same facts instead.
 */
export function BootstrapCard({ nodeNames }: { nodeNames: readonly string[] }) {
  const refusal = refusalOf();
  const allowed = refusal === null;
  const boot = useQuery({ queryKey: ['cluster-bootstrap'], queryFn: () => api<ClusterBootstrap>('/api/cluster/bootstrap'), enabled: allowed, staleTime: 60_000 });
  const nodeName = freeNodeName(nodeNames);
  let body;
  if (!allowed) {
    body = (
      <>
        <ElsewhereHowTo why={`${refusal} Read it in one of these ways, or leave the fingerprint out.`} />
        <AgentSteps nodeName={nodeName} boot={null} />
      </>
    );
  } else if (boot.isPending) {
    body = <p class="nd-muted">Loading…</p>;
  } else if (boot.isError) {
    const refused = boot.error instanceof ApiFailure && boot.error.status === 403;
    const noToken = boot.error instanceof ApiFailure && boot.error.code === 'CLUSTER_TOKEN_MISSING';
    body = refused ? (
      <>
        <ElsewhereHowTo why={`This token may not read the certificate agents pin (${boot.error.message}). Read it in one of these ways, or leave the fingerprint out.`} />
        <AgentSteps nodeName={nodeName} boot={null} />
      </>
    ) : (
      <p role="alert" class="nd-error">
        {noToken ? `No agent can join yet: ${boot.error.message}, then restart.` : boot.error.message}
      </p>
    );
  } else {
    const b = boot.data;
    body = (
      <>
        {b.fingerprint === '' ? (
          <p class="nd-warn">
            The agent channel is not encrypted (<code>[cluster] tls_enabled = false</code>): there is no certificate to pin, and agents must set <code>allow_insecure = true</code>. The node’s secret, templates and commands cross the network in clear.
          </p>
        ) : (
          <>
            <Facts boot={b} />
            <CopyBlock label="Certificate (PEM)" text={b.certPem} />
          </>
        )}
        <AgentSteps nodeName={nodeName} boot={b} />
      </>
    );
  }
  return (
    <section class="nd-card" aria-labelledby="nd-join-title">
      <h2 id="nd-join-title">Join an agent</h2>
      {body}
    </section>
  );
}
