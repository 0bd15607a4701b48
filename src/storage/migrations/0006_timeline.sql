-- What happened in the network, for the timelines (GET /api/timeline, and a service's own at
-- GET /api/services/{name}/timeline): every event but the high-volume ones, with who or what
-- caused it (actor: an API caller, dashboard:<name>, console, system, autoscaler, crash-handler,
-- scheduler), the service and group it is about when it is about one (NULL otherwise), and the
-- event's fields as a JSON object. Pruned with the metrics ([metrics] retention_days).
CREATE TABLE timeline (
  id      INTEGER PRIMARY KEY,
  ts      INTEGER NOT NULL,
  type    TEXT    NOT NULL,
  actor   TEXT    NOT NULL,
  service TEXT,
  grp     TEXT,
  data    TEXT    NOT NULL
);
CREATE INDEX timeline_ts ON timeline (ts);
CREATE INDEX timeline_service ON timeline (service, id);
CREATE INDEX timeline_grp ON timeline (grp, id);
CREATE INDEX timeline_type ON timeline (type, id);
CREATE INDEX timeline_actor ON timeline (actor, id);
