-- Smart scaling: per-minute samples of every non-static group (players, READY services),
-- hourly aggregates of them for the history route, and every scaling decision (the core
-- engine's and this module's) with its source and reason. Times are epoch numbers.

CREATE TABLE scaling_groups (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

-- One row per group per minute; 90 days are kept.
CREATE TABLE scaling_samples (
  group_id INTEGER NOT NULL,
  minute INTEGER NOT NULL,
  players INTEGER NOT NULL,
  services INTEGER NOT NULL,
  PRIMARY KEY (group_id, minute)
) WITHOUT ROWID;

CREATE TABLE scaling_hourly (
  group_id INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  samples INTEGER NOT NULL,
  players_sum INTEGER NOT NULL,
  players_max INTEGER NOT NULL,
  services_sum INTEGER NOT NULL,
  PRIMARY KEY (group_id, hour)
) WITHOUT ROWID;

CREATE TABLE scaling_decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  group_name TEXT NOT NULL,
  action TEXT NOT NULL,
  reason TEXT NOT NULL,
  source TEXT NOT NULL,
  services_started INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX scaling_decisions_at ON scaling_decisions (at);
CREATE INDEX scaling_decisions_group ON scaling_decisions (group_name, at);
