import { Type as T, type Static, type TObject } from '@sinclair/typebox';
import { defaultsOf } from './unit/defaults';
import { DEFAULT_UID_BASE, MAX_UID_BASE, MIN_UID_BASE, UID_COUNT } from '../core/isolation/range';

/**
 * The one source of svc.toml keys: every section, key, type, limit and default. The commented
 * file written on first launch is rendered from it with the words in svc-toml-text.ts.
 */

const Memory = (d: string, description: string) =>
  T.String({ pattern: '^\\d+[MmGg]$', default: d, description: `${description} (e.g. 512M, 10G)` });
const Port = (d: number, description: string) =>
  T.Integer({ minimum: 0, maximum: 65535, default: d, description });
const PositiveInt = (d: number, description: string) => T.Integer({ minimum: 1, default: d, description });
const NonNegativeInt = (d: number, description: string) => T.Integer({ minimum: 0, default: d, description });
const Str = (d: string, description: string) => T.String({ default: d, description });
const Bool = (d: boolean, description: string) => T.Boolean({ default: d, description });
const StrList = (d: string[], description: string) => T.Array(T.String(), { default: d, description });
const Choice = <V extends string>(values: readonly V[], d: V, description: string) =>
  T.Union(
    values.map((v) => T.Literal(v)),
    { default: d, description },
  );

export const NetworkSection = T.Object({
  name: T.String({ minLength: 1, maxLength: 64, default: 'svc', description: 'network name shown in the dashboard and status' }),
  bind: Str('0.0.0.0', 'address game servers bind to'),
});

export const ControllerSection = T.Object({
  max_memory: Memory('10G', 'memory all services on this machine may use together'),
  max_services: PositiveInt(20, 'services this machine may run at once'),
  heartbeat_interval: PositiveInt(5000, 'ms between service heartbeats'),
  scaling_tick_interval: PositiveInt(10, 's between scaling decisions'),
  service_stale_timeout: NonNegativeInt(300, 's without a player-count report before an SDK service counts as crashed (0 = never)'),
  strict_config: Bool(false, 'refuse to start on unknown keys instead of warning'),
  backend_port_start: Port(30000, 'first port handed to backend services'),
  update_check_url: Str('', 'latest-release JSON (GitHub releases API shape: tag_name, assets) asked every 6 h for a newer svc and read by svc update; blank = no update check'),
  auto_update: Choice(['off', 'patch', 'minor'] as const, 'off', 'apply newer releases on its own: off, patch (0.15.1 → 0.15.2) or minor (also 0.15 → 0.16); a major release always waits for svc update'),
  update_public_key: Str('', 'Ed25519 public key (PEM, or the 32 raw bytes in base64) that must have signed a release\'s SHA256SUMS (SHA256SUMS.sig); blank = checksums only'),
});

export const ConsoleSection = T.Object({
  colored: Bool(true, 'colour the interactive console'),
  log_events: Bool(true, 'print live events on the interactive console'),
  history_file: Str('.svc_history', 'console history file, relative to the working directory'),
  location_lookup_url: Str('', 'resolves a remote console client IP to a place for CLI_SESSION_CONNECTED; {ip} is replaced, the answer is JSON with city and country (ip-api.com, ipapi.co and ipinfo.io shapes); empty: "unknown"'),
});

export const PathsSection = T.Object({
  templates: Str('templates', 'template folder'),
  services: Str('services', 'service work directories'),
  dedicated: Str('dedicated', 'dedicated service directories'),
  logs: Str('logs', 'controller log folder'),
});

/**
 * How game servers (third-party code) are kept from the controller and from each other; the
 * same section in agent.toml. Resolved once at start, logged, and shown by the doctor.
 */
export const ServicesSection = T.Object({
  isolation: Choice(
    ['auto', 'uid', 'bwrap', 'none'] as const,
    'auto',
    'how each game server is kept from the controller\'s files (token, config, database, keys), the other services\' folders and everything outside its own folder: auto (its own uid when the controller runs as root, with a bubblewrap sandbox on top when that runs; else the bubblewrap sandbox; else none, with a doctor warning), uid (its own uid only), bwrap (the sandbox; also its own uid when the controller runs as root), none',
  ),
  isolation_uid_base: T.Integer({
    minimum: MIN_UID_BASE,
    maximum: MAX_UID_BASE,
    default: DEFAULT_UID_BASE,
    description: `first of the ${UID_COUNT} uids (and gids) services get in uid mode, one per service name (kept in data/isolation-uids.json); the default is far from the ranges distributions hand out (users, systemd, /etc/subuid, containers) and below 2^31`,
  }),
});

export const ApiSection = T.Object({
  enabled: Bool(true, 'serve the HTTP API'),
  bind: Str('127.0.0.1', 'address the API listens on; 0.0.0.0 accepts non-local traffic'),
  port: Port(8080, 'API port (0 picks a free one)'),
  token: Str('', 'master token; SVC_API_TOKEN wins; blank = generated and kept in data/api-token'),
  jwt_enabled: Bool(false, 'accept and mint HS256 JWTs (POST /api/tokens)'),
  allowed_origins: StrList(['http://localhost:3000'], 'browser origins allowed by CORS; empty = any origin'),
  trust_forwarded_for: Bool(false, 'take the client IP from X-Forwarded-For (only behind a reverse proxy you run)'),
  rate_limit: NonNegativeInt(120, 'requests per minute per client IP (0 = off)'),
  service_rate_limit: NonNegativeInt(6000, 'requests per minute per IP for callers with the master, service or cluster token (0 = off)'),
});

export const JavaSection = T.Object({
  java_16: Str('', 'java binary for Minecraft up to 1.17 (blank = java on PATH)'),
  java_17: Str('', 'java binary for Minecraft 1.18 to 1.20.4 (blank = java on PATH)'),
  java_21: Str('', 'java binary for Minecraft 1.20.5+ and Velocity (blank = java on PATH)'),
});

export const DatabaseSection = T.Object({
  type: Choice(['sqlite'] as const, 'sqlite', 'storage engine; this build stores data in a sqlite file under data/'),
  host: Str('localhost', 'database host (server engines)'),
  port: Port(3306, 'database port (server engines)'),
  name: T.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', default: 'svc', description: 'database name; sqlite file data/<name>.db' }),
  username: Str('svc', 'database user (server engines)'),
  password: Str('', 'database password (server engines)'),
  pool_size: PositiveInt(10, 'connection pool size (server engines)'),
});

export const LoadBalancerSection = T.Object({
  enabled: Bool(false, 'run the TCP load balancer in front of the proxies'),
  bind: Str('0.0.0.0', 'load balancer bind address'),
  port: Port(25565, 'load balancer port'),
  strategy: Choice(['least-players', 'round-robin'] as const, 'least-players', 'how a proxy is picked'),
  proxy_protocol: Bool(false, 'send the PROXY protocol header to proxies'),
  connection_timeout: PositiveInt(5000, 'ms to connect to a proxy'),
  buffer_size: PositiveInt(16384, 'bytes per connection buffer'),
  max_connections: PositiveInt(10000, 'concurrent connections'),
  idle_timeout: PositiveInt(30000, 'ms before an idle connection is closed'),
  health_check_interval: PositiveInt(10, 's between proxy health checks'),
  health_check_timeout: PositiveInt(3000, 'ms a health check may take'),
  unhealthy_threshold: PositiveInt(3, 'failed checks before a proxy is unhealthy'),
  healthy_threshold: PositiveInt(2, 'passed checks before a proxy is healthy again'),
});

export const PunishmentsSection = T.Object({
  deploy_plugin: Bool(true, 'copy the punishments plugin into proxy templates'),
  check_cache_ttl: NonNegativeInt(5, 's a login/mute check result is cached'),
  expiry_check_interval: PositiveInt(30, 's between expiry sweeps (at least 5)'),
  name_lookup_url: Str('https://api.mojang.com/users/profiles/minecraft', 'name-to-uuid lookup for punishing a player never seen here (GET <url>/<name> → {id, name}); blank turns it off (offline-mode networks)'),
});

export const ResourcePacksSection = T.Object({
  deploy_plugin: Bool(true, 'copy the resource pack plugin into backend templates'),
  max_upload_bytes: PositiveInt(262144000, 'largest pack upload in bytes'),
  public_base_url: Str('', 'public base URL for pack downloads (blank = the API address)'),
});

export const BedrockSection = T.Object({
  enabled: Bool(false, 'give services a Bedrock UDP port'),
  base_port: Port(19132, 'first Bedrock port'),
});

export const ClusterSection = T.Object({
  enabled: Bool(false, 'accept agents on other machines'),
  token: Str('', 'cluster token agents present; SVC_CLUSTER_TOKEN wins; blank never matches'),
  agent_port: Port(8443, 'port of the agent channel'),
  bind: Str('0.0.0.0', 'agent channel bind address'),
  heartbeat_interval: PositiveInt(5000, 'ms between agent heartbeats'),
  node_timeout: PositiveInt(15000, 'ms without a heartbeat before a node is failed'),
  placement_strategy: Choice(['least-services', 'least-memory', 'round-robin'] as const, 'least-services', 'how a node is picked'),
  tls_enabled: Bool(true, 'serve the agent channel over TLS'),
  keystore_path: Str('data/cluster', 'folder of the cluster certificate and key'),
  keystore_password: Str('', 'encrypts the cluster key file (cluster.key); blank = stored unencrypted; SVC_CLUSTER_KEYSTORE_PASSWORD wins'),
  keystore_previous_password: Str('', 'for one start after changing or clearing keystore_password: the password cluster.key is encrypted with now'),
  extra_sans: StrList([], 'extra subject alternative names for the cluster certificate'),
  public_host: Str('', 'host agents use to reach this controller'),
  // Not unlimited by default: nodes push what their services wrote, and the copies share the disk
  // with the database and the backups; a runaway or hostile node stops here instead of filling it.
  sync_disk_quota_bytes: NonNegativeInt(64 * 1024 * 1024 * 1024, 'disk quota for state sync copies, manifests included (default 64 GiB; 0 = unlimited)'),
  reconciliation_delay: NonNegativeInt(10000, 'ms to wait for agents before reconciling after a restart'),
});

/**
 * Where server software, plugins and modpacks come from. Every upstream base URL is a key, so
 * a mirror (or a test's local fake speaking the same format) can stand in for the public service.
 */
export const SoftwareSection = T.Object({
  papermc_url: Str('https://fill.papermc.io', 'PaperMC downloads service, Fill API v3 (Paper, Folia, Velocity)'),
  purpur_url: Str('https://api.purpurmc.org', 'Purpur API'),
  pufferfish_url: Str('https://ci.pufferfish.host', 'Pufferfish build server (Jenkins)'),
  leaf_url: Str('https://api.leafmc.one', 'Leaf API'),
  fabric_url: Str('https://meta.fabricmc.net', 'Fabric meta service'),
  forge_url: Str('https://maven.minecraftforge.net', 'Forge maven'),
  forge_promotions_url: Str('https://files.minecraftforge.net', 'Forge promotions (recommended and latest per game version)'),
  neoforge_url: Str('https://maven.neoforged.net', 'NeoForge maven'),
  mojang_url: Str('https://piston-meta.mojang.com', 'Mojang version manifest (release and snapshot lists)'),
  modrinth_url: Str('https://api.modrinth.com', 'Modrinth API (plugins, modpacks)'),
  hangar_url: Str('https://hangar.papermc.io', 'Hangar API (plugins)'),
  curseforge_url: Str('https://api.curseforge.com', 'CurseForge API (modpacks; needs [packhost] api_key)'),
  download_timeout: PositiveInt(300, 's a single download may take before it is abandoned'),
  contact: Str('', "URL or e-mail of this network's operator, sent in the User-Agent (PaperMC's downloads service asks for a contact)"),
});

/**
 * Keeping the proxy software of proxy groups and dedicated proxies current: the latest stable
 * build from the upstream `[software]` already names (Velocity: `papermc_url`).
 */
export const ProxySection = T.Object({
  auto_update: Bool(false, 'download and apply a newer proxy build on its own (template jar and group version); off: only PROXY_UPDATE_AVAILABLE and the log'),
  update_check: Bool(true, 'look for a newer proxy build in the background; off: only `proxy update` looks'),
  update_interval_hours: T.Integer({ minimum: 1, maximum: 168, default: 6, description: 'hours between background checks (at most a week)' }),
});

export const AuditSection = T.Object({
  enabled: Bool(true, 'record operator actions in the audit log'),
  retention_days: PositiveInt(90, 'days audit entries are kept'),
});

export const MetricsSection = T.Object({
  retention_days: PositiveInt(30, 'days metric history is kept'),
  sample_interval: PositiveInt(10, 's between samples of every running service and of the network (the history charts)'),
});

export const PackhostSection = T.Object({
  api_key: Str('', 'API key of the modpack host'),
});

export const DashboardSection = T.Object({
  enabled: Bool(true, 'serve the web dashboard at / from this executable (the API is unaffected)'),
  public_url: Str('', 'public URL of the dashboard (magic links, CORS hint)'),
});

export const ConfigSchema = T.Object({
  network: NetworkSection,
  controller: ControllerSection,
  console: ConsoleSection,
  paths: PathsSection,
  services: ServicesSection,
  api: ApiSection,
  java: JavaSection,
  database: DatabaseSection,
  loadbalancer: LoadBalancerSection,
  punishments: PunishmentsSection,
  resourcepacks: ResourcePacksSection,
  bedrock: BedrockSection,
  cluster: ClusterSection,
  software: SoftwareSection,
  proxy: ProxySection,
  audit: AuditSection,
  metrics: MetricsSection,
  packhost: PackhostSection,
  dashboard: DashboardSection,
});

export type Config = Static<typeof ConfigSchema>;
export type SectionName = keyof Config;

/** Keys whose values never leave the process (GET /api/config, logs). */
export const SECRET_KEYS: ReadonlyArray<readonly [SectionName, string]> = [
  ['api', 'token'],
  ['database', 'password'],
  ['cluster', 'token'],
  ['cluster', 'keystore_password'],
  ['cluster', 'keystore_previous_password'],
  ['packhost', 'api_key'],
];

export function sectionSchema(name: string): TObject | undefined {
  return (ConfigSchema.properties as Record<string, TObject>)[name];
}

/** Fresh defaults, built from the schema. */
export function defaultConfig(): Config {
  return defaultsOf(ConfigSchema) as unknown as Config;
}
