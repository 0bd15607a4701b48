import type { ModuleManifest } from '../module';
import { BACKUP_ERRORS } from './errors';
import { BACKUP_EVENTS } from './events';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const BACKUP_MANIFEST: ModuleManifest = {
  id: 'backup',
  name: 'Backups',
  version: '1.0.0',
  description: 'Scheduled and manual tar+zstd backups with manifests, retention, verify and safe restore',
  dashboard: {
    title: 'Backups',
    icon: 'Archive',
    apiPrefix: '/api/backups',
    sections: [{ title: 'Backups', type: 'table', endpoint: '?limit=100' }],
    pages: [{ path: '/modules/backup', title: 'Backups' }],
  },
  errors: BACKUP_ERRORS,
  events: BACKUP_EVENTS,
};
