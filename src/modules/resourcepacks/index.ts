import { RESOURCEPACKS_MANIFEST } from './manifest';
import type { Kernel } from '../../kernel';
import { defineModule } from '../module';
import { RESOURCEPACKS_USES } from './uses';
import { PerController } from '../per-controller';
import { resourcePacksCommand } from './commands';
import { resourcePacksDoctorSection } from './doctor';
import { resourcePackRoutes } from './routes';
import { ResourcePacksRuntime } from './runtime';
import resourcepacks0001 from './migrations/0001_resourcepacks.sql' with { type: 'text' };

const runtimes = new PerController<ResourcePacksRuntime>('resourcepacks');

/** A controller's resource pack runtime (tests and benchmarks reach its service directly). */
export const resourcePacksRuntimeOf = (kernel: Kernel): ResourcePacksRuntime => runtimes.of({ kernel });

/**
 * Resource packs: packs hosted elsewhere (URL) or uploaded to the controller (LOCAL, served at
 * /api/resourcepacks/files/<uuid>.zip), assigned network-wide, to a group or to one service,
 * and resolved into the ordered stack the backend plugin applies when a player joins.
 */
export const resourcePacksModule = defineModule({
  ...RESOURCEPACKS_MANIFEST,
  uses: RESOURCEPACKS_USES,
  migrations: [{ version: 1, name: 'resourcepacks', sql: resourcepacks0001 }],
  init(ctx) {
    runtimes.set(ctx, new ResourcePacksRuntime(ctx.kernel, ctx.log));
  },
  routes: (ctx) => resourcePackRoutes(runtimes.of(ctx)),
  commands: (ctx) => [resourcePacksCommand(runtimes.of(ctx))],
  doctorChecks: (ctx) => [resourcePacksDoctorSection(runtimes.of(ctx), ctx.kernel.dir)],
  stop(ctx) {
    runtimes.take(ctx)?.stop();
  },
});
