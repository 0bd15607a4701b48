import type { SvcModule } from '../module';
import { PerController } from '../per-controller';
import { displayDoctorSection } from './doctor';
import { displayRoutes } from './routes';
import { DisplayStore } from './store';

const stores = new PerController<DisplayStore>('display');

/**
 * Server-selector signs and NPCs: one editable display per non-proxy group, in
 * config/modules/display/<Group>.toml, read by the display plugin through /api/displays.
 * The per-group files are the module's whole configuration; it keeps nothing in the database.
 */
export const displayModule: SvcModule = {
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
  init(ctx) {
    const store = new DisplayStore(ctx.kernel, ctx.log, ctx.dir);
    store.start();
    stores.set(ctx, store);
  },
  routes: (ctx) => displayRoutes(stores.of(ctx)),
  doctorChecks: (ctx) => [displayDoctorSection(stores.of(ctx), ctx.kernel.dir)],
  stop(ctx) {
    stores.take(ctx)?.stop();
  },
};
