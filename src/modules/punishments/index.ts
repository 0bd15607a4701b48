import { PUNISHMENTS_MANIFEST } from './manifest';
import type { Kernel } from '../../kernel';
import { defineModule } from '../module';
import { PUNISHMENTS_USES } from './uses';
import { PerController } from '../per-controller';
import { punishCommand } from './commands';
import { punishmentsDoctorSection } from './doctor';
import { punishmentRoutes } from './routes';
import { PunishmentsRuntime } from './runtime';
import punishments0001 from './migrations/0001_punishments.sql' with { type: 'text' };

const runtimes = new PerController<PunishmentsRuntime>('punishments');

/** A controller's punishments runtime (tests and benchmarks drive its clock-dependent parts directly). */
export const punishmentsRuntimeOf = (kernel: Kernel): PunishmentsRuntime => runtimes.of({ kernel });

/**
 * Bans, mutes, kicks and warnings: issued from the dashboard, the console or in game, checked
 * by the proxy plugin at every login and server switch and by the backend plugin at every
 * chat line, from memory. Settings in svc.toml's `[punishments]`; message templates in
 * config/modules/punishments/messages.toml.
 */
export const punishmentsModule = defineModule({
  ...PUNISHMENTS_MANIFEST,
  uses: PUNISHMENTS_USES,
  migrations: [{ version: 1, name: 'punishments', sql: punishments0001 }],
  init(ctx) {
    runtimes.set(ctx, new PunishmentsRuntime(ctx.kernel, ctx.log, ctx.dir));
  },
  ready: (ctx) => runtimes.of(ctx).start(),
  routes: (ctx) => punishmentRoutes(runtimes.of(ctx)),
  commands: (ctx) => [punishCommand(runtimes.of(ctx))],
  doctorChecks: (ctx) => [punishmentsDoctorSection(runtimes.of(ctx), ctx.kernel.dir)],
  stop(ctx) {
    runtimes.take(ctx)?.stop();
  },
});
