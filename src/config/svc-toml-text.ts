import type { FileText } from './unit/file-text';
import type { ConfigSchema } from './schema';

/**
 * The words of svc.toml around its keys (ConfigSchema, schema.ts, has the keys, types, defaults
 * and the short descriptions the API and the doctor show): the commented file written on first
 * launch, shipped as config/svc.toml, which a test keeps equal to what this renders.
 * Sentences for an operator reading the file; a key not listed here has no comment.
 */
export const SVC_TOML_TEXT: FileText<typeof ConfigSchema> = {
  tightLists: true,
  header: [
    'svc controller configuration.',
    '',
    'Every key is listed with its default. Paths are relative to the working directory',
    '(--dir, default: the current directory). Restart the controller after editing, except',
    'for network.name and the [console] keys, which PATCH /api/config changes live.',
    'Environment overrides: SVC_API_TOKEN, SVC_DB_TYPE|HOST|PORT|NAME|USERNAME|PASSWORD,',
    'SVC_CLUSTER_TOKEN, SVC_CLUSTER_KEYSTORE_PASSWORD (and _PREVIOUS_PASSWORD), SVC_LOG_FORMAT=json.',
  ],
  keys: {
    network: {
      keys: {
        name: ['Network name shown in the dashboard and in /api/status.'],
        bind: ['Address game servers bind to.'],
      },
    },
    controller: {
      keys: {
        max_memory: ['Memory all services on this machine may use together (e.g. 512M, 10G).'],
        max_services: ['Services this machine may run at once.'],
        heartbeat_interval: ['Milliseconds between service heartbeats.'],
        scaling_tick_interval: ['Seconds between scaling decisions.'],
        service_stale_timeout: ['Seconds without a player-count report before an SDK service counts as crashed (0 = never).'],
        strict_config: ['Refuse to start on unknown keys instead of warning.'],
        backend_port_start: ['First port handed to backend services (proxies start at 25565).'],
        update_check_url: [
          'Where to ask for a newer svc: a latest-release JSON in the GitHub releases API shape',
          '(tag_name), e.g. https://api.github.com/repos/<owner>/<repo>/releases/latest. Asked every',
          '6 hours in the background, and read by `svc update`. Blank = no update check.',
        ],
        auto_update: [
          'Apply newer releases without an operator: "off", "patch" (0.15.1 -> 0.15.2) or "minor"',
          '(also 0.15 -> 0.16). A major release always waits for `svc update`. Game servers keep',
          'running while the controller swaps its binary and restarts in place.',
        ],
        update_public_key: [
          "Ed25519 public key (PEM, or the raw 32 bytes in base64) that must have signed the release's",
          'SHA256SUMS (asset SHA256SUMS.sig). Blank = the checksums alone are trusted.',
        ],
      },
    },
    console: {
      keys: {
        colored: ['Colour the interactive console.'],
        log_events: ['Print live events on the interactive console.'],
        history_file: ['Console history file.'],
        location_lookup_url: [
          "Where CLI_SESSION_CONNECTED gets a remote console's location: a URL with {ip}, answering JSON",
          'with city and country (ip-api.com, ipapi.co or ipinfo.io shapes). Loopback and private',
          'addresses are never sent anywhere. Empty: the location is "unknown".',
        ],
      },
    },
    services: {
      keys: {
        isolation: [
          "How each game server (and every plugin in it) is kept from the controller's files (token,",
          "svc.toml, the database, the cluster key), from the other services' folders and from writing",
          'outside its own folder. Chosen once at start, logged, and shown by `svc doctor`.',
          '  auto   its own uid per service when the controller runs as root, with a bubblewrap sandbox',
          '         on top when that runs; else the bubblewrap sandbox (apt-get install bubblewrap);',
          '         else none, with a doctor warning',
          '  uid    its own uid per service, nothing on top (refuses to start when not root)',
          '  bwrap  the sandbox (refuses to start without it); as root also its own uid',
          '  none   no isolation: every server can do whatever the controller can',
        ],
        isolation_uid_base: [
          'First of the 16777216 uids (and gids) services get in uid mode, one per service name, kept in',
          'data/isolation-uids.json. The default is far from the ranges distributions hand out (users,',
          'systemd, /etc/subuid, containers) and stays below 2^31.',
        ],
      },
    },
    api: {
      keys: {
        bind: [
          'Address the API listens on. 0.0.0.0 accepts non-local traffic: enable JWTs and',
          'put TLS in front of it before you do.',
        ],
        port: ['API port (0 picks a free one; the log says which).'],
        token: [
          'Master token. SVC_API_TOKEN wins over this key. Left blank, svc generates one on',
          'first start, keeps it in data/api-token (owner-only) and logs its first 8 characters.',
        ],
        jwt_enabled: ['Accept and mint HS256 JWTs (POST /api/tokens).'],
        allowed_origins: ['Browser origins allowed by CORS (your dashboard). An empty list allows any origin.'],
        trust_forwarded_for: ['Take the client IP from X-Forwarded-For. Only behind a reverse proxy you run.'],
        rate_limit: ['Requests per minute per client IP (0 = off).'],
        service_rate_limit: [
          'Requests per minute per IP for callers presenting the master, service or cluster token',
          '(your proxies, backends and agents, often all on one address). 0 = off.',
        ],
      },
    },
    java: {
      intro: ['Java binaries per Minecraft version range. Blank = `java` on PATH.'],
    },
    database: {
      keys: {
        type: ['Storage engine. This build stores everything in a sqlite file, data/<name>.db.'],
      },
    },
    loadbalancer: {
      keys: {
        enabled: ['TCP load balancer in front of the proxies.'],
        strategy: ['"least-players" or "round-robin".'],
      },
    },
    punishments: {
      keys: {
        check_cache_ttl: ['Seconds a login or mute check result is cached.'],
        expiry_check_interval: ['Seconds between expiry sweeps (at least 5).'],
        name_lookup_url: [
          'Name-to-uuid lookup for punishing a player never seen on this network: GET <url>/<name>',
          'answering {"id", "name"} (the public game-profile API). Blank turns it off (offline mode).',
        ],
      },
    },
    resourcepacks: {
      keys: {
        max_upload_bytes: ['Largest pack upload in bytes (250 MiB).'],
        public_base_url: ['Public base URL for pack downloads. Blank = the API address.'],
      },
    },
    cluster: {
      keys: {
        enabled: ['Accept agents on other machines.'],
        token: ['Token agents present. SVC_CLUSTER_TOKEN wins. A blank token never matches.'],
        placement_strategy: ['"least-services", "least-memory" or "round-robin".'],
        keystore_password: [
          'Encrypts the cluster key (cluster.key) on disk; blank: stored unencrypted (0600). Setting it',
          'encrypts the key at the next start, keeping the same key and certificate (agents keep their',
          'pin). A wrong password stops the start. SVC_CLUSTER_KEYSTORE_PASSWORD wins.',
        ],
        keystore_previous_password: [
          'To change or clear keystore_password: the password the key is encrypted with now, for one',
          'start (then remove it). SVC_CLUSTER_KEYSTORE_PREVIOUS_PASSWORD wins.',
        ],
        sync_disk_quota_bytes: [
          'Disk quota for state-sync copies in bytes, their manifests included (0 = unlimited). The',
          'default, 64 GiB, holds a dozen large worlds; it is there so that a runaway or hostile node',
          'cannot fill the disk the database and the backups live on.',
        ],
      },
    },
    software: {
      intro: [
        'Where server software, plugins and modpacks are downloaded from. Point a key at a mirror to',
        'use it instead of the public service (it must answer in the same format).',
        'A start whose jar no template has fetches it from these (checked against the published',
        'checksum); version lists are cached for 10 minutes.',
      ],
      keys: {
        curseforge_url: ['Needs [packhost] api_key.'],
        download_timeout: ['Seconds a single download may take before it is abandoned.'],
        contact: [
          'A URL or e-mail address of whoever runs this network, sent in the User-Agent of every request',
          "to these services (PaperMC's downloads service asks for a contact). Blank: none.",
        ],
      },
    },
    proxy: {
      intro: [
        'Keeps the proxy software (Velocity) of proxy groups and dedicated proxies on the latest stable',
        'build, from the upstream [software] points at (papermc_url). `proxy update` on the console',
        'checks now and applies what it finds.',
      ],
      keys: {
        auto_update: [
          "Download and apply a newer build on its own: the jar in the group's template is replaced",
          "(checksum verified, never half-written, the old jar kept on any failure), the group's version",
          'written; dedicated proxies get the jar in their directory. Running proxies are never',
          'restarted: they run the new build from their next start. Off: PROXY_UPDATE_AVAILABLE only.',
        ],
        update_check: ['Look for a newer build in the background. Off: only `proxy update` looks.'],
        update_interval_hours: ['Hours between background checks (1 to 168).'],
      },
    },
    audit: {
      keys: {
        enabled: ['Record operator actions in the audit log (GET /api/audit).'],
      },
    },
    metrics: {
      keys: {
        sample_interval: ['Seconds between samples of every running service and of the network (the history charts).'],
      },
    },
    dashboard: {
      keys: {
        enabled: ['Serve the web dashboard at http://<api address>/ (false: only the API answers).'],
        public_url: ['Public URL of the dashboard (magic links).'],
      },
    },
  },
};
