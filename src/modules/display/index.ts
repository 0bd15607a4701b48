import { defineModule } from '../module';
import { DISPLAY_USES } from './uses';
import { DISPLAY_MANIFEST } from './manifest';
import { PerController } from '../per-controller';
import { displayCommand } from './commands';
import { displayDoctorSection } from './doctor';
import { displayRoutes } from './routes';
import { DisplayStore } from './store';

const stores = new PerController<DisplayStore>('display');

/**
 * Server-selector signs and NPCs: one editable display per non-proxy group, in
 * config/modules/display/<Group>.toml, read by the display plugin through /api/displays.
 * The per-group files are the module's whole configuration; it keeps nothing in the database.
 */
export const displayModule = defineModule({
  ...DISPLAY_MANIFEST,
  uses: DISPLAY_USES,
  init(ctx) {
    const store = new DisplayStore(ctx.kernel, ctx.log, ctx.dir);
    store.start();
    stores.set(ctx, store);
  },
  routes: (ctx) => displayRoutes(stores.of(ctx)),
  commands: (ctx) => [displayCommand(stores.of(ctx))],
  doctorChecks: (ctx) => [displayDoctorSection(stores.of(ctx), ctx.kernel.dir)],
  stop(ctx) {
    stores.take(ctx)?.stop();
  },
});
