import type { ModuleManifest } from '../module';
import { PLAYERS_ERRORS } from './errors';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const PLAYERS_MANIFEST: ModuleManifest = {
  id: 'players',
  name: 'Players',
  version: '1.0.0',
  description: 'Player sessions, playtime and the online roster, kept across controller restarts',
  dashboard: {
    title: 'Players',
    icon: 'Users',
    apiPrefix: '/api/players',
    sections: [
      { title: 'Online Players', type: 'table', endpoint: '/online' },
      { title: 'Statistics', type: 'table', endpoint: '/stats' },
    ],
    pages: [{ path: '/modules/players', title: 'Players' }],
  },
  errors: PLAYERS_ERRORS,
};
