import type { ModuleManifest } from '../module';
import { RESOURCEPACKS_ERRORS } from './errors';
import { RESOURCEPACKS_EVENTS } from './events';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const RESOURCEPACKS_MANIFEST: ModuleManifest = {
  id: 'resourcepacks',
  name: 'Resource Packs',
  version: '1.0.0',
  description: 'Resource packs by URL or uploaded, assigned to the network, a group or a service, with the stack backends apply and public downloads',
  dashboard: {
    title: 'Resource Packs',
    icon: 'Package',
    apiPrefix: '/api/resourcepacks',
    sections: [
      { title: 'Packs', type: 'table', endpoint: '' },
      { title: 'Assignments', type: 'table', endpoint: '/assignments' },
    ],
    pages: [{ path: '/modules/resourcepacks', title: 'Resource Packs' }],
  },
  errors: RESOURCEPACKS_ERRORS,
  events: RESOURCEPACKS_EVENTS,
};
