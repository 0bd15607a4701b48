-- The permissions module. Names of groups and tracks are unique without case; server and
-- world are '' when a row is not scoped to one (so the unique keys hold: SQLite's NULLs are
-- all distinct); expires_at is epoch ms or NULL for permanent. Expired rows are deleted,
-- never kept as permanent ones.
CREATE TABLE perm_groups (
  id         INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL UNIQUE COLLATE NOCASE,
  is_default INTEGER NOT NULL DEFAULT 0,
  prefix     TEXT    NOT NULL DEFAULT '',
  suffix     TEXT    NOT NULL DEFAULT '',
  priority   INTEGER NOT NULL DEFAULT 0,
  weight     INTEGER NOT NULL DEFAULT 0
);
-- At most one default group.
CREATE UNIQUE INDEX perm_groups_default ON perm_groups (is_default) WHERE is_default = 1;

CREATE TABLE perm_group_parents (
  group_id  INTEGER NOT NULL REFERENCES perm_groups (id) ON DELETE CASCADE,
  parent_id INTEGER NOT NULL REFERENCES perm_groups (id) ON DELETE CASCADE,
  position  INTEGER NOT NULL,
  PRIMARY KEY (group_id, parent_id)
) WITHOUT ROWID;

-- A node is either unscoped (server = world = '' and no expiry) or held under one or more
-- scopes; one row per (node, server, world), so re-adding a scope only updates its expiry.
CREATE TABLE perm_group_grants (
  group_id   INTEGER NOT NULL REFERENCES perm_groups (id) ON DELETE CASCADE,
  node       TEXT    NOT NULL,
  server     TEXT    NOT NULL DEFAULT '' COLLATE NOCASE,
  world      TEXT    NOT NULL DEFAULT '' COLLATE NOCASE,
  expires_at INTEGER,
  PRIMARY KEY (group_id, node, server, world)
);
CREATE INDEX perm_group_grants_expiry ON perm_group_grants (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE perm_group_meta (
  group_id INTEGER NOT NULL REFERENCES perm_groups (id) ON DELETE CASCADE,
  key      TEXT    NOT NULL,
  value    TEXT    NOT NULL,
  PRIMARY KEY (group_id, key)
) WITHOUT ROWID;

-- The rowid keeps the order players were first seen in (the search lists them that way).
CREATE TABLE perm_players (
  id   INTEGER PRIMARY KEY,
  uuid TEXT    NOT NULL UNIQUE,
  name TEXT    NOT NULL
);
CREATE INDEX perm_players_name ON perm_players (name COLLATE NOCASE);

CREATE TABLE perm_memberships (
  player_id  INTEGER NOT NULL REFERENCES perm_players (id) ON DELETE CASCADE,
  group_id   INTEGER NOT NULL REFERENCES perm_groups (id) ON DELETE CASCADE,
  server     TEXT    NOT NULL DEFAULT '' COLLATE NOCASE,
  world      TEXT    NOT NULL DEFAULT '' COLLATE NOCASE,
  expires_at INTEGER,
  -- Order of assignment, so a player's groups list reads the way they were given.
  seq        INTEGER NOT NULL,
  PRIMARY KEY (player_id, group_id, server, world)
);
CREATE INDEX perm_memberships_group ON perm_memberships (group_id);
CREATE INDEX perm_memberships_expiry ON perm_memberships (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE perm_player_meta (
  player_id INTEGER NOT NULL REFERENCES perm_players (id) ON DELETE CASCADE,
  key       TEXT    NOT NULL,
  value     TEXT    NOT NULL,
  PRIMARY KEY (player_id, key)
) WITHOUT ROWID;

CREATE TABLE perm_tracks (
  id   INTEGER PRIMARY KEY,
  name TEXT    NOT NULL UNIQUE COLLATE NOCASE
);

-- A deleted group leaves the tracks it was on (the cascade), keeping the others' order.
CREATE TABLE perm_track_groups (
  track_id INTEGER NOT NULL REFERENCES perm_tracks (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  group_id INTEGER NOT NULL REFERENCES perm_groups (id) ON DELETE CASCADE,
  PRIMARY KEY (track_id, position)
) WITHOUT ROWID;

-- Every change the module made, and who asked (the credential, the console, or system for expiry).
CREATE TABLE perm_audit (
  id      INTEGER PRIMARY KEY,
  at      INTEGER NOT NULL,
  actor   TEXT    NOT NULL,
  action  TEXT    NOT NULL,
  target  TEXT    NOT NULL,
  details TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX perm_audit_action ON perm_audit (action);
CREATE INDEX perm_audit_target ON perm_audit (target);
