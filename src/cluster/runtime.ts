import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { loadOrCreateCertificate, wantedSans, type ClusterCertificate } from './certificate';
import { Cluster, type ClusterDeps } from './cluster';
import { startClusterServer } from './server';
import type { ApiHandler } from '../http/api-handler';

const KEY_CONVERTED = {
  encrypted: 'cluster key encrypted with [cluster] keystore_password (same key and certificate: agents keep their pin)',
  're-encrypted': 'cluster key encrypted with the new [cluster] keystore_password (same key and certificate); remove keystore_previous_password from svc.toml',
  decrypted: '[cluster] keystore_password is blank: the cluster key is now stored unencrypted (same key and certificate); remove keystore_previous_password from svc.toml',
} as const;

/** What `GET /api/cluster/bootstrap` answers: what an agent pins before its first secure handshake. */
export interface ClusterBootstrap {
  fingerprint: string;
  certPem: string;
  wsUrl: string;
  validUntil: string;
  sans: string[];
}

export interface ClusterRuntime {
  readonly cluster: Cluster;
  readonly port: number;
  readonly certificate: ClusterCertificate | null;
  bootstrap(): ClusterBootstrap;
  /**
   * Serves the agents' data routes (data-path.ts) on this port through the API's dispatch,
   * once the API is up (it starts after the cluster); until then they answer 503.
   */
  serveApi(handler: ApiHandler | undefined): void;
  stop(): void;
}

/**
 * Starts the cluster server when `[cluster] enabled`: the certificate (made on first start),
 * the agent channel on `bind:agent_port`, and the node bookkeeping. CLUSTER_STARTED once it listens.
 */
export async function startCluster(deps: ClusterDeps & { dir: string }): Promise<ClusterRuntime> {
  const { config, log } = deps;
  if (config.token === '') log.warn('[cluster] token is blank: no new node can enrol (enrolled nodes still log in with their own secret); set it, or SVC_CLUSTER_TOKEN, to add nodes');
  let certificate: ClusterCertificate | null = null;
  if (config.tls_enabled) {
    const loaded = await loadOrCreateCertificate(resolve(deps.dir, config.keystore_path), wantedSans(config.public_host, config.extra_sans), { password: config.keystore_password, previousPassword: config.keystore_previous_password });
    certificate = loaded.certificate;
    if (loaded.converted) log[loaded.converted === 'decrypted' ? 'warn' : 'info'](KEY_CONVERTED[loaded.converted]);
    if (loaded.previousUnused) log.warn('[cluster] keystore_previous_password is set but the key did not need it: remove it from svc.toml');
    if (loaded.created) {
      log.info({ fingerprint: certificate.fingerprint }, `cluster certificate created (${loaded.reason}); agents pin it through /api/cluster/bootstrap`);
      if (loaded.reason !== 'first start') log.warn('agents pinned to the previous cluster certificate refuse this one until their pin is removed');
    }
  } else {
    log.warn('[cluster] tls_enabled = false: the agent channel is plain ws://, tokens cross the network unencrypted');
  }
  const cluster = new Cluster(deps);
  let api: ApiHandler | undefined;
  const server = startClusterServer({ bind: config.bind, port: config.agent_port, certificate, token: config.token, cluster, log, release: deps.release, api: () => api });
  const host = config.public_host || (config.bind === '0.0.0.0' || config.bind === '::' ? hostname() : config.bind);
  const wsUrl = `${certificate ? 'wss' : 'ws'}://${host.includes(':') ? `[${host}]` : host}:${server.port}/cluster`;
  log.info({ port: server.port }, `cluster server listening on ${wsUrl}`);
  deps.bus.publish('CLUSTER_STARTED', { bind: config.bind, port: server.port, strategy: config.placement_strategy });
  return {
    cluster,
    port: server.port,
    certificate,
    bootstrap: () => ({
      fingerprint: certificate?.fingerprint ?? '',
      certPem: certificate?.certPem ?? '',
      wsUrl,
      validUntil: certificate?.validUntil.toISOString() ?? '',
      sans: certificate?.sans ?? [],
    }),
    serveApi: (handler) => {
      api = handler;
    },
    stop: () => {
      api = undefined;
      cluster.close();
      server.stop();
    },
  };
}
