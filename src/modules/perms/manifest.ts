import type { ModuleManifest } from '../module';
import { PERMS_ERRORS } from './errors';
import { PERMS_EVENTS } from './events';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const PERMS_MANIFEST: ModuleManifest = {
  id: 'perms',
  name: 'Permissions',
  version: '1.0.0',
  description: 'Permission groups, contexts, tracks and meta for proxies, backends and dashboard logins',
  dashboard: {
    title: 'Permissions',
    icon: 'Shield',
    apiPrefix: '/api/permissions',
    sections: [
      { title: 'Groups', type: 'table', endpoint: '/groups' },
      { title: 'Tracks', type: 'table', endpoint: '/tracks' },
    ],
    pages: [{ path: '/modules/perms', title: 'Permissions' }],
  },
  errors: PERMS_ERRORS,
  events: PERMS_EVENTS,
};
