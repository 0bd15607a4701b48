import { Type as T, type Static } from '@sinclair/typebox';

/**
 * config/modules/auth/auth.toml: every key of the spec's authentication configuration, with its
 * default. Written with comments on first start; read with smol-toml against this schema.
 */
export const AuthConfigSchema = T.Object({
  sessions: T.Object({
    ttl_seconds: T.Integer({ minimum: 60, default: 604_800, description: 'session lifetime in seconds, from creation, or from last use with rolling_refresh' }),
    rolling_refresh: T.Boolean({ default: true, description: 'each authenticated call extends the session by ttl_seconds (stored at most once a minute)' }),
    max_per_user: T.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'active sessions per player; a new login revokes the oldest beyond it' }),
  }),
  login_challenge: T.Object({
    code_ttl_seconds: T.Integer({ minimum: 10, maximum: 3600, default: 60, description: 'seconds an in-game login code stays valid' }),
    code_length: T.Integer({ minimum: 4, maximum: 16, default: 6, description: 'characters in a login code (the existing dashboard accepts only 6)' }),
    code_alphabet: T.Union([T.Literal('numeric'), T.Literal('alphanumeric')], {
      default: 'numeric',
      description: 'numeric (0-9) or alphanumeric (upper case without the look-alikes 0, O, 1 and I)',
    }),
    magic_link_ttl_seconds: T.Integer({ minimum: 10, maximum: 3600, default: 60, description: 'seconds a magic-link token stays valid' }),
    magic_link_token_bytes: T.Integer({ minimum: 16, maximum: 128, default: 32, description: 'random bytes in a magic-link token' }),
    magic_link_enabled: T.Boolean({ default: true, description: 'false allows only code login' }),
    max_generates_per_minute: T.Integer({ minimum: 1, default: 5, description: 'codes and links issued per player UUID per minute' }),
    max_consume_failures_per_minute: T.Integer({
      minimum: 0,
      default: 10,
      description: 'failed consumes per client IP over a sliding 60 s before consume answers 429 (0 disables the cap)',
    }),
  }),
  dashboard: T.Object({
    public_url: T.String({ default: '', description: 'dashboard base URL for magic links and passkeys; blank uses [dashboard] public_url of svc.toml' }),
  }),
  totp: T.Object({
    issuer: T.String({ minLength: 1, maxLength: 64, default: 'svc', description: 'label of the authenticator entry, shown as "<issuer>: <player name>"' }),
    require_for_admin: T.Boolean({ default: false, description: 'admin sessions without TOTP may only enrol (and manage their profile) until they do' }),
    window: T.Integer({ default: 1, description: 'clock-skew tolerance in 30-second steps, clamped to 0..2' }),
  }),
  security: T.Object({
    token_encryption_key_file: T.String({
      minLength: 1,
      default: 'data/auth/session.key',
      description:
        '32-byte AES-256 key encrypting TOTP secrets (relative to the working directory; owner-only). Kept under data/, out of config backups; ' +
        'the old default config/modules/auth/session.key means this one (the key is moved on start). Losing it makes every TOTP enrolment unrecoverable: back it up apart from the database',
    }),
  }),
  webauthn: T.Object({
    enabled: T.Boolean({ default: true, description: 'false answers 404 on every /api/auth/passkey/* route' }),
    rp_id: T.String({ default: '', description: 'relying-party id: the dashboard host name only; blank derives it from the public URL. Changing it invalidates every passkey' }),
    rp_name: T.String({ minLength: 1, default: 'svc Dashboard', description: 'name shown in the authenticator prompt' }),
    origins: T.Array(T.String(), { default: [], description: 'allowed browser origins https://host[:port]; empty derives from the public URL' }),
    challenge_ttl_seconds: T.Integer({ minimum: 10, maximum: 3600, default: 300, description: 'seconds a registration or login ceremony stays open' }),
    max_credentials_per_user: T.Integer({ minimum: 1, maximum: 100, default: 10, description: 'passkeys per player' }),
    allow_origin_port: T.Boolean({ default: false, description: 'accept assertions from the same host on any port' }),
  }),
});

export type AuthConfig = Static<typeof AuthConfigSchema>;

/** TOTP tolerance as used: the configured window clamped to 0..2 steps. */
export const totpWindow = (config: AuthConfig): number => Math.min(2, Math.max(0, config.totp.window));
