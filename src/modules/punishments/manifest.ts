import type { ModuleManifest } from '../module';
import { PUNISHMENTS_ERRORS } from './errors';
import { PUNISHMENTS_EVENTS } from './events';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const PUNISHMENTS_MANIFEST: ModuleManifest = {
  id: 'punishments',
  name: 'Punishments',
  version: '1.0.0',
  description: 'Bans, IP bans, mutes, kicks and warnings, network-wide or per group or service, with the login and chat checks the plugins ask',
  dashboard: {
    title: 'Punishments',
    icon: 'Gavel',
    apiPrefix: '/api/punishments',
    sections: [
      { title: 'Active', type: 'table', endpoint: '?active=true' },
      { title: 'All', type: 'table', endpoint: '?active=false' },
    ],
    pages: [{ path: '/modules/punishments', title: 'Punishments' }],
  },
  errors: PUNISHMENTS_ERRORS,
  events: PUNISHMENTS_EVENTS,
};
