import type { ModuleManifest } from '../module';
import { AUTH_MODULE_ERRORS } from './errors';
import { AUTH_EVENTS } from './events';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const AUTH_MANIFEST: ModuleManifest = {
  id: 'auth',
  name: 'Auth',
  version: '1.0.0',
  description: 'Dashboard login by game account (codes, magic links, TOTP, passkeys) and sessions limited by permission nodes',
  // The login and profile pages are the dashboard's own; the module adds no sidebar entry.
  dashboard: { title: 'Auth', pages: [] },
  errors: AUTH_MODULE_ERRORS,
  events: AUTH_EVENTS,
};
