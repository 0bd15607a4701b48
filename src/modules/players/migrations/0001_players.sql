-- Every player the proxies have reported, with their totals. Times are epoch milliseconds
-- (never compared as strings); playtime is kept in ms and served in whole seconds.
CREATE TABLE player_tracking (
  uuid        TEXT    PRIMARY KEY,
  name        TEXT    NOT NULL,
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL,
  playtime_ms INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX player_tracking_last_seen ON player_tracking (last_seen);

-- One row per stay on one service; disconnected_at is NULL while it lasts. The open rows are
-- the online roster, which is how it survives a controller restart.
CREATE TABLE player_sessions (
  id              INTEGER PRIMARY KEY,
  uuid            TEXT    NOT NULL,
  name            TEXT    NOT NULL,
  service         TEXT    NOT NULL,
  grp             TEXT    NOT NULL,
  connected_at    INTEGER NOT NULL,
  disconnected_at INTEGER
);
CREATE INDEX player_sessions_uuid ON player_sessions (uuid, connected_at);
CREATE INDEX player_sessions_open ON player_sessions (service) WHERE disconnected_at IS NULL;
CREATE INDEX player_sessions_closed ON player_sessions (disconnected_at) WHERE disconnected_at IS NOT NULL;

-- Small facts of the module itself: `alive` is the last moment this controller was known to
-- be running (a tick every 15 s, and at stop), which closes sessions a crash left open.
CREATE TABLE players_state (
  key   TEXT    PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
