-- Remote console sessions (/api/console/stream): who connected from where, for how long,
-- and how many commands they ran. Rows are kept like the audit log.
CREATE TABLE cli_sessions (
  id TEXT PRIMARY KEY,
  remote_ip TEXT NOT NULL,
  client_username TEXT NOT NULL,
  client_hostname TEXT NOT NULL,
  client_os TEXT NOT NULL,
  location TEXT NOT NULL,
  connected_at INTEGER NOT NULL,
  disconnected_at INTEGER,
  duration_seconds INTEGER,
  command_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX cli_sessions_connected_at ON cli_sessions (connected_at);
