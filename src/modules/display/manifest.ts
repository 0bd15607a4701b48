import type { ModuleManifest } from '../module';
import { DISPLAY_ERRORS } from './errors';
import { DISPLAY_EVENTS } from './events';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const DISPLAY_MANIFEST: ModuleManifest = {
  id: 'display',
  name: 'Display',
  version: '1.0.0',
  description: 'Server-selector signs and NPCs: sign lines, NPC hologram, items and state labels per group',
  dashboard: {
    title: 'Display',
    icon: 'Monitor',
    apiPrefix: '/api/displays',
    sections: [{ title: 'Configurations', type: 'table', endpoint: '' }],
    pages: [{ path: '/modules/display', title: 'Display' }],
  },
  errors: DISPLAY_ERRORS,
  events: DISPLAY_EVENTS,
};
