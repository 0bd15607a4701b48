import { Type as T, type Static } from '@sinclair/typebox';
import { ConfigError } from '../config/unit/config-error';
import { SectionsFile } from '../config/unit/sections-file';
import { JavaSection, ServicesSection } from '../config/schema';
import { parseMemory } from '../core/software/memory';
import type { FileText } from '../config/unit/file-text';

const Str = (d: string, description: string) => T.String({ default: d, description });

export const AgentSection = T.Object({
  controller: Str('http://127.0.0.1:8080', 'REST address of the controller (the bootstrap and template routes)'),
  token: Str('', 'the cluster token ([cluster] token of the controller); SVC_CLUSTER_TOKEN wins'),
  node_name: T.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', default: 'node-1', description: 'this node\'s id, unique in the cluster' }),
  max_memory: T.String({ pattern: '^\\d+[MmGg]$', default: '8G', description: 'heap the services on this node may take together' }),
  max_services: T.Integer({ minimum: 0, default: 10, description: 'services this node runs at most (0 = no limit)' }),
  fingerprint: Str('', 'the controller certificate\'s SHA-256 fingerprint; blank = trust it on first use and pin it'),
  cluster_url: Str('', 'the controller\'s cluster channel, wss://host:8443/cluster; with fingerprint, the certificate is pinned from the TLS handshake and no bootstrap request (which carries the cluster token over the REST port) is made'),
  allow_insecure: T.Boolean({ default: false, description: 'accept a controller without TLS ([cluster] tls_enabled = false): the node secret, templates, state and commands cross the network unprotected' }),
  public_host: Str('', 'address proxies and players reach this machine at (blank = as the controller sees it)'),
  backend_port_start: T.Integer({ minimum: 1, maximum: 65535, default: 30000, description: 'first port handed to services here' }),
  auto_update: T.Boolean({ default: true, description: 'update this binary to the controller\'s version when they differ (its release feed, the same checks; services keep running)' }),
  update_public_key: Str('', 'Ed25519 key the release\'s SHA256SUMS must be signed with; blank = the controller\'s update_public_key (taken only over the pinned TLS channel); no key at all = no self-update'),
  allow_downgrade: T.Boolean({ default: false, description: 'follow the controller to an older release too (refused by default)' }),
});

export const AgentConfigSchema = T.Object({ agent: AgentSection, java: JavaSection, services: ServicesSection });
export type AgentConfig = Static<typeof AgentConfigSchema>;

/**
 * The words of agent.toml around its keys (AgentConfigSchema above has the keys, types, defaults
 * and descriptions): the commented file an agent writes on first start, shipped as
 * config/agent.toml, which a test keeps equal to what this renders. A key not listed here has no
 * comment; `[java]` and `[services]` share the controller's schema but not its sentences.
 */
export const AGENT_TOML_TEXT: FileText<typeof AgentConfigSchema> = {
  blankAfterHeader: false,
  tightLists: true,
  header: ['svc agent: runs services for a controller on this machine.'],
  keys: {
    agent: {
      keys: {
        controller: ['REST address of the controller.'],
        token: [
          "The controller's [cluster] token (SVC_CLUSTER_TOKEN wins). It only enrols this node: once",
          "data/node.json holds the node's own secret, it may be removed from this file.",
        ],
        fingerprint: ["Blank: trust the controller's certificate on first contact and pin it (data/pinned.json)."],
        cluster_url: [
          'The cluster channel (wss://controller.example:8443/cluster). With a fingerprint, the agent',
          'pins the certificate the channel presents and never sends the cluster token over the REST',
          'port (the bootstrap request does): the best choice on a network you do not trust.',
        ],
        allow_insecure: [
          "Accept a controller without TLS ([cluster] tls_enabled = false): the node's secret, the",
          'templates, the state and every command then cross the network unprotected. Off by default;',
          'never together with a fingerprint.',
        ],
        auto_update: [
          "Update this binary to the controller's version when they differ (from the controller's",
          'release feed, with the same checks as `svc update`); the services here keep running.',
        ],
        update_public_key: [
          "Ed25519 key the release's SHA256SUMS must be signed with. Blank: the controller's",
          '[controller] update_public_key, taken only over the pinned TLS channel. With neither, this',
          'agent does not update itself (it logs what to set).',
        ],
        allow_downgrade: ['Follow the controller to an older release too; refused (and logged once) by default.'],
      },
    },
    services: {
      keys: {
        isolation: [
          "How each game server is kept from this agent's files (agent.toml with the cluster token,",
          "data/), from the other services' folders and from writing outside its own folder: auto (its",
          'own uid per service when the agent runs as root, with a bubblewrap sandbox on top when that',
          "runs; else the sandbox; else none), uid, bwrap or none, as in the controller's svc.toml.",
        ],
        isolation_uid_base: ['First of the 16777216 uids services get in uid mode (kept in data/isolation-uids.json).'],
      },
    },
  },
};

/**
 * agent.toml as a config-file unit. Its commented default file is rendered from the schema and
 * its words (AGENT_TOML_TEXT); config/agent.toml in the repository is a copy, kept equal by a test.
 */
export const agentToml = new SectionsFile({ schema: AgentConfigSchema, title: 'svc agent configuration', text: AGENT_TOML_TEXT });

/** Reads agent.toml (written with defaults on first start); SVC_CLUSTER_TOKEN overrides the token. */
export function loadAgentConfig(
  path: string,
  env: Record<string, string | undefined>,
  /** The node holds its own secret (data/node.json): the cluster token may then be left out of agent.toml. */
  options: { enrolled?: boolean } = {},
): { config: AgentConfig; warnings: string[]; created: boolean } {
  const { value: config, warnings, created } = agentToml.load(path);
  if (env.SVC_CLUSTER_TOKEN) config.agent.token = env.SVC_CLUSTER_TOKEN;
  try {
    new URL(config.agent.controller);
  } catch {
    throw new ConfigError(`${path}: agent.controller "${config.agent.controller}" is not a URL (e.g. http://controller.example:8080)`);
  }
  if (config.agent.token === '' && !options.enrolled) throw new ConfigError(`${path}: agent.token is blank: copy the controller's [cluster] token here or set SVC_CLUSTER_TOKEN (once the node has enrolled it may be removed again)`);
  const clusterUrl = config.agent.cluster_url;
  if (clusterUrl !== '') {
    let url: URL | null = null;
    try {
      url = new URL(clusterUrl);
    } catch {
      // Said below.
    }
    if (url?.protocol !== 'wss:') throw new ConfigError(`${path}: agent.cluster_url "${clusterUrl}" must be a wss:// address (e.g. wss://controller.example:8443/cluster)`);
    if (config.agent.fingerprint === '') throw new ConfigError(`${path}: agent.cluster_url needs agent.fingerprint: without it the first certificate the channel presents would be trusted (set it to the controller's cluster certificate fingerprint, shown by its log and GET /api/cluster/bootstrap)`);
  }
  return { config, warnings, created };
}

export function maxMemoryMb(config: AgentConfig): number {
  return parseMemory(config.agent.max_memory);
}
