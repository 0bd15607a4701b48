import type { ModuleManifest } from '../module';
import { SCALING_ERRORS } from './errors';
import { SCALING_EVENTS } from './events';

/** What the registry shows and installs before the module's code is loaded (see builtin.ts). */
export const SCALING_MANIFEST: ModuleManifest = {
  id: 'scaling',
  name: 'Smart Scaling',
  version: '1.0.0',
  description: 'Schedules, warm-up and predictions on top of the autoscaler',
  dashboard: { title: 'Smart Scaling', icon: 'TrendingUp', apiPrefix: '/api/scaling', sections: [{ title: 'Decisions', type: 'table', endpoint: '/decisions' }], pages: [{ path: '/modules/scaling', title: 'Smart Scaling' }] },
  errors: SCALING_ERRORS,
  events: SCALING_EVENTS,
};
