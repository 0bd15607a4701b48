-- Resource packs: URL packs hosted elsewhere and LOCAL packs this controller stores as
-- data/resourcepacks/<pack_uuid>.zip. Times are epoch milliseconds.
CREATE TABLE resource_packs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  pack_uuid TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  url TEXT NOT NULL,
  sha1_hash TEXT NOT NULL,
  prompt_message TEXT NOT NULL DEFAULT '',
  force INTEGER NOT NULL DEFAULT 0,
  file_size INTEGER NOT NULL DEFAULT 0,
  uploaded_at INTEGER NOT NULL,
  uploaded_by TEXT NOT NULL
);

-- Where a pack applies: everywhere (GLOBAL, target ''), one group or one service. A pack is
-- assigned once per (scope, target); its assignments go with it.
CREATE TABLE resource_pack_assignments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  pack_id INTEGER NOT NULL REFERENCES resource_packs (id) ON DELETE CASCADE,
  scope TEXT NOT NULL,
  target TEXT NOT NULL DEFAULT '',
  priority INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX resource_pack_assignments_unique ON resource_pack_assignments (pack_id, scope, target COLLATE NOCASE);
CREATE INDEX resource_pack_assignments_by_target ON resource_pack_assignments (scope, target);
