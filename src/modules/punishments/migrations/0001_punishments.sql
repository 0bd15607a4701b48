-- Every punishment ever issued: bans, mutes, kicks and warnings. Times are epoch milliseconds.
-- `active` is cleared by a revoke, a supersede or the expiry loop; KICK and WARN are stored
-- inactive (there is nothing to lift). `scope_target` is NULL for NETWORK.
CREATE TABLE punishments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  target_uuid TEXT NOT NULL,
  target_name TEXT NOT NULL,
  target_ip TEXT,
  reason TEXT NOT NULL DEFAULT '',
  issuer TEXT NOT NULL,
  issuer_name TEXT NOT NULL,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER,
  active INTEGER NOT NULL DEFAULT 1,
  revoked_by TEXT,
  revoked_at INTEGER,
  revoke_reason TEXT,
  scope TEXT NOT NULL DEFAULT 'NETWORK',
  scope_target TEXT
);
CREATE INDEX punishments_by_target ON punishments (target_uuid, issued_at);
-- The expiry sweep (active, end) and the dashboard's list of what is in force, newest first (no sort).
CREATE INDEX punishments_by_active ON punishments (active, expires_at);
CREATE INDEX punishments_active_by_issued ON punishments (active, issued_at);
CREATE INDEX punishments_by_issued ON punishments (issued_at);
