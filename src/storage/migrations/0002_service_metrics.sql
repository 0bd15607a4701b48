-- Service samples every 10 s for /api/services/{name}/metrics/history ([metrics] retention_days).
CREATE TABLE service_metrics (
  ts             INTEGER NOT NULL,
  service        TEXT    NOT NULL,
  memory_used_mb INTEGER NOT NULL,
  memory_max_mb  INTEGER NOT NULL,
  player_count   INTEGER NOT NULL
);
CREATE INDEX service_metrics_service_ts ON service_metrics (service, ts);
CREATE INDEX service_metrics_ts ON service_metrics (ts);
