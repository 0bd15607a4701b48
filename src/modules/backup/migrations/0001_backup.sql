-- One row per archive attempt (a target of one trigger or schedule run). Times are epoch ms;
-- archive_path is relative to the configured local destination; checksum is the SHA-256 of
-- the archive file. A run the controller did not live to finish is marked FAILED at start.
CREATE TABLE backups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  target_type TEXT NOT NULL,
  target_name TEXT NOT NULL,
  schedule_class TEXT NOT NULL,
  schedule_name TEXT NOT NULL DEFAULT '',
  started_at INTEGER NOT NULL,
  completed_at INTEGER,
  status TEXT NOT NULL,
  size_bytes INTEGER NOT NULL DEFAULT 0,
  archive_path TEXT NOT NULL DEFAULT '',
  -- Where the archive is (absolute): the destination may move later; older archives stay findable.
  archive_file TEXT NOT NULL DEFAULT '',
  checksum TEXT NOT NULL DEFAULT '',
  error_message TEXT,
  node_id TEXT NOT NULL DEFAULT 'local',
  triggered_by TEXT NOT NULL
);
CREATE INDEX backups_by_target ON backups (target_type, target_name);
CREATE INDEX backups_by_class ON backups (schedule_class);
CREATE INDEX backups_by_started ON backups (started_at);

-- When each schedule last ran and how it went (GET /api/backups/schedules).
CREATE TABLE backup_schedule_log (
  schedule_name TEXT PRIMARY KEY,
  last_run_at INTEGER NOT NULL,
  last_status TEXT NOT NULL DEFAULT ''
);
