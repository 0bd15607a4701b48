import type { Database } from 'bun:sqlite';

export interface Migration {
  /** 1, 2, 3, … within its scope; never renumbered once released. */
  version: number;
  name: string;
  sql: string;
}

/**
 * Applies the pending migrations of one scope ("core" or a module id), each in its own
 * transaction. Every scope numbers its migrations independently, so a module can add tables
 * without coordinating numbers with core or with other modules.
 * Refuses a database written by a newer svc (a version this binary does not know).
 */
export function migrate(db: Database, scope: string, migrations: readonly Migration[]): number[] {
  db.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
    scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL,
    PRIMARY KEY (scope, version))`);
  checkOrder(scope, migrations);
  const applied = new Set(
    db
      .query<{ version: number }, [string]>('SELECT version FROM schema_migrations WHERE scope = ?')
      .all(scope)
      .map((row) => row.version),
  );
  const newest = Math.max(0, ...migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => v > newest);
  if (unknown.length > 0) {
    throw new Error(
      `database has ${scope} migration ${Math.max(...unknown)} but this svc knows only up to ${newest}: it was written by a newer svc`,
    );
  }
  const ran: number[] = [];
  const record = db.prepare('INSERT INTO schema_migrations (scope, version, name, applied_at) VALUES (?, ?, ?, ?)');
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.run(migration.sql);
      record.run(scope, migration.version, migration.name, Date.now());
    })();
    ran.push(migration.version);
  }
  return ran;
}

function checkOrder(scope: string, migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${scope} migrations must be numbered 1, 2, 3, …; found ${m.version} at position ${i + 1}`);
  });
}
