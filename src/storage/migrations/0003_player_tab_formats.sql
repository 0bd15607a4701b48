-- Per-player tab list names the proxy bridge shows (PUT /api/proxy/tablist/players/{uuid}).
CREATE TABLE player_tab_formats (
  uuid       TEXT    PRIMARY KEY,
  format     TEXT    NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
