-- What happened to each service, for its timeline (GET /api/services/{name}/timeline): the
-- lifecycle events about it with who or what caused each (actor: an API caller, dashboard:<name>,
-- console, system, autoscaler, scheduler). data is the event's fields as a JSON object. Pruned
-- with the metrics ([metrics] retention_days).
CREATE TABLE service_timeline (
  ts      INTEGER NOT NULL,
  service TEXT    NOT NULL,
  type    TEXT    NOT NULL,
  actor   TEXT    NOT NULL,
  data    TEXT    NOT NULL
);
CREATE INDEX service_timeline_service_ts ON service_timeline (service, ts);
CREATE INDEX service_timeline_ts ON service_timeline (ts);
