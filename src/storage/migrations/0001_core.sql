-- Core tables. Timestamps are epoch milliseconds (ts) so ranges and pruning use an index.
CREATE TABLE audit_log (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  ts        INTEGER NOT NULL,
  actor     TEXT    NOT NULL,
  action    TEXT    NOT NULL,
  target    TEXT    NOT NULL DEFAULT '',
  details   TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_ts ON audit_log (ts);
CREATE INDEX audit_log_action ON audit_log (action, ts);
CREATE INDEX audit_log_actor ON audit_log (actor, ts);
