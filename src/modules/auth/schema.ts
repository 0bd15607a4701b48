import type { Migration } from '../../storage/migrate';
import auth0001 from './migrations/0001_auth.sql' with { type: 'text' };
import auth0002 from './migrations/0002_challenge_origin.sql' with { type: 'text' };

/** The auth module's tables, in its own migration scope. */
export const AUTH_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'auth', sql: auth0001 },
  { version: 2, name: 'challenge-origin', sql: auth0002 },
];
