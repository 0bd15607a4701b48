-- The network every sample tick (10 s), for /api/metrics/players/history and the uptime of
-- /api/metrics/performance ([metrics] retention_days). by_group is a JSON object group -> players;
-- up/down count services serving (READY, DRAINING) and services crashed and not back yet.
CREATE TABLE network_samples (
  ts            INTEGER NOT NULL,
  total_players INTEGER NOT NULL,
  by_group      TEXT    NOT NULL,
  up_services   INTEGER NOT NULL,
  down_services INTEGER NOT NULL
);
CREATE INDEX network_samples_ts ON network_samples (ts);

-- Crashes (value: exit code) and startups (value: STARTING to READY in ms) of services, kept
-- across restarts for the 24 h and 7 d figures of /api/metrics/performance.
CREATE TABLE service_events (
  ts      INTEGER NOT NULL,
  kind    TEXT    NOT NULL CHECK (kind IN ('CRASH', 'STARTUP')),
  service TEXT    NOT NULL,
  grp     TEXT    NOT NULL,
  value   INTEGER NOT NULL
);
CREATE INDEX service_events_kind_ts ON service_events (kind, ts);
CREATE INDEX service_events_ts ON service_events (ts);
