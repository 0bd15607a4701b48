import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type Logger } from '../log';
import { loadAgentConfig, type AgentConfig } from './config';
import { establishTrust, openChannel, TrustError, type Pinned } from './trust';
import { TemplateCache } from './template-cache';
import { LocalServices } from './local-services';
import { AgentConnection, type AgentTiming } from './agent';
import { NodeIdentity } from './identity';
import { AgentSelfUpdate } from './self-update';
import { pullState, pushState } from '../cluster/state-sync/client';
import { logIsolation, startIsolation, type Isolation } from '../core/isolation';

export interface RunningAgent {
  readonly config: AgentConfig;
  /** How this node's services are isolated, resolved at start ([services] isolation in agent.toml). */
  readonly isolation: Isolation;
  readonly connection: AgentConnection;
  /** This node's own secret (`identity.secret()`), for the channel and the cluster routes. */
  readonly identity: NodeIdentity;
  readonly services: LocalServices;
  readonly log: Logger;
  /** Leaves the services running (they are re-attached next start) unless `stopServices`. */
  stop(options?: { stopServices?: boolean }): Promise<void>;
}

/** The first contact may come before the controller is up: retried with backoff while waiting can help. */
async function pinWithRetries(trust: Parameters<typeof establishTrust>[0], log: Logger, timing: AgentTiming = { backoffMs: 1000, maxBackoffMs: 30_000 }): Promise<Pinned> {
  let wait = timing.backoffMs;
  for (;;) {
    try {
      return await establishTrust(trust);
    } catch (error) {
      if (!(error instanceof TrustError) || !error.retryable) throw error;
      log.warn(`${error.message}; retrying in ${Math.round(wait / 1000)} s`);
      await Bun.sleep(wait);
      wait = Math.min(timing.maxBackoffMs, wait * 2);
    }
  }
}

/**
 * `svc agent`: reads agent.toml, pins the controller's certificate (trust on first use),
 * re-attaches the services the last agent process left, then connects and keeps connecting.
 */
export async function startAgent(options: {
  dir: string;
  configPath: string;
  env: Record<string, string | undefined>;
  timing?: AgentTiming;
  onShutdown?: (reason: string) => void;
  /** After a self-update replaced the binary and the agent detached its services: exec it (main.ts). */
  onRestart?: (reason: string) => void;
}): Promise<RunningAgent> {
  const { config, warnings, created } = loadAgentConfig(options.configPath, options.env, { enrolled: existsSync(join(options.dir, 'data', 'node.json')) });
  const log = createLogger({ format: options.env.SVC_LOG_FORMAT === 'json' ? 'json' : 'pretty', colored: false, dir: join(options.dir, 'logs'), level: options.env.SVC_LOG_LEVEL });
  if (created) log.info({ file: options.configPath }, 'first launch: wrote the default agent configuration');
  for (const warning of warnings) log.warn(warning);
  const dataDir = join(options.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  // This node's own secret once it has enrolled (data/node.json); the cluster token only enrols it.
  const identity = new NodeIdentity(join(dataDir, 'node.json'), config.agent.node_name, log);
  const isolated = await startIsolation({
    setting: config.services.isolation,
    uidBase: config.services.isolation_uid_base,
    dir: options.dir,
    configFile: options.configPath,
    dataDir,
    ownerOnly: [join(options.dir, 'cache'), join(options.dir, 'logs')],
    serviceRoots: [{ root: join(options.dir, 'services'), sub: ['static', 'temp'] }],
  });
  logIsolation(log, isolated.isolation, isolated.tightened);
  const trust = { fingerprint: config.agent.fingerprint, allowInsecure: config.agent.allow_insecure };
  if (trust.allowInsecure) log.warn('agent.allow_insecure = true: a controller without TLS is accepted; the node secret, templates, state and every command may cross the network unprotected');
  const pinned = await pinWithRetries({ dataDir, controller: config.agent.controller, token: config.agent.token, clusterUrl: config.agent.cluster_url, ...trust }, log, options.timing);
  // Templates and state come over the pinned channel too: its host and port, its certificate only.
  const channel = openChannel(pinned, trust);
  log.info({ fingerprint: pinned.fingerprint || '(none: plain ws, allow_insecure)', wsUrl: pinned.wsUrl, data: channel.dataOrigin }, 'controller certificate pinned');
  // The data routes take this node's own secret (the cluster token only enrols it); a START_SERVICE only comes after the login that enrolled it.
  const nodeToken = (): string => {
    const secret = identity.secret();
    if (secret === null) throw new Error('this node has not enrolled with the controller yet (data/node.json has no secret): templates and state need its own secret');
    return secret;
  };
  const dataPath = { baseUrl: channel.dataOrigin, fetch: channel.fetch };
  const templates = new TemplateCache(join(options.dir, 'cache', 'templates'), { origin: channel.dataOrigin, fetch: channel.fetch, token: nodeToken });
  let connection: AgentConnection | undefined;
  const services = new LocalServices({
    dir: options.dir,
    launcher: isolated.launcher,
    log: log.child({ area: 'services' }),
    templates,
    java: config.java,
    controllerUrl: config.agent.controller,
    backendPortStart: config.agent.backend_port_start,
    onLine: (service, line) => connection?.line(service, line),
    pullState: async (service, dir, excludes) => {
      const pulled = await pullState({ ...dataPath, token: nodeToken(), service, dir, excludes });
      log.info({ service, downloaded: pulled.downloaded.length, deleted: pulled.deleted.length }, 'state pulled from the controller');
    },
    pushState: async (service, dir, excludes) => {
      const pushed = await pushState({ ...dataPath, token: nodeToken(), service, dir, excludes });
      log.info({ service, files: pushed.filesReceived, bytes: pushed.bytesReceived }, 'state pushed to the controller');
    },
    onExit: (service, code) => connection?.exited(service, code),
  });
  await services.recover();
  const updates = new AgentSelfUpdate({
    enabled: config.agent.auto_update,
    publicKey: config.agent.update_public_key,
    allowDowngrade: config.agent.allow_downgrade,
    // The controller's key is taken only from a TLS channel to the pinned certificate.
    channelPinned: pinned.certPem !== '' && pinned.wsUrl.startsWith('wss://'),
    log: log.child({ area: 'update' }),
    restart: (reason) => {
      connection!.close();
      services.detachAll();
      log.flush();
      options.onRestart?.(reason);
    },
  });
  connection = new AgentConnection(config, pinned, services, log.child({ area: 'agent' }), options.timing, options.onShutdown, (version, release) => updates.consider(version, release), identity);
  connection.start();
  return {
    config,
    isolation: isolated.isolation,
    connection,
    identity,
    services,
    log,
    async stop(stopOptions = {}) {
      connection!.close();
      if (stopOptions.stopServices) await services.stopAll(30_000);
      else services.detachAll();
      log.flush();
    },
  };
}

