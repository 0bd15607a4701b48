import type { Kernel } from '../../kernel';
import type { ModuleContext, SvcModule } from '../module';
import { displayDoctorSection } from './doctor';
import { displayRoutes } from './routes';
import { DisplayStore } from './store';

/** One store per controller: a module object is shared by every controller of a process (tests run several). */
const stores = new WeakMap<Kernel, DisplayStore>();
const storeOf = (ctx: ModuleContext) => {
  const store = stores.get(ctx.kernel);
  if (!store) throw new Error('the display module was used before its init');
  return store;
};

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
    stores.set(ctx.kernel, store);
  },
  routes: (ctx) => displayRoutes(storeOf(ctx)),
  doctorChecks: (ctx) => [displayDoctorSection(storeOf(ctx), ctx.kernel.dir)],
  stop(ctx) {
    stores.get(ctx.kernel)?.stop();
    stores.delete(ctx.kernel);
  },
};
