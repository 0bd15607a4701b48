import type { Migration } from './migrate';
import core0001 from './migrations/0001_core.sql' with { type: 'text' };

/** Core schema, embedded in the binary at build time. Append only. */
export const CORE_MIGRATIONS: readonly Migration[] = [{ version: 1, name: 'core', sql: core0001 }];
