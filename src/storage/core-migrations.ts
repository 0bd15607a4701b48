import type { Migration } from './migrate';
import core0001 from './migrations/0001_core.sql' with { type: 'text' };
import core0002 from './migrations/0002_service_metrics.sql' with { type: 'text' };
import core0003 from './migrations/0003_player_tab_formats.sql' with { type: 'text' };
import core0004 from './migrations/0004_cli_sessions.sql' with { type: 'text' };
import core0005 from './migrations/0005_dashboard_metrics.sql' with { type: 'text' };
import core0006 from './migrations/0006_timeline.sql' with { type: 'text' };

/** Core schema, embedded in the binary at build time. Append only. */
export const CORE_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'core', sql: core0001 },
  { version: 2, name: 'service metrics', sql: core0002 },
  { version: 3, name: 'player tab formats', sql: core0003 },
  { version: 4, name: 'cli sessions', sql: core0004 },
  { version: 5, name: 'dashboard metrics', sql: core0005 },
  { version: 6, name: 'timeline', sql: core0006 },
];
