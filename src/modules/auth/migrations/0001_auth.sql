-- The dashboard login module. Every secret is stored as its SHA-256 hex digest (session
-- tokens, login codes, magic-link tokens, recovery codes) or encrypted with session.key (TOTP
-- secrets); nothing here logs anyone in by being read. Times are epoch ms.
CREATE TABLE auth_sessions (
  token_hash   TEXT    PRIMARY KEY,
  -- The public id the dashboard shows and revokes by: the first 16 hex digits of token_hash.
  session_id   TEXT    NOT NULL UNIQUE,
  uuid         TEXT    NOT NULL,
  name         TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  last_used_at INTEGER NOT NULL,
  ip           TEXT,
  user_agent   TEXT,
  login_method TEXT    NOT NULL CHECK (login_method IN ('code', 'magic_link', 'passkey')),
  totp_used    INTEGER NOT NULL DEFAULT 0,
  -- Set when revoked (kept a day so a revoked token is told apart from a wrong one).
  revoked_at   INTEGER
) WITHOUT ROWID;
CREATE INDEX auth_sessions_uuid ON auth_sessions (uuid);
CREATE INDEX auth_sessions_expires ON auth_sessions (expires_at);

-- Login codes and magic-link tokens; consumed_at makes them single use.
CREATE TABLE auth_challenges (
  challenge_hash TEXT    PRIMARY KEY,
  kind           TEXT    NOT NULL CHECK (kind IN ('code', 'magic_link')),
  uuid           TEXT    NOT NULL,
  name           TEXT    NOT NULL,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  consumed_at    INTEGER
) WITHOUT ROWID;
CREATE INDEX auth_challenges_uuid ON auth_challenges (uuid, created_at);
CREATE INDEX auth_challenges_expires ON auth_challenges (expires_at);

-- One TOTP enrolment per player: pending until confirmed (enabled = 0). last_used_step is the
-- newest 30-second step accepted, so no code is accepted twice.
CREATE TABLE auth_totp (
  uuid           TEXT    PRIMARY KEY,
  secret_enc     BLOB    NOT NULL,
  enabled        INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  enabled_at     INTEGER,
  last_used_step INTEGER
) WITHOUT ROWID;

CREATE TABLE auth_recovery_codes (
  uuid        TEXT    NOT NULL,
  code_hash   TEXT    NOT NULL,
  consumed_at INTEGER,
  PRIMARY KEY (uuid, code_hash)
) WITHOUT ROWID;

-- Passkeys (WebAuthn credentials), by their base64url credential id.
CREATE TABLE auth_passkeys (
  credential_id TEXT    PRIMARY KEY,
  uuid          TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  public_key    BLOB    NOT NULL,
  sign_count    INTEGER NOT NULL DEFAULT 0,
  transports    TEXT    NOT NULL DEFAULT '[]',
  label         TEXT    NOT NULL,
  aaguid        TEXT,
  backed_up     INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER
) WITHOUT ROWID;
CREATE INDEX auth_passkeys_uuid ON auth_passkeys (uuid);
